#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace mpath {

/// One target line of a device-mapper table or status.
struct DmTargetLine {
    uint64_t start{0};
    uint64_t length{0};
    std::string type;   ///< "multipath", "lmpath", "linear", ...
    std::string params; ///< constructor parameters, or the status text

    bool operator==(const DmTargetLine &) const = default;
};

/// What device-mapper says about one device.
struct DmDevice {
    std::string name;
    std::string uuid;
    dev_t devt{0};
    bool suspended{false};
    unsigned openCount{0};
    uint32_t eventNr{0};
    std::string targetType; ///< type of the first target, "" for an empty table

    bool operator==(const DmDevice &) const = default;
};

/// The device-mapper operations the multipath stack needs. The real one
/// talks to the kernel through libdevmapper (DeviceMapperLib); tests use
/// FakeDeviceMapper. Every call is synchronous and may block on the
/// kernel: mpathd runs them off its event loop.
class DeviceMapper {
public:
    virtual ~DeviceMapper() = default;

    /// Lists the devices whose table is a multipath or lmpath target.
    /// \return 0 on success or a negative error code
    [[nodiscard]] virtual int listMultipath(std::vector<DmDevice> &out) = 0;

    /// Describes device \p name. \return 0, -ENXIO when it does not exist,
    /// or another negative error code
    [[nodiscard]] virtual int info(const std::string &name, DmDevice &out) = 0;

    /// Reads the live table of \p name (STATUSTYPE_TABLE).
    [[nodiscard]] virtual int table(const std::string &name, std::vector<DmTargetLine> &out) = 0;

    /// Reads the status of \p name (STATUSTYPE_INFO).
    [[nodiscard]] virtual int status(const std::string &name, std::vector<DmTargetLine> &out) = 0;

    /// Creates and resumes device \p name with \p uuid and \p targets, and
    /// waits for udev to finish with it. \return 0, -EEXIST when a device
    /// of that name or uuid exists, or another negative error code
    [[nodiscard]] virtual int create(const std::string &name, const std::string &uuid,
                                     const std::vector<DmTargetLine> &targets) = 0;

    /// Replaces the table of \p name: load into the inactive slot, suspend
    /// with noflush (queued I/O stays queued), resume. On a failed load the
    /// live table is untouched and the device is not suspended.
    [[nodiscard]] virtual int reload(const std::string &name,
                                     const std::vector<DmTargetLine> &targets) = 0;

    /// Sends a target message ("fail_path 8:16") to sector \p sector of
    /// \p name. \param reply receives the target's answer, if any; may be null
    [[nodiscard]] virtual int message(const std::string &name, uint64_t sector,
                                      const std::string &text, std::string *reply = nullptr) = 0;

    /// Removes \p name. With \p deferred, an open device is removed on its
    /// last close instead of failing with -EBUSY.
    [[nodiscard]] virtual int remove(const std::string &name, bool deferred = false) = 0;

    /// Renames \p name to \p newName, waiting for udev.
    [[nodiscard]] virtual int rename(const std::string &name, const std::string &newName) = 0;
};

} // namespace mpath
