#pragma once

#include "mpath/udev_properties.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace mpath {

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
/// UdevLib over libudev; tests use FakeUdev. Not thread-safe: one thread
/// (mpathd's event loop) owns an instance.
class Udev : public UdevProperties {
public:
    ~Udev() override = default;

    /// Lists the devices of \p subsystem ("block"), optionally only those
    /// of \p devtype ("disk"). \return 0 on success or a negative error code
    [[nodiscard]] virtual int enumerate(const std::string &subsystem, const std::string &devtype,
                                        std::vector<UdevDevice> &out) = 0;

    /// Starts receiving events of the given subsystems (all when empty).
    /// \return 0 on success or a negative error code
    [[nodiscard]] virtual int startMonitor(const std::vector<std::string> &subsystems) = 0;

    /// A descriptor that polls readable while events wait, -1 before
    /// startMonitor(). Owned by this object.
    virtual int monitorFd() const = 0;

    /// Takes the next waiting event without blocking.
    /// \return 0 with \p out filled, -EAGAIN when none waits, or another
    ///         negative error code
    [[nodiscard]] virtual int receive(UdevDevice &out) = 0;
};

} // namespace mpath
