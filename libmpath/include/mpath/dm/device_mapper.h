#pragma once

#include "mpath/error.h"

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

/// Device-mapper: multipath tables and statuses as text, and the
/// operations on maps.
namespace mpath::dm {

/// One target line of a device-mapper table or status.
struct TargetLine {
    uint64_t start{0};
    uint64_t length{0};
    std::string type;   ///< "multipath", "lmpath", "linear", ...
    std::string params; ///< constructor parameters, or the status text

    bool operator==(const TargetLine &) const = default;
};

/// What device-mapper says about one device.
struct Device {
    std::string name;
    std::string uuid;
    dev_t devt{0};
    bool suspended{false};
    unsigned openCount{0};
    uint32_t eventNr{0};
    std::string targetType; ///< type of the first target, "" for an empty table

    bool operator==(const Device &) const = default;
};

/// The udev work of an operation that did not wait for it: the cookie udev
/// completes once its rules ran for the operation's uevent, which names it
/// (DM_COOKIE). It must be released (DeviceMapper::releaseCookie()).
struct UdevCookie {
    uint32_t value{0}; ///< 0: no udev work to wait for

    /// What a uevent's DM_COOKIE carries of it: the low 16 bits (the high
    /// ones are the udev flags).
    uint16_t base() const { return static_cast<uint16_t>(value & 0xffff); }
    explicit operator bool() const { return value != 0; }
    bool operator==(const UdevCookie &) const = default;
};

/// What the uevent of a create or a reload tells udev's rules about the
/// map, in the flags multipath-tools sets (DM_SUBSYSTEM_UDEV_FLAG0/1).
struct MapUevent {
    /// A reload whose table's size differs from the live one's: the
    /// uevent goes without the reload flag (FLAG0), so udev probes the map
    /// again. A create is always probed.
    bool resized{false};
    /// skip_kpartx: kpartx's rules make no partition mappings (FLAG1).
    bool skipKpartx{false};
    /// ghost_delay: the map is not ready for other software yet, whatever
    /// its paths say (FLAG2, multipath-tools' MPATH_UDEV_NO_PATHS_FLAG).
    bool notReady{false};

    bool operator==(const MapUevent &) const = default;
};

/// The device-mapper operations the multipath stack needs. The real one
/// talks to the kernel through libdevmapper (sys::DeviceMapperLib); tests
/// use testing::FakeDeviceMapper, and one contract suite holds both to the
/// same behaviour. Every call is synchronous and may block on the kernel:
/// mpathd runs them on its Executor. Errors name the device and the
/// operation ("reload mpatha: Invalid argument").
class DeviceMapper {
public:
    virtual ~DeviceMapper() = default;

    /// The devices whose table is a multipath or lmpath target.
    virtual Result<std::vector<Device>> listMultipath() = 0;

    /// Device \a name. \return it, ENXIO when it does not exist, or another
    ///         error
    virtual Result<Device> info(const std::string &name) = 0;

    /// The live table of \a name (STATUSTYPE_TABLE).
    virtual Result<std::vector<TargetLine>> table(const std::string &name) = 0;

    /// The status of \a name (STATUSTYPE_INFO).
    virtual Result<std::vector<TargetLine>> status(const std::string &name) = 0;

    /// Creates and resumes device \a name with \a uuid and \a targets, and
    /// waits for udev to finish with it. EEXIST when a device of that name
    /// or uuid exists.
    virtual Result<void> create(const std::string &name, const std::string &uuid,
                                const std::vector<TargetLine> &targets) = 0;

    /// Replaces the table of \a name: load into the inactive slot, suspend
    /// with noflush (queued I/O stays queued), resume. On a failed load the
    /// live table is untouched and the device is not suspended.
    virtual Result<void> reload(const std::string &name,
                                const std::vector<TargetLine> &targets) = 0;

    /// Sends a target message ("fail_path 8:16") to sector \a sector of
    /// \a name. \return the target's answer, "" when it gave none
    virtual Result<std::string> message(const std::string &name, uint64_t sector,
                                        const std::string &text) = 0;

    /// Removes \a name. With \a deferred, an open device is removed on its
    /// last close instead of failing with EBUSY.
    virtual Result<void> remove(const std::string &name, bool deferred = false) = 0;

    /// Renames \a name to \a newName, waiting for udev.
    virtual Result<void> rename(const std::string &name, const std::string &newName) = 0;

    /// Suspends \a name without flushing: I/O waits (queued I/O stays
    /// queued) until resume(). A suspended map refuses messages (EBUSY).
    virtual Result<void> suspend(const std::string &name) = 0;
    /// Resumes \a name, waiting for udev.
    virtual Result<void> resume(const std::string &name) = 0;

    // Operations that do not wait for udev. A daemon that waits for udev
    // in a worker holds the worker for as long as udev is busy; these
    // hand back the cookie instead, and the caller releases it once the
    // map's uevent carrying it arrived (or it gave up waiting).

    /// create() without waiting for udev.
    virtual Result<UdevCookie> createAsync(const std::string &name, const std::string &uuid,
                                           const std::vector<TargetLine> &targets,
                                           MapUevent uevent) {
        (void)uevent;
        if (auto r = create(name, uuid, targets); !r)
            return r.error();
        return UdevCookie{};
    }
    /// reload() without waiting for udev, and without its own suspend: the
    /// resume swaps the tables with noflush (queued I/O stays queued).
    virtual Result<UdevCookie>
    reloadAsync(const std::string &name, const std::vector<TargetLine> &targets, MapUevent uevent) {
        (void)uevent;
        if (auto r = reload(name, targets); !r)
            return r.error();
        return UdevCookie{};
    }
    /// Releases \a cookie: waits for udev to complete it (at once when its
    /// uevent arrived), or, with \a force (udev never came), completes it
    /// first.
    virtual Result<void> releaseCookie(UdevCookie cookie, bool force) {
        (void)cookie;
        (void)force;
        return Result<void>();
    }

    /// The device and its status (STATUSTYPE_INFO) in one call.
    virtual Result<std::pair<Device, std::vector<TargetLine>>>
    deviceStatus(const std::string &name) {
        auto d = info(name);
        if (!d)
            return d.error();
        auto s = status(name);
        if (!s)
            return s.error();
        return std::make_pair(std::move(*d), std::move(*s));
    }
};

} // namespace mpath::dm
