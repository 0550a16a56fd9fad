#include "mpath/testing/fake_udev.h"

#include <algorithm>
#include <cerrno>
#include <sys/eventfd.h>
#include <unistd.h>

namespace mpath::testing {

using discovery::UdevDevice;
using discovery::UdevPropertyMap;

FakeUdev::FakeUdev() : eventFd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

FakeUdev::~FakeUdev() {
    if (eventFd_ >= 0)
        ::close(eventFd_);
}

void FakeUdev::addDevice(UdevDevice device) {
    device.action.clear();
    device.seqnum = 0;
    auto it = std::find_if(devices_.begin(), devices_.end(),
                           [&](const UdevDevice &d) { return d.syspath == device.syspath; });
    if (it != devices_.end())
        *it = std::move(device);
    else
        devices_.push_back(std::move(device));
}

void FakeUdev::inject(UdevDevice event) {
    if (event.seqnum == 0)
        event.seqnum = ++seqnum_;
    if (event.action == "remove") {
        std::erase_if(devices_, [&](const UdevDevice &d) { return d.syspath == event.syspath; });
    } else {
        addDevice(event);
    }
    events_.push_back(std::move(event));
    uint64_t one = 1;
    (void)!::write(eventFd_, &one, sizeof(one));
}

void FakeUdev::lose(UdevDevice event) {
    if (event.action == "remove")
        std::erase_if(devices_, [&](const UdevDevice &d) { return d.syspath == event.syspath; });
    else
        addDevice(std::move(event));
    overflowed_ = true;
    uint64_t one = 1;
    (void)!::write(eventFd_, &one, sizeof(one));
}

Result<UdevPropertyMap> FakeUdev::properties(const std::string &kernelName) const {
    for (const auto &d : devices_)
        if (d.subsystem == "block" && d.sysname == kernelName)
            return d.properties;
    return Error{ENOENT, "udev: block device " + kernelName + " is not known"};
}

Result<std::vector<UdevDevice>> FakeUdev::enumerate(const std::string &subsystem,
                                                    const std::string &devtype) {
    std::vector<UdevDevice> out;
    for (const auto &d : devices_)
        if ((subsystem.empty() || d.subsystem == subsystem) &&
            (devtype.empty() || d.devtype == devtype))
            out.push_back(d);
    return out;
}

Result<void> FakeUdev::startMonitor(const std::vector<std::string> &subsystems) {
    if (eventFd_ < 0)
        return Error{EMFILE, "udev: no eventfd"};
    if (monitoring_)
        return Error{EALREADY, "udev: the monitor runs already"};
    subsystems_ = subsystems;
    monitoring_ = true;
    return ok();
}

int FakeUdev::monitorFd() const {
    return monitoring_ ? eventFd_ : -1;
}

bool FakeUdev::wanted(const UdevDevice &d) const {
    return subsystems_.empty() ||
           std::find(subsystems_.begin(), subsystems_.end(), d.subsystem) != subsystems_.end();
}

Result<UdevDevice> FakeUdev::receive() {
    if (!monitoring_)
        return Error{EBADF, "udev: the monitor is not started"};
    if (overflowed_) {
        overflowed_ = false;
        if (events_.empty()) {
            uint64_t v;
            (void)!::read(eventFd_, &v, sizeof(v));
        }
        return Error{ENOBUFS, "udev: receive: No buffer space available"};
    }
    while (!events_.empty() && !wanted(events_.front()))
        events_.pop_front();
    Result<UdevDevice> r = Error{EAGAIN, "udev: no event waits"};
    if (!events_.empty()) {
        r = std::move(events_.front());
        events_.pop_front();
    }
    if (events_.empty()) {
        uint64_t v;
        (void)!::read(eventFd_, &v, sizeof(v));
    }
    return r;
}

} // namespace mpath::testing
