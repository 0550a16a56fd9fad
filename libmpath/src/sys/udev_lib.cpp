#include "mpath/sys/udev_lib.h"

#include <cerrno>
#include <libudev.h>

namespace mpath::sys {

using discovery::UdevDevice;
using discovery::UdevPropertyMap;

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

UdevLib::UdevLib(std::unique_ptr<Handles> h) : h_(std::move(h)) {}

UdevLib::~UdevLib() = default;

Result<std::unique_ptr<UdevLib>> UdevLib::create() {
    auto h = std::make_unique<Handles>();
    h->udev.reset(udev_new());
    if (!h->udev)
        return Error::fromErrno(errno ? errno : ENOMEM, "cannot set up libudev");
    return std::unique_ptr<UdevLib>(new UdevLib(std::move(h)));
}

Result<UdevPropertyMap> UdevLib::properties(const std::string &kernelName) const {
    errno = 0;
    DevicePtr d(
        udev_device_new_from_subsystem_sysname(h_->udev.get(), "block", kernelName.c_str()));
    if (!d)
        return Error::fromErrno(errno > 0 ? errno : ENOENT, "udev: block device " + kernelName);
    // libudev always reports the kernel's own keys; without a database
    // entry there is nothing udev added, which is what callers ask about.
    if (!udev_device_get_is_initialized(d.get()))
        return Error{ENOENT, "udev: block device " + kernelName + " is not processed yet"};
    return describe(d.get()).properties;
}

Result<std::vector<UdevDevice>> UdevLib::enumerate(const std::string &subsystem,
                                                   const std::string &devtype) {
    std::unique_ptr<struct udev_enumerate, EnumerateUnref> e(udev_enumerate_new(h_->udev.get()));
    if (!e)
        return Error{ENOMEM, "udev: cannot enumerate"};
    if (!subsystem.empty()) {
        if (int r = udev_enumerate_add_match_subsystem(e.get(), subsystem.c_str()); r < 0)
            return Error::fromErrno(-r, "udev: match subsystem " + subsystem);
    }
    if (!devtype.empty()) {
        if (int r = udev_enumerate_add_match_property(e.get(), "DEVTYPE", devtype.c_str()); r < 0)
            return Error::fromErrno(-r, "udev: match devtype " + devtype);
    }
    if (int r = udev_enumerate_scan_devices(e.get()); r < 0)
        return Error::fromErrno(-r, "udev: scan devices");
    std::vector<UdevDevice> found;
    struct udev_list_entry *entry;
    udev_list_entry_foreach(entry, udev_enumerate_get_list_entry(e.get())) {
        DevicePtr d(udev_device_new_from_syspath(h_->udev.get(), udev_list_entry_get_name(entry)));
        if (d) // gone since the scan: skip it
            found.push_back(describe(d.get()));
    }
    return found;
}

Result<void> UdevLib::startMonitor(const std::vector<std::string> &subsystems) {
    if (h_->monitor)
        return Error{EALREADY, "udev: the monitor runs already"};
    std::unique_ptr<struct udev_monitor, MonitorUnref> m(
        udev_monitor_new_from_netlink(h_->udev.get(), "udev"));
    if (!m)
        return Error::fromErrno(errno > 0 ? errno : ENOMEM, "udev: monitor");
    for (const auto &s : subsystems)
        if (int r = udev_monitor_filter_add_match_subsystem_devtype(m.get(), s.c_str(), nullptr);
            r < 0)
            return Error::fromErrno(-r, "udev: monitor subsystem " + s);
    // A host scan sends thousands of events at once: room for them, as
    // udevd has (raising it past the system's limit needs CAP_NET_ADMIN,
    // and without it the default stays; a lost event is then seen as
    // ENOBUFS by receive()).
    (void)udev_monitor_set_receive_buffer_size(m.get(), 128 * 1024 * 1024);
    if (int r = udev_monitor_enable_receiving(m.get()); r < 0)
        return Error::fromErrno(-r, "udev: monitor");
    h_->monitor = std::move(m);
    return ok();
}

int UdevLib::monitorFd() const {
    return h_->monitor ? udev_monitor_get_fd(h_->monitor.get()) : -1;
}

Result<UdevDevice> UdevLib::receive() {
    if (!h_->monitor)
        return Error{EBADF, "udev: the monitor is not started"};
    errno = 0;
    DevicePtr d(udev_monitor_receive_device(h_->monitor.get()));
    if (!d) {
        if (errno > 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return Error::fromErrno(errno, "udev: receive");
        return Error{EAGAIN, "udev: no event waits"};
    }
    return describe(d.get());
}

} // namespace mpath::sys
