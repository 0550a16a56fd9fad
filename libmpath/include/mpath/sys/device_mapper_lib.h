#pragma once

#include "mpath/dm/device_mapper.h"

#include <functional>
#include <string>

/// System adapters: the only code that calls libdevmapper, libudev and
/// device ioctls, the executor for blocking work, and the event loop.
namespace mpath::sys {

/// dm::DeviceMapper over libdevmapper's ioctls. Errors name the operation,
/// the device and the kernel's errno ("reload mpatha: Invalid argument").
///
/// Calls for different devices may come from several threads at once
/// (mpathd's executor workers): the process-wide state libdevmapper keeps
/// unguarded is kept out of reach (see dm_task.h), and udev alone makes
/// the device nodes, as with multipath-tools. Calls for one device must
/// not overlap (mpathd keys them by map). Proven on a real kernel in the
/// VM lab by the contract suite that also holds the fake to it.
class DeviceMapperLib final : public dm::DeviceMapper {
public:
    DeviceMapperLib();
    ~DeviceMapperLib() override;
    DeviceMapperLib(const DeviceMapperLib &) = delete;
    DeviceMapperLib &operator=(const DeviceMapperLib &) = delete;

    Result<std::vector<dm::Device>> listMultipath() override;
    Result<dm::Device> info(const std::string &name) override;
    Result<std::vector<dm::TargetLine>> table(const std::string &name) override;
    Result<std::vector<dm::TargetLine>> status(const std::string &name) override;
    Result<void> create(const std::string &name, const std::string &uuid,
                        const std::vector<dm::TargetLine> &targets) override;
    Result<void> reload(const std::string &name,
                        const std::vector<dm::TargetLine> &targets) override;
    Result<std::string> message(const std::string &name, uint64_t sector,
                                const std::string &text) override;
    Result<void> remove(const std::string &name, bool deferred = false) override;
    Result<void> rename(const std::string &name, const std::string &newName) override;
    Result<void> suspend(const std::string &name) override;
    Result<void> resume(const std::string &name) override;
    /// CREATE, LOAD, RESUME: three ioctls, and no INFO before (a taken name
    /// or uuid is the CREATE's EBUSY, told apart only then).
    Result<dm::UdevCookie> createAsync(const std::string &name, const std::string &uuid,
                                       const std::vector<dm::TargetLine> &targets,
                                       dm::MapUevent uevent) override;
    /// LOAD, RESUME: two ioctls.
    Result<dm::UdevCookie> reloadAsync(const std::string &name,
                                       const std::vector<dm::TargetLine> &targets,
                                       dm::MapUevent uevent) override;
    Result<void> releaseCookie(dm::UdevCookie cookie, bool force) override;
    /// One STATUS ioctl: its dm_info is the device's.
    Result<std::pair<dm::Device, std::vector<dm::TargetLine>>>
    deviceStatus(const std::string &name) override;

    /// Whether device-mapper can be reached (/dev/mapper/control opens).
    static bool available();

    /// Where libdevmapper's own messages go, for the whole process (its log
    /// is process-wide): \a handler gets each message of level error (3)
    /// or more severe (lower). A program sets it once in main(); without
    /// it libdevmapper prints to stderr.
    static void setLogHandler(std::function<void(int level, const std::string &message)> handler);
};

} // namespace mpath::sys
