#pragma once

#include "mpath/discovery/udev_properties.h"

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace mpath::discovery {

/// One device as udev describes it, from an enumeration or an event.
struct UdevDevice {
    std::string action;  ///< "add", "change", "remove", ...; "" when enumerated
    std::string syspath; ///< "/sys/devices/.../block/sdb"
    std::string sysname; ///< "sdb"
    std::string subsystem;
    std::string devtype; ///< "disk", "partition", ...
    std::string devnode; ///< "/dev/sdb", "" when none
    dev_t devnum{0};
    uint64_t seqnum{0}; ///< event sequence number, 0 when enumerated
    UdevPropertyMap properties;

    bool operator==(const UdevDevice &) const = default;
};

/// The udev operations the multipath stack needs: enumerate devices, look
/// up a block device's properties, and receive events. The real one is
/// sys::UdevLib over libudev; tests use testing::FakeUdev. Not
/// thread-safe: one thread (mpathd's event loop) owns an instance.
class Udev : public UdevProperties {
public:
    ~Udev() override = default;

    /// The devices of \a subsystem ("block"), only those of \a devtype
    /// ("disk") unless it is empty.
    virtual Result<std::vector<UdevDevice>> enumerate(const std::string &subsystem,
                                                      const std::string &devtype) = 0;

    /// Starts receiving events of the given subsystems (all when empty).
    virtual Result<void> startMonitor(const std::vector<std::string> &subsystems) = 0;

    /// A descriptor that polls readable while events wait, -1 before
    /// startMonitor(). Owned by this object.
    virtual int monitorFd() const = 0;

    /// The next waiting event, without blocking.
    /// \return the event, EAGAIN when none waits, or another error
    virtual Result<UdevDevice> receive() = 0;
};

} // namespace mpath::discovery
