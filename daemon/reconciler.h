#pragma once

#include "state.h"

#include <chrono>
#include <functional>
#include <mpath/dm/device_mapper.h>
#include <mpath/policy/planner.h>
#include <mpath/sys/event_loop.h>
#include <set>
#include <string>
#include <vector>

namespace mpathd {

class Daemon;
struct LiveMap;

/// Plans the maps the paths should form (policy::plan, the same function
/// `mpathctl plan` uses), compares them with what device-mapper has, and
/// makes the difference: create a missing map, reload one whose table
/// differs, rename one whose name changed, remove one whose last path
/// went. A map whose table is already right is left alone, so a restarted
/// daemon changes nothing. Events that arrive together are planned once.
class Reconciler {
public:
    explicit Reconciler(Daemon &daemon) : daemon_(daemon) {}

    /// Something changed: plan every map again once events stop arriving
    /// for the coalescing delay (or the priorities asked for are in).
    void schedule();
    /// The paths of \a wwid changed (one came, went, or was ranked again):
    /// the same, but the pass plans only the WWIDs named so, unless
    /// something asked for every map meanwhile. An empty \a wwid plans
    /// every map.
    void schedule(const std::string &wwid);

    /// Plan now.
    void run();
    /// Every map's paths get their transport timeouts again at their next
    /// pass (a new configuration).
    void forgetTimeouts();

    /// The state files' first read is done: a pass that waited for it runs.
    void filesLoaded();
    /// A map's uevent carried DM_COOKIE \a cookie (udev's rules ran for
    /// it): a map parked on it goes on.
    void udevEvent(const std::string &wwid, uint32_t cookie);

    /// How long a change waits for its uevent before going on without it.
    static constexpr std::chrono::seconds kUdevWait{30};

    /// The state files' lane has nothing left to do.
    void stateFilesIdle() { checkSettled(); }

    /// Reads the map back after a change and restores what a new table
    /// forgets: paths known to be down or failed by an administrator are
    /// failed again. \a table: the one the change loaded ("0 <size>
    /// <target> <params>"), so that its status is all there is to read.
    void refresh(const std::string &wwid, std::function<void()> then = {},
                 const std::string &table = {});

    /// Reads map \a wwid's table and status again for what changes with no
    /// event the daemon sees (the group I/O goes to, fail counts): at most
    /// once per polling interval (\a now: a device-mapper event, at once),
    /// one read at a time, never during a change.
    void readStatus(const std::string &wwid, bool now = false);

    /// Reads the maps device-mapper has (uuid mpath-<wwid>, target
    /// multipath or lmpath) into the state, then calls \a done.
    void adopt(std::function<void()> done);

    /// Nothing scheduled and no device-mapper call running.
    bool settled() const {
        return !timer_ && inFlight_ == 0 && !waitingForPriorities_ && !adopting_ &&
               !waitingForFiles_ && !filesBusy() && !anyParked();
    }

    /// Whether the tables of \a live and \a planned are the same, apart
    /// from what changes at runtime (the group I/O goes to).
    static bool sameTable(const LiveMap &live, const mpath::policy::PlannedMap &planned);

private:
    /// A write of the wwids or bindings file is under way.
    bool filesBusy() const;
    /// A map waits for the uevent of its last change. Releases the cookie
    /// of a map forgotten while parked once the maps parked before it are
    /// done.
    bool anyParked() const;
    /// \a rec's change went to the kernel with \a cookie: it waits for its
    /// uevent.
    void park(MapRecord &rec, mpath::dm::UdevCookie cookie);
    /// \a rec waits no more (\a force: its uevent did not come).
    void unpark(MapRecord &rec, bool force);
    void pass();
    void act(MapRecord &rec);
    /// Hands the map's paths their transport timeouts when they or the
    /// paths changed since the last time.
    void applyTimeouts(MapRecord &rec);
    void create(MapRecord &rec, const std::vector<mpath::dm::TargetLine> &targets);
    /// ghost_delay: whether \a rec's paths are standby ones only.
    bool onlyGhosts(const MapRecord &rec) const;
    /// At a create: starts the wait when ghost_delay asks for it.
    /// \return whether the map is made not ready
    bool startGhostWait(MapRecord &rec);
    /// At a reload: whether the wait goes on (no active path yet); ends it
    /// otherwise. \return whether the map stays not ready
    bool stillGhostWait(MapRecord &rec);
    void reload(MapRecord &rec, const std::vector<mpath::dm::TargetLine> &targets,
                const std::string &why);
    void removeMap(MapRecord &rec);
    /// A create or reload of \a wwid's map answered \a r: the map's record
    /// when it succeeded and the map is still known, else null (a failure
    /// is logged and tried again later, and the operation finished).
    /// A create of \a wwid's map as \a name failed with \a error (it exists,
    /// or no answer in time): adopts the map if it is there with our uuid.
    void adoptAfterCreate(const std::string &wwid, const std::string &name,
                          const mpath::Error &error);
    MapRecord *tableLoaded(const std::string &wwid, const mpath::Result<void> &r);
    /// A create, reload or remove of \a rec failed: logs it and plans again later.
    void failed(MapRecord &rec, const mpath::Error &error);
    void finish(const std::string &wwid);
    /// The kernel's view of each path in \a live, map \a wwid's table
    /// (active or failed), becomes the daemon's: a path failed before a
    /// restart is reinstated when its check says it is up.
    void takePathStates(const std::string &wwid, const mpath::model::Map &live);
    /// takePathStates(), then fail_path for each path the daemon holds
    /// failed (checker down, or failed by an administrator) that the
    /// kernel has active.
    void syncPathStates(const std::string &wwid, const std::string &name,
                        const mpath::model::Map &live);
    /// Lists \a wwid in the wwids file (a warning naming map \a name when
    /// the file cannot be changed).
    void recordWwid(const std::string &name, const std::string &wwid);
    void checkSettled();
    /// Records a new alias of \a rec's plan in the bindings file (off the
    /// loop), then creates the map.
    void bindThenCreate(MapRecord &rec);
    /// \a pm with the target of \a rec's live map, when it has one.
    void keepTarget(const MapRecord &rec, mpath::policy::PlannedMap &pm) const;
    std::vector<mpath::dm::TargetLine> desiredTargets(const MapRecord &rec) const;

    Daemon &daemon_;
    /// Arms timer_ for the next pass, sliding its window.
    void arm();

    mpath::sys::EventLoop::SourcePtr timer_;
    /// What the next pass plans: every map, or only these WWIDs.
    bool planAll_{true};
    std::set<std::string> toPlan_;
    /// When the events of the pass timer_ waits for began, and when it is due.
    mpath::sys::EventLoop::Clock::time_point windowStart_{};
    mpath::sys::EventLoop::Clock::time_point due_{};
    unsigned inFlight_{0};
    bool waitingForPriorities_{false};
    bool waitingForFiles_{false};   ///< the first read of the state files is under way
    bool adopting_{false};          ///< maps device-mapper has are being read
    bool planAfterAdoption_{false}; ///< something asked for a pass meanwhile
    mpath::sys::EventLoop::SourcePtr adoptRetry_;
    /// The maps parked, with their cookies: a map forgotten while parked
    /// (flushed, removed behind the daemon's back) has its cookie released
    /// from here.
    mutable std::map<std::string, mpath::dm::UdevCookie> parked_;
    /// The maps not made yet whose plans bind a new alias: the other maps'
    /// passes keep off it. Entries of maps made or forgotten since go when
    /// a pass meets them.
    std::set<std::string> newAliases_;
    std::chrono::steady_clock::time_point waitingSince_{};
};

} // namespace mpathd
