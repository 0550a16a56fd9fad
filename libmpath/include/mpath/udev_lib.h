#pragma once

#include "mpath/udev.h"

#include <memory>

namespace mpath {

/// Udev over libudev. properties() reads the udev database of a block
/// device, so it also serves Discovery as its UdevProperties.
class UdevLib final : public Udev {
public:
    UdevLib();
    ~UdevLib() override;
    UdevLib(const UdevLib &) = delete;
    UdevLib &operator=(const UdevLib &) = delete;

    /// Whether libudev could be set up; every call fails with -ENOMEM
    /// when not.
    bool valid() const;

    [[nodiscard]] int properties(const std::string &kernelName,
                                 UdevPropertyMap &out) const override;
    [[nodiscard]] int enumerate(const std::string &subsystem, const std::string &devtype,
                                std::vector<UdevDevice> &out) override;
    [[nodiscard]] int startMonitor(const std::vector<std::string> &subsystems) override;
    int monitorFd() const override;
    [[nodiscard]] int receive(UdevDevice &out) override;

private:
    struct Handles;
    std::unique_ptr<Handles> h_;
};

} // namespace mpath
