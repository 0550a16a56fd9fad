#pragma once

#include "mpath/udev.h"

#include <deque>

namespace mpath {

/// An in-memory Udev for tests: a device list the test fills, and events
/// the test injects. Its monitor descriptor is an eventfd that polls
/// readable while injected events wait, so event loops can be driven
/// for real.
class FakeUdev final : public Udev {
public:
    FakeUdev();
    ~FakeUdev() override;
    FakeUdev(const FakeUdev &) = delete;
    FakeUdev &operator=(const FakeUdev &) = delete;

    /// Adds or replaces (by syspath) a device without an event.
    void addDevice(UdevDevice device);

    /// Queues \p event and applies it to the device list: "remove" drops
    /// the device, other actions add or replace it. Events are queued
    /// even before startMonitor(), as the kernel queues them in the socket.
    void inject(UdevDevice event);

    [[nodiscard]] int properties(const std::string &kernelName,
                                 UdevPropertyMap &out) const override;
    [[nodiscard]] int enumerate(const std::string &subsystem, const std::string &devtype,
                                std::vector<UdevDevice> &out) override;
    [[nodiscard]] int startMonitor(const std::vector<std::string> &subsystems) override;
    int monitorFd() const override;
    [[nodiscard]] int receive(UdevDevice &out) override;

private:
    bool wanted(const UdevDevice &d) const;

    std::vector<UdevDevice> devices_;
    std::deque<UdevDevice> events_;
    std::vector<std::string> subsystems_;
    bool monitoring_{false};
    int eventFd_{-1};
    uint64_t seqnum_{0};
};

} // namespace mpath
