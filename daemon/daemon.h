#pragma once

#include "overrides.h"
#include "state.h"

#include <chrono>
#include <functional>
#include <memory>
#include <mpath/checkers/checker.h>
#include <mpath/config/config.h>
#include <mpath/config/config_result.h>
#include <mpath/discovery/udev.h>
#include <mpath/dm/device_mapper.h>
#include <mpath/error.h>
#include <mpath/prio/prioritizer.h>
#include <mpath/sys/event_loop.h>
#include <mpath/sys/executor.h>
#include <mpath/sys/open_files.h>
#include <mpath/sys/path_io.h>
#include <string>

namespace mpathd {

class CheckerScheduler;
class DmOps;
class MapPolicies;
class PathTracker;
class Reconciler;
class StateFiles;
class UeventSource;

/// How the kernel offers dm-lmpath.
enum class LmpathPresence {
    Absent,      ///< neither loaded nor installed for the running kernel
    Own,         ///< as target "lmpath": loaded, or loaded on first use
    AsMultipath, ///< loaded and registered as "multipath" too (alias_multipath)
};

/// What the daemon runs on. main() gives it the real system; the tests give
/// it a loop with a clock they move, a fake udev and device-mapper, a
/// generated sysfs tree and checkers they script.
struct Environment {
    using CheckerFactory = std::function<mpath::Result<std::unique_ptr<mpath::checkers::Checker>>(
        std::string_view name, std::string devnode)>;

    mpath::sys::EventLoop *loop{nullptr};
    mpath::discovery::Udev *udev{nullptr};
    /// Shared with the executor's jobs, which may outlive the daemon when a
    /// call hangs in the kernel. Must be safe to call from several threads
    /// for different maps at once.
    std::shared_ptr<mpath::dm::DeviceMapper> dm;
    std::string root{"/"};         ///< configuration and state files below it
    std::string sysfsRoot{"/sys"}; ///< where discovery reads
    std::string devDirectory{"/dev"};
    CheckerFactory checkers{&mpath::checkers::Checker::create};
    mpath::prio::Context prio{mpath::prio::Context::system()};
    /// One direct read of path \a devnode for marginal_path_* I/O error
    /// sampling, ended by \a timeout; \a done on the loop, never inside
    /// the call. Empty: through PathIo (or a worker where Linux AIO
    /// cannot be had).
    std::function<void(const std::string &devnode, std::chrono::milliseconds timeout,
                       std::function<void(mpath::Result<void>)> done)>
        sampleRead;
    /// The least time from one sampling read to the next: a sample
    /// measures a path, it does not load it (at most 100 reads a second).
    std::chrono::milliseconds sampleReadGap{std::chrono::milliseconds(10)};
    /// sd_notify(): "READY=1", "STATUS=...", "RELOADING=1", "STOPPING=1".
    std::function<void(const std::string &)> notify{[](const std::string &) {}};
    /// How the kernel offers dm-lmpath: see LmpathPresence.
    std::function<LmpathPresence()> lmpathPresence{[] { return LmpathPresence::Absent; }};
    /// Raises the process's limit of open files as max_fds says (nullopt:
    /// "max"); see mpath::sys::raiseOpenFileLimit.
    std::function<mpath::Result<mpath::sys::OpenFileLimit>(std::optional<unsigned long>)>
        raiseOpenFiles{&mpath::sys::raiseOpenFileLimit};
    /// Device-mapper calls, in a lane of their own: no number of hung
    /// paths can take the workers a fail_path, reload or create needs. No
    /// call waits for udev (a map is parked on its cookie instead), but a
    /// suspend can wait for a map's in-flight I/O: a burst of calls gets
    /// up to 28 more workers, so 64 maps are not made four at a time.
    mpath::sys::Executor::Options dmLane{4, 16, 28};
    /// Path I/O: submitting the checks' I/O (which no thread waits for:
    /// PathIo), the checks that must run as jobs, and priorities. A hung
    /// path costs at most one stuck worker here, and the lane never has
    /// more than 4 + 8 threads, however many paths hang.
    mpath::sys::Executor::Options ioLane{4, 8, 0};
    /// How long events may gather before the maps are planned again: the
    /// maps are planned once no event came for \a coalesce, or at the
    /// latest \a coalesceCap after the first, so that a burst of path
    /// additions becomes one operation per map and a steady stream of
    /// events still has its maps made.
    std::chrono::milliseconds coalesce{std::chrono::milliseconds(200)};
    std::chrono::milliseconds coalesceCap{std::chrono::seconds(1)};
    /// Bounds of device-mapper calls, from when a worker takes them; and
    /// how long one may wait for a worker (its own log line when it
    /// waited longer).
    std::chrono::milliseconds dmDeadline{std::chrono::seconds(60)};
    std::chrono::milliseconds messageDeadline{std::chrono::seconds(10)};
    std::chrono::milliseconds dmQueueBound{std::chrono::seconds(60)};
};

/// Counts of what the daemon did, for tests and status output.
struct Counters {
    unsigned creates{0};
    unsigned reloads{0};
    unsigned renames{0};
    unsigned removes{0};
    unsigned messages{0};
    unsigned plans{0};            ///< reconcile passes
    uint64_t pathsPlanned{0};     ///< the paths those passes planned, summed
    uint64_t mapsPassed{0};       ///< the maps those passes acted on or let go, summed
    unsigned statusCounts{0};     ///< times the status line's maps and paths were counted
    unsigned wwidsWrites{0};      ///< changes of the wwids file asked of its lane
    unsigned bindingsWrites{0};   ///< changes of the bindings file asked of its lane
    unsigned checks{0};           ///< path checks answered
    unsigned checksNotStarted{0}; ///< path checks that waited past their timeout for a worker
};

/// The daemon's context: the configuration, the state, and the parts that
/// act on it, all on one event loop. Nothing here blocks: device I/O and
/// device-mapper calls run in their lanes and answer on the loop.
class Daemon {
public:
    explicit Daemon(Environment env);
    ~Daemon();
    Daemon(const Daemon &) = delete;
    Daemon &operator=(const Daemon &) = delete;

