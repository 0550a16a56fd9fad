#pragma once

#include <chrono>
#include <mpath/discovery/udev.h>
#include <mpath/policy/blacklist.h>
#include <mpath/policy/planner.h>
#include <optional>
#include <set>
#include <string>

namespace mpathd {

class Daemon;

/// The block devices that may be paths: described from sysfs and udev when
/// they appear or change, forgotten when they go, and ranked by their
/// prioritizer (on the executor when that needs device I/O).
class PathTracker {
public:
    explicit PathTracker(Daemon &daemon) : daemon_(daemon) {}

    /// The configuration changed: blacklist and prioritizers follow it.
    void configure();

    /// Whether a udev device is one this tracker describes: a whole disk,
    /// not a device-mapper, loop, ram, zram or md device.
    static bool candidate(const mpath::discovery::UdevDevice &device);

    /// A block device appeared, changed, or was found at start: describe
    /// it again and rank it again. \return true when it is a path now
    bool update(const mpath::discovery::UdevDevice &device);

    /// The device went away.
    void remove(const std::string &kernelName);

    /// Reads the path's port state again and ranks it again (a reinstated
    /// path, a configuration read again, every check of a path that is
    /// up: ALUA and ANA states change with no uevent a daemon sees). A new
    /// rank plans the maps again; only a changed grouping reloads one.
    void reprioritize(const std::string &kernelName);

    /// Whether the first priority of some path (of \a wwids, if given) is
    /// still being computed (plans wait for those; re-ranks of ranked paths
    /// hold nothing up).
    bool prioritiesPending(const std::set<std::string> *wwids = nullptr) const;

    /// The paths as a plan's input (the caller adds the state files), their
    /// groups ordered by priority whatever their checkers say; with
    /// \a wwids, only the paths of those WWIDs.
    mpath::policy::PlanInput planInput(const std::set<std::string> *wwids = nullptr) const;

    /// Why \a kernelName is in no map whatever the plan, nullopt when it may
    /// be multipathed.
    std::optional<std::string> excluded(const std::string &kernelName) const;

private:
    /// \a kernelName no longer has \a wwid (State::pathsByWwid).
    void unindex(const std::string &kernelName, const std::string &wwid);
    /// \a always: plan again when the answer comes even if the rank is the
    /// same (a new path waits for its first rank).
    void prioritize(const std::string &kernelName, bool always = true);

    Daemon &daemon_;
    std::optional<mpath::policy::BlacklistFilter> filter_;
    /// How long a priority may take: a device that does not answer ranks -1
    /// and the map is planned without waiting longer.
    std::chrono::milliseconds prioDeadline_{std::chrono::seconds(5)};
};

} // namespace mpathd
