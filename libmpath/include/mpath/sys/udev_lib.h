#pragma once

#include "mpath/discovery/udev.h"

#include <memory>

namespace mpath::sys {

/// discovery::Udev over libudev. properties() reads the udev database of a
/// block device, so it also serves discovery as its UdevProperties.
class UdevLib final : public discovery::Udev {
public:
    /// A libudev context. \return it, or ENOMEM when libudev cannot set one
    ///         up
    static Result<std::unique_ptr<UdevLib>> create();
    ~UdevLib() override;
    UdevLib(const UdevLib &) = delete;
    UdevLib &operator=(const UdevLib &) = delete;

    Result<discovery::UdevPropertyMap> properties(const std::string &kernelName) const override;
    Result<std::vector<discovery::UdevDevice>> enumerate(const std::string &subsystem,
                                                         const std::string &devtype) override;
    Result<void> startMonitor(const std::vector<std::string> &subsystems) override;
    int monitorFd() const override;
    Result<discovery::UdevDevice> receive() override;

private:
    struct Handles;
    explicit UdevLib(std::unique_ptr<Handles> h);
    std::unique_ptr<Handles> h_;
};

} // namespace mpath::sys