    /// Reads the configuration (errors name file:line, and the daemon does
    /// not start), starts the udev monitor, describes the devices present,
    /// adopts the maps device-mapper has, and plans. READY=1 follows once
    /// the first plan is carried out.
    mpath::Result<void> start();

    /// Reads the configuration again, off the loop (it may live on a
    /// device that queues); a configuration with errors is not taken (the
    /// old one stays, the errors are logged and given to \a done). Maps
    /// whose table changes are reloaded, no other. Settings changed at
    /// runtime end; persistent ones are in the files read. \a done is
    /// called on the loop once the configuration is taken or refused.
    void reconfigure(std::function<void(mpath::Result<void>)> done = {});

    /// Sets \a keyword (one of Overrides::known()) to \a value for map
    /// \a wwid, until the next reconfigure(), and plans again.
    /// \return EINVAL naming the problem of a bad value (nothing changes)
    mpath::Result<void> setMapSetting(const std::string &wwid, const std::string &keyword,
                                      const std::string &value);
    /// The same; with \a persist, written to the map's drop-in of conf.d
    /// (off the loop) and read back from that file alone: edits of other
    /// files wait for a reconfigure. \a done gets EINVAL for a bad value,
    /// or the error of writing the drop-in; nothing changes then.
    void setMapSetting(const std::string &wwid, const std::string &keyword,
                       const std::string &value, bool persist,
                       std::function<void(mpath::Result<void>)> done);
    /// Ends the runtime setting of \a keyword for map \a wwid: the
    /// configuration's value holds again, and a pass follows it.
    /// \return whether there was one
    bool dropMapSetting(const std::string &wwid, const std::string &keyword);
    /// Keyword -> "runtime" or "persistent" for what setMapSetting() changed.
    const std::map<std::string, std::string> &overridesOf(const std::string &wwid) const;
    /// The configuration is being read again and the maps made to follow it.
    bool reconfiguring() const { return reloading_; }

    /// STOPPING=1; with queue_without_daemon no, queueing is turned off on
    /// every map first. \a done is called when that is sent (or its
    /// deadline passed); maps stay.
    void stop(std::function<void()> done);

    /// Queueing stays on when the daemon stops, whatever
    /// queue_without_daemon says (multipathd's "forcequeueing daemon"),
    /// until this is undone or the configuration is read again.
    void forceQueueWithoutDaemon(bool force) { queueWithoutDaemonForced_ = force; }
    bool queueWithoutDaemonForced() const { return queueWithoutDaemonForced_; }

