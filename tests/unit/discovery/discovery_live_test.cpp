// Discovery and prioritizers on the machine the tests run on, with real
// sysfs and device I/O. They skip unless the VM lab's fixture scenario
// (tests/vm/libmpath-fixtures.sh) names what to use through the
// environment: MPATH_LIVE_UDEV_DIR (udev property files of every block
// device), MPATH_LIVE_SCSI_DEVICE (a scsi_debug disk), MPATH_LIVE_READ_DEVICE
// (a disk that serves reads), MPATH_LIVE_NVME_DEVICE.
#include "mpath/discovery/discovery.h"
#include "mpath/discovery/udev_property_files.h"
#include "mpath/prio/prioritizer.h"
#include "mpath/sys/executor.h"
#include "mpath/testing/manual_loop.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <gtest/gtest.h>
#include <iostream>
#include <memory>
#include <optional>

using namespace mpath::discovery;
using mpath::Error;
using mpath::Result;
using mpath::model::Path;
using mpath::prio::Prioritizer;
using namespace std::chrono_literals;

namespace {

const char *env(const char *name) {
    const char *v = std::getenv(name);
    return v && *v ? v : nullptr;
}

/// Computes \a path's priority as mpathd does: on an executor, bounded by
/// \a deadline (real time here: the loop's clock is moved on only when the
/// deadline has passed without an answer).
Result<int> priorityWithin(const Prioritizer &prioritizer, const Path &path,
                           std::chrono::milliseconds deadline) {
    mpath::testing::ManualLoop loop;
    mpath::sys::Executor executor(loop);
    std::optional<Result<int>> r;
    mpath::prio::startPriority(executor, prioritizer, path, deadline,
                               [&](Result<int> x) { r = std::move(x); });
    if (!loop.runUntil([&] { return r.has_value(); }, deadline))
        loop.advance(deadline);
    return r ? *r : Result<int>(Error{EIO, "no answer, not even a timeout"});
}

/// \a kernelName as discovery describes it from /sys (without udev data).
Result<Path> discovered(const std::string &kernelName) {
    UdevPropertyFiles none("/nonexistent");
    auto found = Discovery(Sysfs("/sys")).discover(kernelName, none);
    if (!found)
        return found.error();
    return found->path;
}

} // namespace

