#include "daemon.h"

#include "checker_scheduler.h"
#include "dm_ops.h"
#include "log.h"
#include "map_policies.h"
#include "path_tracker.h"
#include "reconciler.h"
#include "uevent_source.h"

#include <mpath/config/loader.h>

namespace mpathd {

using mpath::Error;
using mpath::Result;

Daemon::Daemon(Environment env)
    : env_(std::move(env)),
      dmExecutor_(std::make_unique<mpath::sys::Executor>(*env_.loop, env_.dmLane)),
      ioExecutor_(std::make_unique<mpath::sys::Executor>(*env_.loop, env_.ioLane)),
      pathIo_(std::make_unique<mpath::sys::PathIo>(
          *env_.loop, *ioExecutor_,
          mpath::sys::PathIo::Options{env_.sysfsRoot, env_.devDirectory, 4096})),
      dmOps_(std::make_unique<DmOps>(*this)), paths_(std::make_unique<PathTracker>(*this)),
      reconciler_(std::make_unique<Reconciler>(*this)),
      checks_(std::make_unique<CheckerScheduler>(*this)),
      policies_(std::make_unique<MapPolicies>(*this)),
      uevents_(std::make_unique<UeventSource>(*this)) {}

Daemon::~Daemon() {
    // Timers and sources of the state go first, then the parts; the
    // lanes last: they drop the answers of jobs still out.
    state_ = State{};
    uevents_.reset();
    policies_.reset();
    checks_.reset();
    reconciler_.reset();
    paths_.reset();
    dmOps_.reset();
    pathIo_.reset();
    ioExecutor_.reset();
    dmExecutor_.reset();
}

std::string Daemon::bindingsFile() const {
    return mpath::config::Loader(env_.root).underRoot(globals_.bindingsFile.value);
}

std::string Daemon::wwidsFile() const {
    return mpath::config::Loader(env_.root).underRoot(globals_.wwidsFile.value);
}

Result<mpath::config::Config> Daemon::readConfig() const {
    mpath::config::ConfigResult r = mpath::config::Loader(env_.root).load();
    std::string errors;
    for (const auto &d : r.diagnostics) {
        if (d.severity == mpath::config::Diagnostic::Severity::Error) {
            logError({}, d.toString());
            errors += (errors.empty() ? "" : "; ") + d.toString();
        } else if (d.severity == mpath::config::Diagnostic::Severity::Warning) {
            logWarning({}, d.toString());
        } else {
            logInfo({}, d.toString());
        }
    }
    if (!errors.empty())
        return Error{EINVAL, "the configuration has errors: " + errors};
    return std::move(r.config);
}

void Daemon::applyConfig(mpath::config::Config config) {
    using mpath::config::DmTarget;
    fileConfig_ = std::move(config);
    config_ = overrides_.apply(fileConfig_);
    overridesByWwid_.clear();
    const std::string confd = mpath::config::Loader(env_.root).confdDirectory(fileConfig_);
    for (const auto &mp : config_.multipaths)
        if (!overridesByWwid_.count(mp.wwid))
            if (auto o = overrides_.describe(fileConfig_, confd, mp.wwid); !o.empty())
                overridesByWwid_.emplace(mp.wwid, std::move(o));
    if (config_.globals.dmTarget) {
        target_ = *config_.globals.dmTarget; // chosen in mpathd.conf
    } else if (env_.lmpathAvailable()) {
        target_ = DmTarget::Lmpath;
    } else {
        if (target_ != DmTarget::Multipath)
            logWarning({}, "dm-lmpath is not available: maps use the stock multipath target");
        target_ = DmTarget::Multipath;
    }
    config_.globals.dmTarget = target_;
    globals_ = config_.effectiveGlobals();
    paths_->configure();
}

Result<void> Daemon::start() {
    auto config = readConfig();
    if (!config)
        return config.error();
    applyConfig(std::move(*config));
    logInfo({}, "maps use the " + std::string(mpath::config::toString(target_)) + " target");

    // The monitor first: what changes while the present devices are
    // described is not lost.
    if (auto r = uevents_->start(); !r)
        return r.error().context("udev monitor");
    auto devices = env_.udev->enumerate("block", "disk");
    if (!devices)
        return devices.error().context("cannot list block devices");
    for (const auto &d : *devices)
        paths_->update(d);
    reconciler_->adopt([this] { reconciler_->run(); });
    return mpath::ok();
}

Result<void> Daemon::reconfigure() {
    if (stopping_)
        return Error{ESHUTDOWN, "the daemon is stopping"};
    env_.notify("RELOADING=1");
    auto config = readConfig();
    if (!config) {
        logError({}, config.error().message + "; the running configuration stays");
        env_.notify("READY=1");
        return config.error();
    }
    reloading_ = true;
    overrides_.clear();
    applyConfig(std::move(*config));
    state_.removedByAdmin.clear();
    for (auto &[name, rec] : state_.paths)
        paths_->reprioritize(name);
    logNotice({}, "configuration read again");
    reconciler_->run();
    return mpath::ok();
}

Result<void> Daemon::setMapSetting(const std::string &wwid, const std::string &keyword,
                                   const std::string &value, bool persist) {
    auto entry = Overrides::parse(wwid, keyword, value);
    if (!entry)
        return entry.error();
    if (persist) {
        const mpath::config::Loader loader(env_.root);
        if (auto r = Overrides::persist(loader.confdDirectory(fileConfig_), wwid, keyword, value);
            !r)
            return r.error().context("cannot write the setting to conf.d");
        overrides_.drop(wwid, keyword);
        // The drop-in is read with the rest, as the next start will.
        auto config = readConfig();
        if (config) {
            applyConfig(std::move(*config));
        } else {
            logWarning({}, "the setting is written to conf.d but the configuration has "
                           "errors: it applies until the next reconfigure only");
            overrides_.set(*entry, keyword);
            applyConfig(fileConfig_);
        }
    } else {
        overrides_.set(*entry, keyword);
        applyConfig(fileConfig_);
    }
    auto it = state_.maps.find(wwid);
    logNotice(aboutMap(it == state_.maps.end() ? wwid : it->second.name, wwid),
              keyword + " " + value + (persist ? " (persistent)" : " (until reconfigure)"));
    reconciler_->schedule();
    return mpath::ok();
}

const std::map<std::string, std::string> &Daemon::overridesOf(const std::string &wwid) const {
    static const std::map<std::string, std::string> none;
    auto it = overridesByWwid_.find(wwid);
    return it == overridesByWwid_.end() ? none : it->second;
}

void Daemon::stop(std::function<void()> done) {
    stopping_ = true;
    env_.notify("STOPPING=1");
    if (globals_.queueWithoutDaemon.value) {
        done();
        return;
    }
    // Without the daemon nobody would end a wait for paths: queued I/O
    // would hang for good. Fail it instead, as multipath-tools does.
    auto outstanding = std::make_shared<unsigned>(0);
    auto last = std::make_shared<std::function<void()>>(std::move(done));
    for (auto &[wwid, rec] : state_.maps) {
        // Every map the kernel has, whatever its table last read said:
        // one queueing with no paths waits for its last close too.
        if (!rec.live)
            continue;
        ++*outstanding;
        dmOps_->message(wwid, rec.name, "fail_if_no_path", [outstanding, last](Result<void>) {
            if (--*outstanding == 0)
                (*last)();
        });
    }
    if (*outstanding == 0)
        (*last)();
}

void Daemon::publishStatus() {
    unsigned maps = 0, paths = 0;
    for (const auto &[wwid, rec] : state_.maps)
        maps += rec.live;
    for (const auto &[name, rec] : state_.paths)
        paths += !rec.mapWwid.empty();
    env_.notify("STATUS=" + std::to_string(maps) + " maps, " + std::to_string(paths) + " paths");
}

void Daemon::onSettled() {
    publishStatus();
    if (!ready_) {
        ready_ = true;
        logNotice({}, "ready");
        env_.notify("READY=1");
        reloading_ = false; // a reconfigure before the first settle is in it
    } else if (reloading_) {
        reloading_ = false;
        env_.notify("READY=1");
    }
}

} // namespace mpathd
