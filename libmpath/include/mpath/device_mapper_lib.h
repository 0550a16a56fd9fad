#pragma once

#include "mpath/device_mapper.h"

#include <string>

namespace mpath {

/// DeviceMapper over libdevmapper's ioctls.
///
/// libdevmapper is not thread-safe: use one instance from one thread at a
/// time. Its log messages are not printed; the text of the last error is
/// kept for lastError(). Proven on a real kernel in the VM lab
/// (tests/vm/libmpath-dm-adapter.sh).
class DeviceMapperLib final : public DeviceMapper {
public:
    DeviceMapperLib();
    ~DeviceMapperLib() override;
    DeviceMapperLib(const DeviceMapperLib &) = delete;
    DeviceMapperLib &operator=(const DeviceMapperLib &) = delete;

    [[nodiscard]] int listMultipath(std::vector<DmDevice> &out) override;
    [[nodiscard]] int info(const std::string &name, DmDevice &out) override;
    [[nodiscard]] int table(const std::string &name, std::vector<DmTargetLine> &out) override;
    [[nodiscard]] int status(const std::string &name, std::vector<DmTargetLine> &out) override;
    [[nodiscard]] int create(const std::string &name, const std::string &uuid,
                             const std::vector<DmTargetLine> &targets) override;
    [[nodiscard]] int reload(const std::string &name,
                             const std::vector<DmTargetLine> &targets) override;
    [[nodiscard]] int message(const std::string &name, uint64_t sector, const std::string &text,
                              std::string *reply = nullptr) override;
    [[nodiscard]] int remove(const std::string &name, bool deferred = false) override;
    [[nodiscard]] int rename(const std::string &name, const std::string &newName) override;

    /// libdevmapper's message for the last failed call of this thread, ""
    /// when it gave none.
    static std::string lastError();

    /// Whether device-mapper can be reached (/dev/mapper/control opens).
    static bool available();

private:
    int readTargets(int type, const std::string &name, std::vector<DmTargetLine> &out);
    int suspendResume(const std::string &name, bool suspend);
};

} // namespace mpath
