#include "daemon.h"

#include "checker_scheduler.h"
#include "dm_ops.h"
#include "log.h"
#include "map_policies.h"
#include "path_tracker.h"
#include "reconciler.h"
#include "state_files.h"
#include "uevent_source.h"

#include <algorithm>
#include <mpath/config/loader.h>
#include <mpath/config/parser.h>
#include <mpath/sys/file.h>

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
      uevents_(std::make_unique<UeventSource>(*this)),
      stateFiles_(std::make_unique<StateFiles>(*this)) {
    statusWriter_ = env_.loop->addAfterDispatch([this] {
        if (statusStale_ && !statusPace_)
            writeStatus();
    });
}

Daemon::~Daemon() {
    // Timers and sources of the state go first, then the parts; the
    // lanes last: they drop the answers of jobs still out.
    state_ = State{};
    stateFiles_.reset();
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

Result<mpath::config::Config> Daemon::takeConfig(mpath::config::ConfigResult r) const {
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
    } else if (lmpath_ == LmpathPresence::AsMultipath) {
        // dm-lmpath answers to "multipath" (and the stock module cannot
        // load): maps name it so, as consumers that match the target name
        // expect.
        target_ = DmTarget::Multipath;
    } else if (lmpath_ == LmpathPresence::Own) {
        target_ = DmTarget::Lmpath;
    } else {
        if (target_ != DmTarget::Multipath)
            logWarning({}, "dm-lmpath is not available: maps use the stock multipath target");
        target_ = DmTarget::Multipath;
    }
    config_.globals.dmTarget = target_;
    globals_ = config_.effectiveGlobals();
    // multipath-tools' verbosity N logs what syslog ranks at N + 3 or
    // more urgent: 2 notices, 3 info, 4 and above debug. Errors always.
    Log::setConfigured(
        static_cast<Level>(std::min(3u + globals_.verbosity.value, unsigned(Level::Debug))));
    applyMaxFds();
    paths_->configure();
}

