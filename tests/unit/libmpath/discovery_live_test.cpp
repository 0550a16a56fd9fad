// Discovery and prioritizers on the machine the tests run on, with real
// sysfs and device I/O. They skip unless the VM lab's fixture scenario
// (tests/vm/libmpath-fixtures.sh) names what to use through the
// environment: MPATH_LIVE_UDEV_DIR (udev property files of every block
// device), MPATH_LIVE_SCSI_DEVICE (a scsi_debug disk), MPATH_LIVE_READ_DEVICE
// (a disk that serves reads), MPATH_LIVE_NVME_DEVICE.
#include "mpath/discovery.h"
#include "mpath/prioritizer.h"
#include "mpath/sysfs_udev_properties.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <gtest/gtest.h>
#include <iostream>
#include <memory>

using namespace mpath;
using namespace std::chrono_literals;

namespace {

const char *env(const char *name) {
    const char *v = std::getenv(name);
    return v && *v ? v : nullptr;
}

} // namespace

TEST(LiveSystem, DiscoveryOfSysGivesTheWwidsUdevGave) {
    const char *udevDir = env("MPATH_LIVE_UDEV_DIR");
    if (!udevDir)
        GTEST_SKIP() << "MPATH_LIVE_UDEV_DIR is not set (the VM lab sets it)";
    SysfsUdevProperties udev(udevDir);
    auto paths = Discovery(Sysfs("/sys")).discoverAll(udev);
    DiscoveryOptions fallback;
    fallback.uidAttribute = [](const Path &) { return std::string("MPATH_TEST_NO_SUCH_PROPERTY"); };
    Discovery fromSysfs(Sysfs("/sys"), fallback);
    int compared = 0;
    for (const Path &p : paths) {
        UdevPropertyMap props;
        if (udev.properties(p.kernelName, props) < 0)
            continue;
        std::string key = Wwid::defaultUidAttribute(p.kernelName);
        if (key.empty() || props[key].empty())
            continue;
        EXPECT_EQ(p.wwid, props[key]) << p.kernelName;
        Path viaSysfs;
        ASSERT_EQ(fromSysfs.discover(p.kernelName, udev, viaSysfs), 0) << p.kernelName;
        EXPECT_EQ(viaSysfs.wwid, props[key]) << p.kernelName;
        std::cout << "live: " << p.kernelName << " " << p.wwid << " " << p.protocol << " tpg "
                  << p.ids.targetPortGroup << "\n";
        ++compared;
    }
    EXPECT_GT(compared, 0);
}

TEST(LiveSystem, AluaPrioritizerTalksToTheDeviceWithinItsBound) {
    const char *dev = env("MPATH_LIVE_SCSI_DEVICE");
    if (!dev)
        GTEST_SKIP() << "MPATH_LIVE_SCSI_DEVICE is not set (the VM lab sets it)";
    Path p;
    SysfsUdevProperties none("/nonexistent");
    ASSERT_EQ(Discovery(Sysfs("/sys")).discover(dev, none, p), 0);
    PrioritizerContext c = PrioritizerContext::system();
    c.timeout = 5s;
    auto rtpg = std::make_shared<std::atomic<int>>(1);
    auto real = c.scsiCommand;
    c.scsiCommand = [real, rtpg](const std::string &name, std::span<const uint8_t> cdb,
                                 std::vector<uint8_t> &data, std::chrono::milliseconds t) {
        int r = real(name, cdb, data, t);
        *rtpg = r;
        return r;
    };
    auto alua = Prioritizer::create("alua", "", c);
    ASSERT_NE(alua, nullptr);
    auto start = std::chrono::steady_clock::now();
    int prio = alua->priority(p);
    auto took = std::chrono::steady_clock::now() - start;
    std::cout << "live: alua " << dev << " tpg " << p.ids.targetPortGroup << " rtpg " << *rtpg
              << " priority " << prio << "\n";
    EXPECT_LT(took, 6s);
    ASSERT_GE(p.tpgs, 0) << "discovery read no TPGS from " << dev << "'s inquiry attribute";
    if (p.tpgs == 0) {
        // No ALUA: the prioritizer says so without sending anything.
        EXPECT_EQ(prio, -EOPNOTSUPP);
        EXPECT_EQ(*rtpg, 1) << "REPORT TARGET PORT GROUPS was sent to a device without ALUA";
        return;
    }
    EXPECT_NE(prio, -EOPNOTSUPP) << dev << " reports TPGS " << p.tpgs;
    if (p.ids.targetPortGroup < 0)
        GTEST_SKIP() << dev << " reports no target port group";
    ASSERT_EQ(*rtpg, 0) << "REPORT TARGET PORT GROUPS failed";
    EXPECT_GE(prio, 0);
}

TEST(LiveSystem, PathLatencyTimesRealReads) {
    // Not the scsi_debug disk: one of its ports is ALUA standby and fails reads.
    const char *dev = env("MPATH_LIVE_READ_DEVICE");
    if (!dev)
        GTEST_SKIP() << "MPATH_LIVE_READ_DEVICE is not set (the VM lab sets it)";
    PrioritizerContext c = PrioritizerContext::system();
    auto reads = std::make_shared<std::atomic<int>>(0);
    auto real = c.readLatency;
    c.readLatency = [real, reads](const std::string &name, std::chrono::nanoseconds &latency) {
        int r = real(name, latency);
        if (r == 0)
            ++*reads;
        return r;
    };
    auto latency = Prioritizer::create("path_latency", "io_num=10", c);
    ASSERT_NE(latency, nullptr);
    Path p;
    p.kernelName = dev;
    int prio = latency->priority(p);
    std::cout << "live: path_latency " << dev << " priority " << prio << "\n";
    EXPECT_EQ(reads->load(), 10);
    EXPECT_GE(prio, 1);
    EXPECT_LE(prio, 8);
}

TEST(LiveSystem, AnaPrioritizerAnswersWithinItsBound) {
    const char *dev = env("MPATH_LIVE_NVME_DEVICE");
    if (!dev)
        GTEST_SKIP() << "MPATH_LIVE_NVME_DEVICE is not set (the VM lab sets it)";
    PrioritizerContext c = PrioritizerContext::system();
    c.timeout = 3s;
    auto ana = Prioritizer::create("ana", "", c);
    ASSERT_NE(ana, nullptr);
    Path p;
    p.kernelName = dev;
    auto start = std::chrono::steady_clock::now();
    int prio = ana->priority(p);
    std::cout << "live: ana " << dev << " priority " << prio << "\n";
    EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
    EXPECT_NE(prio, -ETIMEDOUT);
}