    bool ready() const { return ready_; }
    /// SIGTERM came: no more planning, no queueing turned back on.
    bool stopping() const { return stopping_; }
    const State &state() const { return state_; }
    const Counters &counters() const { return counters_; }
    const mpath::config::Config &config() const { return config_; }
    const mpath::config::EffectiveGlobals &globals() const { return globals_; }
    mpath::config::DmTarget target() const { return target_; }

    // The parts reach one another, and the context, through here.
    Environment &env() { return env_; }
    mpath::sys::EventLoop &loop() { return *env_.loop; }
    /// The device-mapper lane.
    mpath::sys::Executor &dmExecutor() { return *dmExecutor_; }
    /// The path I/O lane.
    mpath::sys::Executor &ioExecutor() { return *ioExecutor_; }
    /// What path checks run on.
    mpath::checkers::CheckIo checkIo() { return {*env_.loop, *ioExecutor_, pathIo_.get()}; }
    State &mutableState() { return state_; }
    Counters &mutableCounters() { return counters_; }
    PathTracker &paths() { return *paths_; }
    Reconciler &reconciler() { return *reconciler_; }
    CheckerScheduler &checks() { return *checks_; }
    MapPolicies &policies() { return *policies_; }
    StateFiles &stateFiles() { return *stateFiles_; }
    DmOps &dmOps() { return *dmOps_; }

    /// The bindings and wwids files (below the root).
    std::string bindingsFile() const;
    std::string wwidsFile() const;

    /// The status line for systemd ("N maps, M paths") is counted again
    /// once the callback that changed the maps has run (during a burst, at
    /// most once per kStatusPace, and when the daemon settles), and sent
    /// when it reads differently.
    void publishStatus() { statusStale_ = true; }
    /// Called by the reconciler when a plan has been carried out.
    void onSettled();

private:
    /// The configuration's diagnostics logged; its errors as one error.
    mpath::Result<mpath::config::Config> takeConfig(mpath::config::ConfigResult read) const;
    void applyConfig(mpath::config::Config config);
    /// Raises the open file limit to max_fds; a failure is a warning.
    void applyMaxFds();
    /// Counts the maps and paths, and sends the status line if it changed.
    void writeStatus();
    /// The setting is parsed and its drop-in (if any) written: take it.
    void settingTaken(const std::string &wwid, const std::string &keyword, const std::string &value,
                      bool persist);

    Environment env_;
    mpath::config::Config fileConfig_; ///< as read from the files
    mpath::config::Config config_;     ///< with the runtime overrides
    Overrides overrides_;
    /// overridesOf() for every map that has any, computed with config_.
    std::map<std::string, std::map<std::string, std::string>> overridesByWwid_;
    mpath::config::EffectiveGlobals globals_;
    bool queueWithoutDaemonForced_{false};
    mpath::config::DmTarget target_{mpath::config::DmTarget::Lmpath};
    State state_;
    Counters counters_;
    bool ready_{false};
    bool reloading_{false};
    bool stopping_{false};
    LmpathPresence lmpath_{LmpathPresence::Absent}; ///< as last found, off the loop after start

    std::unique_ptr<mpath::sys::Executor> dmExecutor_;
    std::unique_ptr<mpath::sys::Executor> ioExecutor_;
    std::unique_ptr<mpath::sys::PathIo> pathIo_;
    std::unique_ptr<DmOps> dmOps_;
    std::unique_ptr<PathTracker> paths_;
    std::unique_ptr<Reconciler> reconciler_;
    std::unique_ptr<CheckerScheduler> checks_;
    std::unique_ptr<MapPolicies> policies_;
    std::unique_ptr<UeventSource> uevents_;
    std::unique_ptr<StateFiles> stateFiles_;
    static constexpr std::chrono::milliseconds kStatusPace{500};
    bool statusStale_{false};
    mpath::sys::EventLoop::SourcePtr statusPace_; ///< no count before it fires
    std::string status_;                          ///< the status line last sent
    mpath::sys::EventLoop::SourcePtr statusWriter_;
};

} // namespace mpathd
