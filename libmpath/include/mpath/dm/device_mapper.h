#pragma once

#include "mpath/error.h"

#include <cstdint>
#include <string>
#include <sys/types.h>
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
};

} // namespace mpath::dm
