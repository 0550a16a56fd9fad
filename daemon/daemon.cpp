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
      executor_(std::make_unique<mpath::sys::Executor>(*env_.loop, env_.executor)),
      dmOps_(std::make_unique<DmOps>(*this)), paths_(std::make_unique<PathTracker>(*this)),
      reconciler_(std::make_unique<Reconciler>(*this)),
      checks_(std::make_unique<CheckerScheduler>(*this)),
      policies_(std::make_unique<MapPolicies>(*this)),
      uevents_(std::make_unique<UeventSource>(*this)) {}

Daemon::~Daemon() {
    // Timers and sources of the state go first, then the parts; the
    // executor last: it drops the answers of jobs still out.
    state_ = State{};
    uevents_.reset();
    policies_.reset();
    checks_.reset();
    reconciler_.reset();
    paths_.reset();
    dmOps_.reset();
    executor_.reset();
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
    config_ = std::move(config);
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

void Daemon::reconfigure() {
    if (stopping_)
        return;
    env_.notify("RELOADING=1");
    auto config = readConfig();
    if (!config) {
        logError({}, config.error().message + "; the running configuration stays");
        env_.notify("READY=1");
        return;
    }
    reloading_ = true;
    applyConfig(std::move(*config));
    state_.removedByAdmin.clear();
    for (auto &[name, rec] : state_.paths)
        paths_->reprioritize(name);
    logNotice({}, "configuration read again");
    reconciler_->run();
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
        if (!rec.live)
            continue;
        const auto &f = rec.liveMap.features;
        if (std::find(f.begin(), f.end(), "queue_if_no_path") == f.end())
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
    } else if (reloading_) {
        reloading_ = false;
        env_.notify("READY=1");
    }
}

} // namespace mpathd
