#include "mpath/udev_lib.h"

#include <cerrno>
#include <libudev.h>

namespace mpath {

namespace {

struct UdevUnref {
    void operator()(struct udev *u) const { udev_unref(u); }
};
struct DeviceUnref {
    void operator()(struct udev_device *d) const { udev_device_unref(d); }
};
struct EnumerateUnref {
    void operator()(struct udev_enumerate *e) const { udev_enumerate_unref(e); }
};
struct MonitorUnref {
    void operator()(struct udev_monitor *m) const { udev_monitor_unref(m); }
};
using DevicePtr = std::unique_ptr<struct udev_device, DeviceUnref>;

std::string str(const char *s) {
    return s ? s : "";
}

UdevDevice describe(struct udev_device *d) {
    UdevDevice out;
    out.action = str(udev_device_get_action(d));
    out.syspath = str(udev_device_get_syspath(d));
    out.sysname = str(udev_device_get_sysname(d));
    out.subsystem = str(udev_device_get_subsystem(d));
    out.devtype = str(udev_device_get_devtype(d));
    out.devnode = str(udev_device_get_devnode(d));
    out.devnum = udev_device_get_devnum(d);
    out.seqnum = udev_device_get_seqnum(d);
    struct udev_list_entry *e;
    udev_list_entry_foreach(e, udev_device_get_properties_list_entry(d)) {
        out.properties[str(udev_list_entry_get_name(e))] = str(udev_list_entry_get_value(e));
    }
    return out;
}

} // namespace

struct UdevLib::Handles {
    std::unique_ptr<struct udev, UdevUnref> udev;
    std::unique_ptr<struct udev_monitor, MonitorUnref> monitor;
};

UdevLib::UdevLib() : h_(std::make_unique<Handles>()) {
    h_->udev.reset(udev_new());
}

UdevLib::~UdevLib() = default;

bool UdevLib::valid() const {
    return h_->udev != nullptr;
}

int UdevLib::properties(const std::string &kernelName, UdevPropertyMap &out) const {
    if (!valid())
        return -ENOMEM;
    errno = 0;
    DevicePtr d(
        udev_device_new_from_subsystem_sysname(h_->udev.get(), "block", kernelName.c_str()));
    if (!d)
        return errno > 0 ? -errno : -ENOENT;
    UdevPropertyMap props = describe(d.get()).properties;
    // libudev always reports the kernel's own keys; without a database
    // entry there is nothing udev added, which is what callers ask about.
    if (!udev_device_get_is_initialized(d.get()))
        return -ENOENT;
    out = std::move(props);
    return 0;
}

int UdevLib::enumerate(const std::string &subsystem, const std::string &devtype,
                       std::vector<UdevDevice> &out) {
    if (!valid())
        return -ENOMEM;
    std::unique_ptr<struct udev_enumerate, EnumerateUnref> e(udev_enumerate_new(h_->udev.get()));
    if (!e)
        return -ENOMEM;
    if (!subsystem.empty()) {
        if (int r = udev_enumerate_add_match_subsystem(e.get(), subsystem.c_str()); r < 0)
            return r;
    }
    if (!devtype.empty()) {
        if (int r = udev_enumerate_add_match_property(e.get(), "DEVTYPE", devtype.c_str()); r < 0)
            return r;
    }
    if (int r = udev_enumerate_scan_devices(e.get()); r < 0)
        return r;
    std::vector<UdevDevice> found;
    struct udev_list_entry *entry;
    udev_list_entry_foreach(entry, udev_enumerate_get_list_entry(e.get())) {
        DevicePtr d(udev_device_new_from_syspath(h_->udev.get(), udev_list_entry_get_name(entry)));
        if (d) // gone since the scan: skip it
            found.push_back(describe(d.get()));
    }
    out = std::move(found);
    return 0;
}

int UdevLib::startMonitor(const std::vector<std::string> &subsystems) {
    if (!valid())
        return -ENOMEM;
    if (h_->monitor)
        return -EALREADY;
    std::unique_ptr<struct udev_monitor, MonitorUnref> m(
        udev_monitor_new_from_netlink(h_->udev.get(), "udev"));
    if (!m)
        return errno > 0 ? -errno : -ENOMEM;
    for (const auto &s : subsystems)
        if (int r = udev_monitor_filter_add_match_subsystem_devtype(m.get(), s.c_str(), nullptr);
            r < 0)
            return r;
    if (int r = udev_monitor_enable_receiving(m.get()); r < 0)
        return r;
    h_->monitor = std::move(m);
    return 0;
}

int UdevLib::monitorFd() const {
    return h_->monitor ? udev_monitor_get_fd(h_->monitor.get()) : -1;
}

int UdevLib::receive(UdevDevice &out) {
    if (!h_->monitor)
        return -EBADF;
    errno = 0;
    DevicePtr d(udev_monitor_receive_device(h_->monitor.get()));
    if (!d)
        return errno > 0 && errno != EAGAIN && errno != EWOULDBLOCK ? -errno : -EAGAIN;
    out = describe(d.get());
    return 0;
}

} // namespace mpath
