#include "mpath/sys/udev_lib.h"
#include "mpath/testing/fake_udev.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/sysmacros.h>

using mpath::discovery::UdevDevice;
using mpath::sys::UdevLib;
using mpath::testing::FakeUdev;

namespace {

UdevDevice disk(const std::string &name, unsigned minor) {
    UdevDevice d;
    d.syspath = "/sys/devices/virtual/block/" + name;
    d.sysname = name;
    d.subsystem = "block";
    d.devtype = "disk";
    d.devnode = "/dev/" + name;
    d.devnum = makedev(8, minor);
    d.properties = {{"ID_SERIAL", "3600a" + name}};
    return d;
}

bool readable(int fd) {
    struct pollfd p {
        fd, POLLIN, 0
    };
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

} // namespace

TEST(FakeUdev, EnumeratesDevicesBySubsystemAndDevtype) {
    FakeUdev u;
    u.addDevice(disk("sda", 0));
    UdevDevice part = disk("sda1", 1);
    part.devtype = "partition";
    u.addDevice(part);
    auto disks = u.enumerate("block", "disk");
    ASSERT_TRUE(disks) << disks.error().message;
    ASSERT_EQ(disks->size(), 1u);
    EXPECT_EQ((*disks)[0].sysname, "sda");
    auto all = u.enumerate("block", "");
    ASSERT_TRUE(all) << all.error().message;
    EXPECT_EQ(all->size(), 2u);
}

TEST(FakeUdev, AnswersPropertiesOfABlockDeviceByKernelName) {
    FakeUdev u;
    u.addDevice(disk("sdb", 16));
    auto p = u.properties("sdb");
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_EQ(p->at("ID_SERIAL"), "3600asdb");
    EXPECT_EQ(u.properties("sdz").code(), ENOENT);
}

TEST(FakeUdev, MonitorFdIsReadableExactlyWhileEventsWait) {
    FakeUdev u;
    EXPECT_EQ(u.monitorFd(), -1);
    auto started = u.startMonitor({"block"});
    ASSERT_TRUE(started) << started.error().message;
    ASSERT_GE(u.monitorFd(), 0);
    EXPECT_FALSE(readable(u.monitorFd()));
    UdevDevice add = disk("sdc", 32);
    add.action = "add";
    u.inject(add);
    UdevDevice change = add;
    change.action = "change";
    u.inject(change);
    EXPECT_TRUE(readable(u.monitorFd()));
    auto first = u.receive();
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(first->action, "add");
    EXPECT_TRUE(readable(u.monitorFd()));
    auto second = u.receive();
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(second->action, "change");
    EXPECT_GT(second->seqnum, 0u);
    EXPECT_FALSE(readable(u.monitorFd()));
    EXPECT_EQ(u.receive().code(), EAGAIN);
}

TEST(FakeUdev, RemoveEventsDropTheDeviceFromEnumeration) {
    FakeUdev u;
    u.addDevice(disk("sdd", 48));
    UdevDevice rm = disk("sdd", 48);
    rm.action = "remove";
    u.inject(rm);
    auto out = u.enumerate("block", "");
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_TRUE(out->empty());
}

TEST(FakeUdev, MonitorDeliversOnlyTheSubsystemsAskedFor) {
    FakeUdev u;
    auto started = u.startMonitor({"block"});
    ASSERT_TRUE(started) << started.error().message;
    UdevDevice net;
    net.action = "add";
    net.subsystem = "net";
    net.syspath = "/sys/class/net/eth9";
    u.inject(net);
    EXPECT_EQ(u.receive().code(), EAGAIN);
    EXPECT_FALSE(readable(u.monitorFd()));
}

TEST(UdevLib, EnumeratesTheBlockDevicesSysfsShows) {
    auto u = UdevLib::create();
    ASSERT_TRUE(u) << u.error().message;
    auto out = (*u)->enumerate("block", "");
    ASSERT_TRUE(out) << out.error().message;
    size_t inSysfs = 0;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/sys/class/block", ec);
         !ec && it != std::filesystem::directory_iterator(); ++it)
        ++inSysfs;
    if (inSysfs == 0)
        GTEST_SKIP() << "no block devices in /sys/class/block on this machine";
    EXPECT_EQ(out->size(), inSysfs);
    for (const auto &d : *out) {
        EXPECT_EQ(d.subsystem, "block");
        EXPECT_FALSE(d.sysname.empty());
        EXPECT_NE(d.devnum, 0u) << d.syspath;
    }
}

TEST(UdevLib, ReceiveBeforeStartingTheMonitorIsAnError) {
    auto u = UdevLib::create();
    ASSERT_TRUE(u) << u.error().message;
    EXPECT_EQ((*u)->monitorFd(), -1);
    EXPECT_EQ((*u)->receive().code(), EBADF);
}