Result<void> Daemon::start() {
    // Read at once: nothing can be done without them, and a daemon that
    // starts while its root file system queues could not even be loaded.
    auto config = takeConfig(mpath::config::Loader(env_.root).load());
    if (!config)
        return config.error();
    lmpath_ = env_.lmpathPresence();
    applyConfig(std::move(*config));
    stateFiles_->load([this] { reconciler_->filesLoaded(); });
    logNotice({}, "maps use the " + std::string(mpath::config::toString(target_)) + " target" +
                      (target_ == mpath::config::DmTarget::Multipath &&
                               lmpath_ == LmpathPresence::AsMultipath
                           ? ", served by dm-lmpath"
                           : ""));

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

void Daemon::applyMaxFds() {
    const mpath::config::MaxFds &m = globals_.maxFds.value;
    const std::optional<unsigned long> target =
        m.max ? std::nullopt : std::optional<unsigned long>(m.value);
    auto r = env_.raiseOpenFiles(target);
    if (!r)
        logWarning({}, "max_fds " + mpath::config::toString(m) + ": " + r.error().message +
                           "; the open file limit stays as it is");
    else if (r->raised)
        logNotice({}, "max_fds " + mpath::config::toString(m) + ": open file limit raised to " +
                          std::to_string(r->soft));
}

void Daemon::reconfigure(std::function<void(Result<void>)> done) {
    if (!done)
        done = [](Result<void>) {};
    if (stopping_) {
        done(Error{ESHUTDOWN, "the daemon is stopping"});
        return;
    }
    env_.notify("RELOADING=1");
    reloading_ = true;
    struct Read {
        mpath::config::ConfigResult config;
        LmpathPresence lmpath{LmpathPresence::Absent};
    };
    // Off the loop: /etc and /lib/modules may be on a device that queues.
    stateFiles_->run<std::shared_ptr<Read>>(
        [root = env_.root, lmpath = env_.lmpathPresence]() -> Result<std::shared_ptr<Read>> {
            auto read = std::make_shared<Read>();
            read->config = mpath::config::Loader(root).load();
            read->lmpath = lmpath();
            return read;
        },
        [this, done = std::move(done)](Result<std::shared_ptr<Read>> r) {
            Result<mpath::config::Config> config =
                r ? takeConfig(std::move((*r)->config)) : Result<mpath::config::Config>(r.error());
            if (!config) {
                logError({}, config.error().message + "; the running configuration stays");
                reloading_ = false;
                env_.notify("READY=1");
                done(config.error());
                return;
            }
            if (stopping_) {
                done(Error{ESHUTDOWN, "the daemon is stopping"});
                return;
            }
            overrides_.clear();
            queueWithoutDaemonForced_ = false; // as multipathd's new configuration
            lmpath_ = (*r)->lmpath;
            applyConfig(std::move(*config));
            stateFiles_->load(); // their names may have changed
            state_.removedByAdmin.clear();
            for (auto &[name, rec] : state_.paths)
                paths_->reprioritize(name);
            logNotice({}, "configuration read again");
            reconciler_->forgetTimeouts();
            reconciler_->run();
            done(mpath::ok());
        });
}

Result<void> Daemon::setMapSetting(const std::string &wwid, const std::string &keyword,
                                   const std::string &value) {
    auto entry = Overrides::parse(wwid, keyword, value);
    if (!entry)
        return entry.error();
    overrides_.set(*entry, keyword);
    applyConfig(fileConfig_);
    settingTaken(wwid, keyword, value, false);
    return mpath::ok();
}

void Daemon::setMapSetting(const std::string &wwid, const std::string &keyword,
                           const std::string &value, bool persist,
                           std::function<void(Result<void>)> done) {
    if (!persist) {
        done(setMapSetting(wwid, keyword, value));
        return;
    }
    if (auto entry = Overrides::parse(wwid, keyword, value); !entry) {
        done(entry.error());
        return;
    }
    const std::string confd = mpath::config::Loader(env_.root).confdDirectory(fileConfig_);
    const std::string file = Overrides::dropIn(confd, wwid);
    // Written, then read back: that file alone, so that what else changed
    // on disk waits for a reconfigure, as the administrator expects.
    stateFiles_->run<mpath::config::ConfigResult>(
        [confd, file, wwid, keyword, value]() -> Result<mpath::config::ConfigResult> {
            if (auto r = Overrides::persist(confd, wwid, keyword, value); !r)
                return r.error().context("cannot write the setting to conf.d");
            auto text = mpath::sys::readFile(file);
            if (!text)
                return text.error().context("cannot read back " + file);
            return mpath::config::parseString(*text, file, true);
        },
        [this, wwid, keyword, value, file,
         done = std::move(done)](Result<mpath::config::ConfigResult> r) {
            if (!r) {
                done(r.error());
                return;
            }
            auto &mps = fileConfig_.multipaths;
            mps.erase(std::remove_if(mps.begin(), mps.end(),
                                     [&](const auto &mp) { return mp.where.file == file; }),
                      mps.end());
            for (auto &mp : r->config.multipaths)
                mps.push_back(std::move(mp));
            overrides_.drop(wwid, keyword);
            applyConfig(fileConfig_);
            settingTaken(wwid, keyword, value, true);
            done(mpath::ok());
        });
}

bool Daemon::dropMapSetting(const std::string &wwid, const std::string &keyword) {
    if (!overrides_.drop(wwid, keyword))
        return false;
    applyConfig(fileConfig_);
    auto it = state_.maps.find(wwid);
    logNotice(aboutMap(it == state_.maps.end() ? wwid : it->second.name, wwid),
              keyword + " as configured again");
    reconciler_->schedule();
    return true;
}

void Daemon::settingTaken(const std::string &wwid, const std::string &keyword,
                          const std::string &value, bool persist) {
    auto it = state_.maps.find(wwid);
    logNotice(aboutMap(it == state_.maps.end() ? wwid : it->second.name, wwid),
              keyword + " " + value + (persist ? " (persistent)" : " (until reconfigure)"));
    reconciler_->schedule();
}

const std::map<std::string, std::string> &Daemon::overridesOf(const std::string &wwid) const {
    static const std::map<std::string, std::string> none;
    auto it = overridesByWwid_.find(wwid);
    return it == overridesByWwid_.end() ? none : it->second;
}

void Daemon::stop(std::function<void()> done) {
    stopping_ = true;
    env_.notify("STOPPING=1");
    if (globals_.queueWithoutDaemon.value || queueWithoutDaemonForced_) {
        if (queueWithoutDaemonForced_)
            logNotice({}, "queueing left on as asked (forcequeueing daemon)");
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

void Daemon::writeStatus() {
    statusStale_ = false;
    // Counting walks every map and path: during a burst of changes it is
    // done at most once per kStatusPace, and at the end of the burst.
    statusPace_ = env_.loop->addTimer(kStatusPace, [this] {
        statusPace_.reset();
        if (statusStale_)
            writeStatus();
    });
    ++counters_.statusCounts;
    unsigned maps = 0, paths = 0;
    for (const auto &[wwid, rec] : state_.maps)
        maps += rec.live;
    for (const auto &[name, rec] : state_.paths)
        paths += !rec.mapWwid.empty();
    std::string status =
        "STATUS=" + std::to_string(maps) + " maps, " + std::to_string(paths) + " paths";
    if (status == status_)
        return;
    status_ = std::move(status);
    env_.notify(status_);
}

void Daemon::onSettled() {
    if (statusStale_)
        writeStatus();
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
