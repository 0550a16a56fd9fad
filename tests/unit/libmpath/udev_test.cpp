#include "mpath/fake_udev.h"
#include "mpath/udev_lib.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/sysmacros.h>

using namespace mpath;

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
    std::vector<UdevDevice> out;
    ASSERT_EQ(u.enumerate("block", "disk", out), 0);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].sysname, "sda");
    ASSERT_EQ(u.enumerate("block", "", out), 0);
    EXPECT_EQ(out.size(), 2u);
}

TEST(FakeUdev, AnswersPropertiesOfABlockDeviceByKernelName) {
    FakeUdev u;
    u.addDevice(disk("sdb", 16));
    UdevPropertyMap p;
    ASSERT_EQ(u.properties("sdb", p), 0);
    EXPECT_EQ(p.at("ID_SERIAL"), "3600asdb");
    EXPECT_EQ(u.properties("sdz", p), -ENOENT);
}

TEST(FakeUdev, MonitorFdIsReadableExactlyWhileEventsWait) {
    FakeUdev u;
    EXPECT_EQ(u.monitorFd(), -1);
    ASSERT_EQ(u.startMonitor({"block"}), 0);
    ASSERT_GE(u.monitorFd(), 0);
    EXPECT_FALSE(readable(u.monitorFd()));
    UdevDevice add = disk("sdc", 32);
    add.action = "add";
    u.inject(add);
    UdevDevice change = add;
    change.action = "change";
    u.inject(change);
    EXPECT_TRUE(readable(u.monitorFd()));
    UdevDevice got;
    ASSERT_EQ(u.receive(got), 0);
    EXPECT_EQ(got.action, "add");
    EXPECT_TRUE(readable(u.monitorFd()));
    ASSERT_EQ(u.receive(got), 0);
    EXPECT_EQ(got.action, "change");
    EXPECT_GT(got.seqnum, 0u);
    EXPECT_FALSE(readable(u.monitorFd()));
    EXPECT_EQ(u.receive(got), -EAGAIN);
}

TEST(FakeUdev, RemoveEventsDropTheDeviceFromEnumeration) {
    FakeUdev u;
    u.addDevice(disk("sdd", 48));
    UdevDevice rm = disk("sdd", 48);
    rm.action = "remove";
    u.inject(rm);
    std::vector<UdevDevice> out;
    ASSERT_EQ(u.enumerate("block", "", out), 0);
    EXPECT_TRUE(out.empty());
}

TEST(FakeUdev, MonitorDeliversOnlyTheSubsystemsAskedFor) {
    FakeUdev u;
    ASSERT_EQ(u.startMonitor({"block"}), 0);
    UdevDevice net;
    net.action = "add";
    net.subsystem = "net";
    net.syspath = "/sys/class/net/eth9";
    u.inject(net);
    UdevDevice got;
    EXPECT_EQ(u.receive(got), -EAGAIN);
    EXPECT_FALSE(readable(u.monitorFd()));
}

TEST(UdevLib, EnumeratesTheBlockDevicesSysfsShows) {
    UdevLib u;
    ASSERT_TRUE(u.valid());
    std::vector<UdevDevice> out;
    ASSERT_EQ(u.enumerate("block", "", out), 0);
    size_t inSysfs = 0;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/sys/class/block", ec);
         !ec && it != std::filesystem::directory_iterator(); ++it)
        ++inSysfs;
    if (inSysfs == 0)
        GTEST_SKIP() << "no block devices in /sys/class/block on this machine";
    EXPECT_EQ(out.size(), inSysfs);
    for (const auto &d : out) {
        EXPECT_EQ(d.subsystem, "block");
        EXPECT_FALSE(d.sysname.empty());
        EXPECT_NE(d.devnum, 0u) << d.syspath;
    }
}

TEST(UdevLib, ReceiveBeforeStartingTheMonitorIsAnError) {
    UdevLib u;
    UdevDevice d;
    EXPECT_EQ(u.monitorFd(), -1);
    EXPECT_EQ(u.receive(d), -EBADF);
}