TEST(LiveSystem, DiscoveryOfSysGivesTheWwidsUdevGave) {
    const char *udevDir = env("MPATH_LIVE_UDEV_DIR");
    if (!udevDir)
        GTEST_SKIP() << "MPATH_LIVE_UDEV_DIR is not set (the VM lab sets it)";
    UdevPropertyFiles udev(udevDir);
    auto paths = Discovery(Sysfs("/sys")).discoverAll(udev);
    Options fallback;
    fallback.uidAttribute = [](const Path &) { return std::string("MPATH_TEST_NO_SUCH_PROPERTY"); };
    Discovery fromSysfs(Sysfs("/sys"), fallback);
    int compared = 0;
    for (const Path &p : paths) {
        auto found = udev.properties(p.kernelName);
        if (!found)
            continue;
        UdevPropertyMap &props = *found;
        std::string key = wwid::defaultUidAttribute(p.kernelName);
        if (key.empty() || props[key].empty())
            continue;
        EXPECT_EQ(p.wwid, props[key]) << p.kernelName;
        auto viaSysfs = fromSysfs.discover(p.kernelName, udev);
        ASSERT_TRUE(viaSysfs) << p.kernelName << ": " << viaSysfs.error().message;
        EXPECT_EQ(viaSysfs->path.wwid, props[key]) << p.kernelName;
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
    auto found = discovered(dev);
    ASSERT_TRUE(found) << found.error().message;
    const Path &p = *found;
    auto c = mpath::prio::Context::system();
    c.commandTimeout = 5s;
    // The code of the REPORT TARGET PORT GROUPS command: 0 or an errno
    // value; -1 while none was sent.
    auto rtpg = std::make_shared<std::atomic<int>>(-1);
    auto real = c.scsiCommand;
    c.scsiCommand = [real, rtpg](const std::string &name, std::span<const uint8_t> cdb,
                                 size_t length, std::chrono::milliseconds t) {
        auto r = real(name, cdb, length, t);
        *rtpg = r.code();
        return r;
    };
    auto alua = Prioritizer::create("alua", "", c);
    ASSERT_TRUE(alua) << alua.error().message;
    auto start = std::chrono::steady_clock::now();
    auto prio = priorityWithin(**alua, p, 5s);
    auto took = std::chrono::steady_clock::now() - start;
    std::cout << "live: alua " << dev << " tpg " << p.ids.targetPortGroup << " rtpg " << *rtpg
              << " priority " << (prio ? std::to_string(*prio) : prio.error().message) << "\n";
    EXPECT_LT(took, 6s);
    ASSERT_GE(p.tpgs, 0) << "discovery read no TPGS from " << dev << "'s inquiry attribute";
    if (p.tpgs == 0) {
        // No ALUA: the prioritizer says so without sending anything.
        EXPECT_EQ(prio.code(), EOPNOTSUPP);
        EXPECT_EQ(*rtpg, -1) << "REPORT TARGET PORT GROUPS was sent to a device without ALUA";
        return;
    }
    EXPECT_NE(prio.code(), EOPNOTSUPP) << dev << " reports TPGS " << p.tpgs;
    if (p.ids.targetPortGroup < 0)
        GTEST_SKIP() << dev << " reports no target port group";
    ASSERT_EQ(*rtpg, 0) << "REPORT TARGET PORT GROUPS failed";
    ASSERT_TRUE(prio) << prio.error().message;
    EXPECT_GE(*prio, 0);
}

TEST(LiveSystem, PathLatencyTimesRealReads) {
    // Not the scsi_debug disk: one of its ports is ALUA standby and fails reads.
    const char *dev = env("MPATH_LIVE_READ_DEVICE");
    if (!dev)
        GTEST_SKIP() << "MPATH_LIVE_READ_DEVICE is not set (the VM lab sets it)";
    auto c = mpath::prio::Context::system();
    auto reads = std::make_shared<std::atomic<int>>(0);
    auto real = c.readLatency;
    c.readLatency = [real, reads](const std::string &name) {
        auto r = real(name);
        if (r)
            ++*reads;
        return r;
    };
    auto latency = Prioritizer::create("path_latency", "io_num=10", c);
    ASSERT_TRUE(latency) << latency.error().message;
    Path p;
    p.kernelName = dev;
    auto prio = priorityWithin(**latency, p, 5s);
    std::cout << "live: path_latency " << dev << " priority "
              << (prio ? std::to_string(*prio) : prio.error().message) << "\n";
    EXPECT_EQ(reads->load(), 10);
    ASSERT_TRUE(prio) << prio.error().message;
    EXPECT_GE(*prio, 1);
    EXPECT_LE(*prio, 8);
}

TEST(LiveSystem, AnaPrioritizerAnswersWithinItsBound) {
    const char *dev = env("MPATH_LIVE_NVME_DEVICE");
    if (!dev)
        GTEST_SKIP() << "MPATH_LIVE_NVME_DEVICE is not set (the VM lab sets it)";
    // The ANA prioritizer takes the namespace's ANA state, nsid and group
    // from what discovery read.
    auto found = discovered(dev);
    ASSERT_TRUE(found) << found.error().message;
    auto c = mpath::prio::Context::system();
    c.commandTimeout = 3s;
    auto ana = Prioritizer::create("ana", "", c);
    ASSERT_TRUE(ana) << ana.error().message;
    auto start = std::chrono::steady_clock::now();
    auto prio = priorityWithin(**ana, *found, 3s);
    std::cout << "live: ana " << dev << " priority "
              << (prio ? std::to_string(*prio) : prio.error().message) << "\n";
    EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
    EXPECT_NE(prio.code(), ETIMEDOUT);
}
