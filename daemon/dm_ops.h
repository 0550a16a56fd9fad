#pragma once

#include <chrono>
#include <functional>
#include <mpath/dm/device_mapper.h>
#include <mpath/dm/status.h>
#include <mpath/error.h>
#include <mpath/model/map.h>
#include <mpath/policy/transport_timeouts.h>
#include <string>
#include <vector>

namespace mpathd {

class Daemon;
struct Counters;

/// A map as device-mapper has it.
struct LiveMap {
    mpath::dm::Device device;
    std::string params;    ///< the table's target parameters
    mpath::model::Map map; ///< the table with the status applied
    mpath::dm::MapStatus status;
};

/// What is written to a map's paths before its table is loaded: the map
/// takes the smallest of its paths' limits when the table is loaded.
struct PathLimits {
    unsigned maxSectorsKb{0};       ///< max_sectors_kb; 0 leaves the paths alone
    std::vector<std::string> paths; ///< kernel names: "sdb"
};

/// The daemon's device-mapper calls: each runs on the executor, keyed by the
/// map's WWID so that one map's calls run in order and different maps' side
/// by side, with a deadline on the loop; the answer comes back on the loop.
/// A call that hangs (a suspend waiting for I/O on a path that does not
/// answer) holds up only its own map.
class DmOps {
public:
    explicit DmOps(Daemon &daemon) : daemon_(daemon) {}

    void list(std::function<void(mpath::Result<std::vector<mpath::dm::Device>>)> done);
    /// Table and status of map \a name in one job.
    void read(const std::string &wwid, const std::string &name,
              std::function<void(mpath::Result<LiveMap>)> done);
    /// Table and status after a change of this daemon's: \a table is the
    /// one it loaded, so one STATUS ioctl does.
    void readBack(const std::string &wwid, const std::string &name, const std::string &table,
                  std::function<void(mpath::Result<LiveMap>)> done);
    /// Creates map \a name without waiting for udev: \a done gets the
    /// cookie of its uevent, for releaseCookie().
    void create(const std::string &wwid, const std::string &name, const std::string &uuid,
                const std::vector<mpath::dm::TargetLine> &targets, mpath::dm::MapUevent uevent,
                PathLimits limits, std::function<void(mpath::Result<mpath::dm::UdevCookie>)> done);
    /// Reloads map \a name (load and resume) without waiting for udev.
    void reload(const std::string &wwid, const std::string &name,
                const std::vector<mpath::dm::TargetLine> &targets, mpath::dm::MapUevent uevent,
                PathLimits limits, std::function<void(mpath::Result<mpath::dm::UdevCookie>)> done);
    /// Releases the udev cookie of map \a wwid's last change (\a force:
    /// its uevent never came).
    void releaseCookie(const std::string &wwid, mpath::dm::UdevCookie cookie, bool force);
    void rename(const std::string &wwid, const std::string &name, const std::string &newName,
                std::function<void(mpath::Result<void>)> done);
    /// Removes \a name; done gets true when it is gone, false when it is
    /// open and a deferred removal waits for its last close.
    void remove(const std::string &wwid, const std::string &name, bool deferred,
                std::function<void(mpath::Result<bool>)> done);
    /// Suspends (without flushing) or resumes \a name.
    void suspend(const std::string &wwid, const std::string &name, bool suspend,
                 std::function<void(mpath::Result<void>)> done);
    /// Gives \a paths of map \a name the transport timeouts \a timeouts
    /// (fast_io_fail_tmo, dev_loss_tmo, eh_deadline), writing only the
    /// attributes whose value differs; each change and refusal is logged on
    /// the loop. \a done gets true when a write was refused for now
    /// (EBUSY: a blocked port, a host in recovery) and is worth another try.
    void applyTimeouts(const std::string &wwid, const std::string &name,
                       const mpath::policy::TransportTimeouts &timeouts,
                       std::vector<mpath::model::Path> paths, std::function<void(bool)> done);
    /// A target message ("fail_path 8:16"); logged when it fails.
    void message(const std::string &wwid, const std::string &name, const std::string &text,
                 std::function<void(mpath::Result<void>)> done = {});

private:
    /// Runs \a op in the device-mapper lane, keyed by map; \a counter (if
    /// any) counts it once it ran.
    template <typename T>
    void run(const std::string &wwid, std::chrono::milliseconds deadline,
             std::function<mpath::Result<T>(mpath::dm::DeviceMapper &)> op,
             std::function<void(mpath::Result<T>)> done, unsigned Counters::*counter = nullptr);
    /// Writes \a limits to map \a name's paths under \a sysfsRoot (in the
    /// lane, before a load). It touches nothing of the daemon's: a job still
    /// queued when the daemon goes may run after DmOps has gone. The log it
    /// writes to is thread-safe.
    static void applyLimits(const std::string &sysfsRoot, const std::string &name,
                            const PathLimits &limits);

    Daemon &daemon_;
};

} // namespace mpathd
