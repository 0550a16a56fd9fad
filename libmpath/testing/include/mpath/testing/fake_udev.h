#pragma once

#include "mpath/discovery/udev.h"

#include <deque>

namespace mpath::testing {

/// An in-memory Udev for tests: a device list the test fills, and events
/// the test injects. Its monitor descriptor is an eventfd that polls
/// readable while injected events wait, so event loops can be driven
/// for real.
class FakeUdev final : public discovery::Udev {
public:
    FakeUdev();
    ~FakeUdev() override;
    FakeUdev(const FakeUdev &) = delete;
    FakeUdev &operator=(const FakeUdev &) = delete;

    /// Adds or replaces (by syspath) a device without an event.
    void addDevice(discovery::UdevDevice device);

    /// Queues \p event and applies it to the device list: "remove" drops
    /// the device, other actions add or replace it. Events are queued
    /// even before startMonitor(), as the kernel queues them in the socket.
    void inject(discovery::UdevDevice event);

    /// Applies \p event to the device list like inject(), but the event is
    /// lost, as when the monitor's receive buffer is full: the next
    /// receive() fails with ENOBUFS.
    void lose(discovery::UdevDevice event);

    Result<discovery::UdevPropertyMap> properties(const std::string &kernelName) const override;
    Result<std::vector<discovery::UdevDevice>> enumerate(const std::string &subsystem,
                                                         const std::string &devtype) override;
    Result<void> startMonitor(const std::vector<std::string> &subsystems) override;
    int monitorFd() const override;
    Result<discovery::UdevDevice> receive() override;

private:
    bool wanted(const discovery::UdevDevice &d) const;

    std::vector<discovery::UdevDevice> devices_;
    std::deque<discovery::UdevDevice> events_;
    std::vector<std::string> subsystems_;
    bool monitoring_{false};
    bool overflowed_{false};
    int eventFd_{-1};
    uint64_t seqnum_{0};
};

} // namespace mpath::testing
