#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mpath/checkers/checker.h>
#include <mpath/config/values.h>
#include <mpath/discovery/udev_properties.h>
#include <mpath/dm/device_mapper.h>
#include <mpath/dm/status.h>
#include <mpath/model/map.h>
#include <mpath/policy/marginal_path.h>
#include <mpath/policy/planner.h>
#include <mpath/policy/san_path_err.h>
#include <mpath/sys/event_loop.h>
#include <mpath/sys/executor.h>
#include <optional>
#include <set>
#include <string>

namespace mpathd {

/// One block device the daemon knows: what discovery found, and the
/// checking of it while it is in a map. Owned by State; only the loop's
/// thread touches it.
struct PathRecord {
    mpath::model::Path path;                      ///< priority, checker and dm states kept current
    mpath::discovery::UdevPropertyMap properties; ///< as udev last described it
    std::string devnode;                          ///< "/dev/sdb"
    bool hasUdevData{false};

    /// Which device of this kernel name it is: answers of checks and
    /// priorities started for an earlier one (removed, then the name
    /// reused) are not taken for it.
    uint64_t generation{0};
    std::string prioNote;    ///< why it has no priority, "" when it has one
    bool prioPending{false}; ///< a priority job runs
    bool portReading{false}; ///< its port state is being read again, off the loop
    bool ranked{false};      ///< a priority answer came once: plans need not wait
    std::string mapWwid;     ///< the map it is in, "" when none
    std::unique_ptr<mpath::checkers::Checker> checker;
    std::chrono::seconds interval{0}; ///< until the next check
    mpath::sys::EventLoop::SourcePtr nextCheck;
    mpath::sys::EventLoop::Clock::time_point nextCheckAt{}; ///< when nextCheck fires
    bool checking{false};                                   ///< a check runs
    bool checkedOnce{false}; ///< a check has answered since it joined its map
    /// Reinstating a path the kernel keeps failing (its check answers, its
    /// I/O does not) is paced: when it was last reinstated, and how many
    /// times in a row the kernel failed it again soon after.
    mpath::sys::EventLoop::Clock::time_point reinstatedAt{};
    unsigned flaps{0};
    /// san_path_err_* (shaky paths): its failures, and whether it is held
    /// failed until it has stayed up for the recovery time.
    mpath::policy::SanPathErrState sanPathErr;
    /// marginal_path_* (I/O error sampling): its failures, its hold, and
    /// the sample of its I/O while one runs.
    mpath::policy::MarginalPathState marginalPath;
    struct IoSample {
        uint64_t id{0}; ///< which sample a read's answer belongs to
        mpath::sys::EventLoop::Clock::time_point start;
        unsigned reads{0};
        unsigned errors{0};
        bool reading{false};
        mpath::sys::EventLoop::SourcePtr next; ///< the next read, or the end
    };
    std::unique_ptr<IoSample> ioSample;
    /// Held failed (or grouped apart) as shaky, by either detection.
    bool heldAsShaky() const { return sanPathErr.held || marginalPath.held; }
    /// An administrator failed it: checks do not reinstate it until an
    /// administrator does.
    bool adminFailed{false};
    /// recheck_wwid: its WWID is being read from the device again before
    /// it is reinstated, or was and is the same (reinstate it now).
    bool wwidChecking{false};
    bool wwidRechecked{false};
    /// recheck_wwid: the device came back with this other WWID (the LUN
    /// behind the path changed). No plan uses it until udev describes it
    /// with another WWID than before; "" when not.
    std::string changedWwid;
    /// An administrator took it out of its map: no plan uses it until it
    /// is added again (or udev adds it again).
    bool adminRemoved{false};

    /// What the udev rules (60-multipath.rules) decided, from its
    /// properties. Released: find_multipaths smart waited in vain and gave
    /// the disk to the rest of the system for good.
    bool releasedByUdev() const {
        return property("FIND_MULTIPATHS_WAIT_UNTIL") == "0" &&
               property("DM_MULTIPATH_DEVICE_PATH") == "0";
    }
    /// Claimed as a path, and not only held back while a smart wait runs.
    bool claimedByUdev() const {
        return property("DM_MULTIPATH_DEVICE_PATH") == "1" &&
               property("FIND_MULTIPATHS_WAIT_UNTIL").empty();
    }
    std::string property(const std::string &key) const {
        auto it = properties.find(key);
        return it == properties.end() ? std::string() : it->second;
    }
};

/// What happened to a map since the daemon has known it, as multipathd
/// counts it (`show maps stats`, `show maps json`).
struct MapStats {
    unsigned pathFaults{0};    ///< its paths the kernel failed (PATH_FAILED)
    unsigned switchGroups{0};  ///< switch_group messages that succeeded
    unsigned loads{0};         ///< creates and reloads that succeeded
    unsigned queueTimeouts{0}; ///< no_path_retry countdowns that ran out
    unsigned mapFailures{0};   ///< outages (no usable path) not queued for good
    /// Time spent in no_path_retry countdowns that ended, and the start of
    /// the one running (its epoch when none runs).
    std::chrono::steady_clock::duration queued{};
    std::chrono::steady_clock::time_point queueingSince{};
};

/// One map: what the plan wants and what device-mapper has.
struct MapRecord {
    std::string wwid;
    std::string name;                                   ///< the device-mapper name, planned or live
    bool live{false};                                   ///< device-mapper has it
    std::string target;                                 ///< live target type
    dev_t devt{0};                                      ///< the live map's device number
    bool suspended{false};                              ///< the live map is suspended
    bool statusReading{false};                          ///< a readStatus() runs
    std::chrono::steady_clock::time_point statusRead{}; ///< when the last one started
    bool statusAgain{false}; ///< asked at once while a read or change ran: read again after
    /// Target messages sent to it so far: a status read that began before
    /// one of them may answer with path states older than the daemon's.
    uint64_t messagesSent{0};
    mpath::model::Map liveMap;       ///< live table and status, as last read
    mpath::dm::MapStatus liveStatus; ///< map-wide status facts, as last read
    std::optional<mpath::policy::PlannedMap> planned;
    std::string noPathRetry; ///< the setting the last plan found, as the configuration says it
    /// The same, as a value: what no_path_retry does for this map, kept
    /// when its paths are all gone and its plan with them.
    mpath::config::NoPathRetry retry{mpath::config::NoPathRetry::fail()};
    bool busy{false}; ///< a create, reload, rename or remove runs
    /// The udev cookie of its last create or reload, until the uevent that
    /// carries it arrived: it is parked, changes wait to go as one.
    mpath::dm::UdevCookie udevCookie;
    mpath::sys::EventLoop::SourcePtr udevTimer; ///< gives up waiting for it
    /// The cookie (its low 16 bits) of a uevent of this map that came while
    /// it was not parked: udev can be done with a create or reload before
    /// the loop learns that the call ended.
    std::optional<uint16_t> udevSeen;
    bool dirty{false};        ///< plan again once the running operation ends
    bool reloadWanted{false}; ///< reload at the next pass even if the table is right
    std::string reloadWhy;    ///< why reloadWanted, for the log; "" an administrator
    /// ghost_delay: made with standby paths only, it is not ready for other
    /// software until an active path comes or the delay ends.
    bool ghostWait{false};
    mpath::sys::EventLoop::SourcePtr ghostTimer;
    /// The last pass (Counters::plans) that acted on it rather than waiting
    /// for a running operation: what it asked for is under way from then.
    unsigned actedPlan{0};
    std::string lastError; ///< why the last create, reload or remove failed, "" after a success
    /// A create or reload failed: the pass that tries it again, and how long
    /// the next failure waits (doubling up to a bound, reset by a success).
    mpath::sys::EventLoop::SourcePtr failedRetryTimer;
    std::chrono::milliseconds failedRetryDelay{0};

