#pragma once

#include <string>
#include <vector>

namespace mpathd {

class Daemon;

/// What a map does when its paths come and go, per its settings:
/// - no_path_retry N: once no path is usable, I/O queues for N checker
///   intervals, then the map fails it (fail_if_no_path); queueing comes
///   back (queue_if_no_path) with the first usable path. queue and fail
///   need nothing from the daemon: the table says so.
/// - failback: when a path comes back and a group of higher priority than
///   the one I/O goes to is usable again, switch to it: at once
///   (immediate), only when it is the first path of its group to come
///   back (followover), after N seconds, or never (manual).
class MapPolicies {
public:
    explicit MapPolicies(Daemon &daemon) : daemon_(daemon) {}

    /// The usable paths of map \a wwid, or its no_path_retry, may have
    /// changed: an outage's countdown starts, restarts with a new value,
    /// or ends (a value of queue or fail, a path back).
    void update(const std::string &wwid);

    /// The configuration (or an administrator's setting) changed: update()
    /// for every map.
    void settingsChanged();

    /// no_path_retry ran out for map \a wwid: fail_if_no_path, sent again
    /// while the kernel refuses it.
    void failQueuedIo(const std::string &wwid);

    /// Path \a kernelName of map \a wwid was reinstated.
    void pathRestored(const std::string &wwid, const std::string &kernelName);

private:
    /// Turns queueing on or off in the kernel (a message, no reload).
    void setQueueing(const std::string &wwid, bool queue);
    /// Switches map \a wwid to its best usable group when I/O goes
    /// elsewhere; \a followover: only if \a group had no usable path before.
    void failback(const std::string &wwid);
    unsigned usablePaths(const std::string &wwid) const;

    Daemon &daemon_;
};

/// \a features (a table's, without the count) as the kernel prints them
/// with queueing turned on or off.
void setQueueingFeature(std::vector<std::string> &features, bool queue);

} // namespace mpathd
