#pragma once

#include <chrono>
#include <cstdint>
#include <mpath/checkers/checker.h>
#include <mpath/policy/planner.h>
#include <mpath/sys/event_loop.h>
#include <set>
#include <string>

namespace mpathd {

class Daemon;
struct PathRecord;

/// Checks every path of every map on a timer: polling_interval, doubling
/// up to max_polling_interval while the path stays up, back to
/// polling_interval on any change or while it is down. A check that
/// gives no answer within the interval (or checker_timeout, if shorter)
/// means the path's I/O hangs: it is failed like a path that answers
/// "down", so I/O moves on within about two intervals. Results become
/// fail_path and reinstate_path messages, never reloads.
class CheckerScheduler {
public:
    explicit CheckerScheduler(Daemon &daemon) : daemon_(daemon) {}

    /// Paths joined or left maps: start or stop their checks.
    void sync();
    /// The same for the paths planned into map \a wwid alone (it was made
    /// or changed): what a map's own operation needs, without going over
    /// every path.
    void sync(const std::string &wwid);
    /// The same for the paths named in \a kernelNames.
    void sync(const std::set<std::string> &kernelNames);

    /// Checks \a kernelName at once (a PATH_FAILED event, a path back).
    void checkSoon(const std::string &kernelName);

    /// device-mapper failed or reinstated a path of map \a wwid
    /// (DM_ACTION events).
    void dmPathEvent(const std::string &wwid, const std::string &devt, bool failed);

    /// The loop's deadline for one check and the kernel's command timeout.
    std::chrono::milliseconds checkDeadline() const;
    std::chrono::milliseconds commandTimeout() const;

private:
    /// Starts, keeps or stops the check of \a rec (path \a name).
    void syncPath(const std::string &name, PathRecord &rec);
    void arm(const std::string &kernelName, std::chrono::milliseconds after);
    void check(const std::string &kernelName);
    void onResult(const std::string &kernelName, uint64_t generation,
                  mpath::checkers::CheckOutcome outcome);
    /// How long after its last reinstate a path the kernel keeps failing
    /// waits for the next one.
    std::chrono::milliseconds reinstateHold(const PathRecord &rec) const;
    /// recheck_wwid is set for \a rec's device, and it can be read again.
    bool recheckWwidApplies(const PathRecord &rec) const;
    /// san_path_err_*: whether \a rec, found up by a check, stays failed
    /// (too many failures, not yet up for the recovery time). \a wasDown:
    /// it was down or failed before this check. Says so in the log.
    bool heldAsShaky(const std::string &kernelName, PathRecord &rec, const std::string &mapName,
                     bool wasDown);
    /// marginal_path_*: the same question where I/O error sampling is in
    /// force for \a rec's map (\a s); starts a sample when one is due.
    bool heldAsMarginal(const std::string &kernelName, PathRecord &rec, const std::string &mapName,
                        const mpath::policy::MarginalPathSettings &s);
    /// device-mapper failed path \a kernelName (an I/O error, or a check
    /// that found it down): counted for marginal_path_double_failed_time.
    void countFailure(const std::string &kernelName, PathRecord &rec, const std::string &mapName);
    /// The settings of \a rec's map as planned; none when it has no plan.
    const mpath::policy::PlannedMap *plannedMapOf(const PathRecord &rec) const;
    /// Whether another path of \a rec's map can take I/O: device-mapper
    /// has it active and its last check did not find it down.
    bool othersUsable(const std::string &kernelName, const PathRecord &rec) const;
    /// marginal_pathgroups: \a rec goes into a group of its own, after the
    /// others, or back among them (its map is regrouped).
    void setMarginal(PathRecord &rec, bool marginal);
    /// Sends the next read of \a kernelName's I/O sample, or ends it.
    void sampleNext(const std::string &kernelName);
    void sampleRead(const std::string &devnode, std::chrono::milliseconds timeout,
                    std::function<void(mpath::Result<void>)> done);
    /// The sample of \a kernelName is over: held on, or reinstated.
    void sampleEnded(const std::string &kernelName, PathRecord &rec);
    /// Reads the WWID of path \a kernelName, up again, from the device;
    /// the same: reinstated at once; another: wwidChanged().
    void recheckWwid(const std::string &kernelName, PathRecord &rec, const std::string &mapName);
    /// The device now has WWID \a fresh: it stays failed, leaves its map,
    /// and the kernel and udev are asked to describe it again.
    void wwidChanged(const std::string &kernelName, PathRecord &rec, const std::string &fresh);
    /// What the daemon takes the kernel's state of path \a kernelName to be.
    void setDmState(const std::string &kernelName, mpath::model::DmPathState s);
    /// Says once that a SCSI path has no sg node: its checks then run as
    /// jobs that hold a worker while the path hangs.
    void warnIfNoSgNode(const PathRecord &rec, const std::string &kernelName);

    /// Counts a check that could not start (every worker of the path I/O
    /// lane busy past its timeout); says how many, once a second at most.
    void noteNotStarted();

    Daemon &daemon_;
    bool warnedNoSg_{false};
    unsigned notStarted_{0};
    mpath::sys::EventLoop::SourcePtr notStartedReport_;
    uint64_t nextSampleId_{1};
};

} // namespace mpathd