    /// no_path_retry N: I/O queues for N checker intervals after the last
    /// path fails, then fails.
    mpath::sys::EventLoop::SourcePtr retryTimer;
    bool queueingDisabled{false}; ///< fail_if_no_path sent after the count ran out
    bool hadUsablePath{true};
    /// The no_path_retry the running countdown (or the queueing it
    /// disabled) follows; a different value restarts, cancels or starts
    /// it. Empty while a path is usable.
    std::optional<mpath::config::NoPathRetry> outageRetry;
    /// Its last path went while it was open: device-mapper removes it at
    /// its last close. Kept meanwhile, with its countdown: it exists.
    bool deferredRemoval{false};
    /// flush_on_last_del: when its last path is removed, queued I/O fails
    /// at once rather than as no_path_retry says.
    bool flushOnLastDel{false};
    /// deferred_remove: a map still open when its last path goes is
    /// removed at its last close (yes) or kept until a pass finds it
    /// closed (no).
    bool deferRemove{true};
    /// Its last path went while it was open, under deferred_remove no:
    /// kept, without paths, with its countdown; a later pass of its WWID
    /// (a path event, a reconfigure) removes it if it is closed by then.
    bool keptOpen{false};
    /// The transport timeouts last handed to its paths, and the paths
    /// (Reconciler::applyTimeouts): a pass that changes neither writes none.
    std::string timeoutsApplied;

    /// Parked on the uevent of its last change.
    bool parked() const { return static_cast<bool>(udevCookie); }
    /// Nothing runs, waits or is wanted for it: what was asked is done.
    bool idle() const { return !busy && !dirty && !parked(); }

    /// failback N seconds
    mpath::sys::EventLoop::SourcePtr failbackTimer;

    MapStats stats;
    /// Ends a running no_path_retry countdown's share of stats.queued.
    void countdownEnded(std::chrono::steady_clock::time_point now) {
        if (stats.queueingSince == std::chrono::steady_clock::time_point{})
            return;
        stats.queued += now - stats.queueingSince;
        stats.queueingSince = {};
    }
};

/// Everything the daemon knows, owned by its loop.
struct State {
    std::map<std::string, PathRecord> paths; ///< by kernel name
    /// The kernel names of the paths with each WWID (PathRecord::path.wwid),
    /// kept by PathTracker: a map's paths without going over every path.
    std::map<std::string, std::set<std::string>> pathsByWwid;
    std::map<std::string, MapRecord> maps; ///< by WWID
    /// WWIDs whose map an administrator removed: not made again until one
    /// of their paths changes or the configuration is read again.
    std::set<std::string> removedByAdmin;
    /// WWIDs whose map the daemon is removing: their remove events are
    /// its own.
    std::set<std::string> removing;
    /// The next PathRecord::generation.
    uint64_t nextGeneration{1};

    /// Calls \a fn(name, record) for each path with device number \a devt:
    /// among the paths planned into map \a wwid (looked up by name), and
    /// among every path only when none of those has it. A map's own paths
    /// are found without going over the others.
    template <typename F>
    void forEachPathWithDevt(const std::string &wwid, dev_t devt, F fn) {
        bool found = false;
        if (auto m = maps.find(wwid); m != maps.end() && m->second.planned)
            for (const auto &g : m->second.planned->map.groups)
                for (const auto &p : g.paths)
                    if (auto it = paths.find(p.kernelName);
                        it != paths.end() && it->second.path.devt == devt) {
                        found = true;
                        fn(it->first, it->second);
                    }
        if (found)
            return;
        for (auto &[name, rec] : paths)
            if (rec.path.devt == devt)
                fn(name, rec);
    }
};

} // namespace mpathd
