// Discovery against sysfs trees and udev properties captured in the VM lab
// (tests/vm/libmpath-fixtures.sh): scsi_debug with two hosts, two
// virtio-scsi disks sharing a WWN, one NVMe namespace behind two
// controllers.
#include "mpath/discovery/discovery.h"
#include "mpath/discovery/udev_property_files.h"
#include "mpath/policy/blacklist.h"
#include "mpath/policy/grouping.h"
#include "mpath/prio/prioritizer.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <sys/sysmacros.h>

using namespace mpath::discovery;
using mpath::config::GroupingPolicy;
using mpath::model::DeviceState;
using mpath::model::Map;
using mpath::model::Path;
using mpath::model::Transport;
using mpath::policy::BlacklistFilter;
using mpath::policy::WwidPaths;
using mpath::prio::Prioritizer;

namespace {

class Fixture : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        dir_ = std::string(MPATH_FIXTURES_DIR) + "/sysfs/" + GetParam();
        // Captured by tests/vm/libmpath-fixtures.sh and committed.
        ASSERT_TRUE(std::filesystem::exists(dir_ + "/sys/block"))
            << "no captured fixture at " << dir_;
    }

    std::vector<Path> discoverAll(Options options = {}) {
        std::vector<Issue> issues;
        auto paths = Discovery(Sysfs(dir_ + "/sys"), std::move(options))
                         .discoverAll(UdevPropertyFiles(dir_ + "/udev"), &issues);
        std::string why;
        for (const Issue &i : issues)
            why += "\n" + i.kernelName + ": " + i.error.message;
        EXPECT_TRUE(issues.empty()) << why;
        return paths;
    }

    UdevPropertyMap udev(const std::string &name) {
        auto props = UdevPropertyFiles(dir_ + "/udev").properties(name);
        EXPECT_TRUE(props) << props.error().message;
        return props.valueOr({});
    }

    // scsi_id's own answer, captured next to the tree ("" when absent).
    std::string scsiIdSerial(const std::string &name) {
        auto text = Sysfs(dir_ + "/expected").readAttribute(name + ".scsi_id");
        if (!text)
            return {};
        UdevPropertyMap props = UdevPropertyFiles::parse(*text);
        return props["ID_SERIAL"];
    }

    // Options that ignore udev's WWID, so the sysfs fallback is used.
    static Options fallbackOnly(vpd::Order order = vpd::Order::Udev) {
        Options o;
        o.uidAttribute = [](const Path &) { return std::string("MPATH_TEST_NO_SUCH_PROPERTY"); };
        o.page83Order = order;
        return o;
    }

    std::string dir_;
};

} // namespace

TEST_P(Fixture, EveryCapturedPathIsDiscoveredWithTheWwidUdevGaveIt) {
    auto paths = discoverAll();
    ASSERT_GE(paths.size(), 2u);
    for (const Path &p : paths) {
        auto props = udev(p.kernelName);
        std::string key = p.transport == Transport::Nvme ? "ID_WWN" : "ID_SERIAL";
        EXPECT_EQ(p.wwid, props[key]) << p.kernelName;
        EXPECT_FALSE(p.wwid.empty()) << p.kernelName;
        EXPECT_EQ(p.deviceState, DeviceState::Running) << p.kernelName;
        EXPECT_GT(p.sizeSectors, 0u) << p.kernelName;
        EXPECT_EQ(std::to_string(major(p.devt)), props["MAJOR"]) << p.kernelName;
        EXPECT_EQ(std::to_string(minor(p.devt)), props["MINOR"]) << p.kernelName;
    }
}

TEST_P(Fixture, SysfsFallbackGivesTheSameWwidAsUdev) {
    auto fromUdev = discoverAll();
    auto fromSysfs = discoverAll(fallbackOnly());
    ASSERT_EQ(fromUdev.size(), fromSysfs.size());
    for (size_t i = 0; i < fromUdev.size(); ++i)
        EXPECT_EQ(fromSysfs[i].wwid, fromUdev[i].wwid) << fromUdev[i].kernelName;
}

class ScsiFixture : public Fixture {};

TEST_P(ScsiFixture, ScsiIdOrderGivesWhatScsiIdPrinted) {
    bool compared = false;
    for (const Path &p : discoverAll(fallbackOnly(vpd::Order::ScsiId))) {
        std::string expected = scsiIdSerial(p.kernelName);
        if (expected.empty())
            continue;
        EXPECT_EQ(p.wwid, expected) << p.kernelName;
        compared = true;
    }
    EXPECT_TRUE(compared) << "no scsi_id output captured for " << GetParam();
}

TEST_P(Fixture, PathsFormOneMapPerWwidThatTheBuiltinBlacklistKeeps) {
    auto paths = discoverAll();
    BlacklistFilter filter(BlacklistFilter::builtinDevnodeRules(), {});
    std::set<std::string> wwids;
    for (const Path &p : paths) {
        auto props = udev(p.kernelName);
        EXPECT_FALSE(filter.check(p, &props, wwid::defaultUidAttribute(p.kernelName)).blacklisted)
            << p.kernelName;
        wwids.insert(p.wwid);
    }
    auto byWwid = mpath::policy::byWwid(paths);
    ASSERT_EQ(byWwid.size(), wwids.size());
    size_t grouped = 0;
    for (const WwidPaths &w : byWwid) {
        Map m = mpath::policy::buildMap(w, GroupingPolicy::Multibus);
        ASSERT_EQ(m.groups.size(), 1u);
        grouped += m.groups[0].paths.size();
        EXPECT_EQ(m.sizeSectors, w.paths[0].sizeSectors);
    }
    EXPECT_EQ(grouped, paths.size());
}

INSTANTIATE_TEST_SUITE_P(Captured, Fixture, ::testing::Values("scsi_debug", "virtio_scsi", "nvme"),
                         [](const auto &info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Captured, ScsiFixture, ::testing::Values("scsi_debug", "virtio_scsi"),
                         [](const auto &info) { return info.param; });

namespace {

std::string fixture(const std::string &kind) {
    return std::string(MPATH_FIXTURES_DIR) + "/sysfs/" + kind;
}

std::vector<Path> captured(const std::string &kind) {
    return Discovery(Sysfs(fixture(kind) + "/sys"))
        .discoverAll(UdevPropertyFiles(fixture(kind) + "/udev"));
}

} // namespace

TEST(CapturedScsiDebug, PathsCarryInquiryDataAndTheirPortGroups) {
    auto paths = captured("scsi_debug");
    ASSERT_FALSE(paths.empty()) << "the committed scsi_debug fixture gives no paths";
    ASSERT_EQ(paths.size(), 2u);
    for (const Path &p : paths) {
        EXPECT_EQ(p.vendor, "Linux");
        EXPECT_EQ(p.product, "scsi_debug");
        EXPECT_EQ(p.transport, Transport::Scsi);
        EXPECT_EQ(p.protocol, "scsi:unspec");
        auto props = UdevPropertyFiles(fixture("scsi_debug") + "/udev").properties(p.kernelName);
        ASSERT_TRUE(props) << props.error().message;
        EXPECT_EQ(p.serial, (*props)["ID_SCSI_SERIAL"]);
        // scsi_id printed the target port group in hex.
        auto text =
            Sysfs(fixture("scsi_debug") + "/expected").readAttribute(p.kernelName + ".scsi_id");
        ASSERT_TRUE(text) << text.error().message;
        auto expected = UdevPropertyFiles::parse(*text);
        ASSERT_FALSE(expected["ID_TARGET_PORT"].empty());
        EXPECT_EQ(p.ids.targetPortGroup, std::stoi(expected["ID_TARGET_PORT"], nullptr, 16));
    }
}

TEST(CapturedScsiDebug, SysfsPrioritiesPutTheOptimizedPortFirst) {
    auto paths = captured("scsi_debug");
    ASSERT_FALSE(paths.empty()) << "the committed scsi_debug fixture gives no paths";
    // The sysfs prioritizer reads the access_state discovery found; the
    // captured devices are not this machine's, so no device I/O.
    auto sysfs = Prioritizer::create("sysfs", "", mpath::prio::Context::noDevices());
    ASSERT_TRUE(sysfs) << sysfs.error().message;
    const Sysfs tree(fixture("scsi_debug") + "/sys");
    for (Path &p : paths) {
        auto device = tree.resolve("block/" + p.kernelName + "/device");
        ASSERT_TRUE(device) << device.error().message;
        auto state = tree.readAttribute(*device + "/access_state");
        ASSERT_TRUE(state) << state.error().message;
        EXPECT_EQ(p.accessState, *state) << p.kernelName;
        auto priority = (*sysfs)->job(p)();
        ASSERT_TRUE(priority) << p.kernelName << ": " << priority.error().message;
        p.priority = *priority;
        EXPECT_EQ(p.priority, *state == "active/optimized" ? 50 : 1)
            << p.kernelName << " " << *state;
    }
    auto groups = mpath::policy::groupPaths(paths, GroupingPolicy::GroupByPrio);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].priority, 50);
    EXPECT_EQ(groups[1].priority, 1);
}

TEST(CapturedVirtioScsi, BothDisksShareTheConfiguredWwn) {
    auto paths = captured("virtio_scsi");
    ASSERT_FALSE(paths.empty()) << "the committed virtio_scsi fixture gives no paths";
    ASSERT_EQ(paths.size(), 2u);
    for (const Path &p : paths) {
        EXPECT_EQ(p.wwid, "35000c5000a1b2c3d");
        EXPECT_EQ(p.vendor, "QEMU");
        EXPECT_EQ(p.product, "QEMU HARDDISK");
        EXPECT_EQ(p.serial, "MPATHLABVSCSI");
    }
    EXPECT_NE(paths[0].scsiAddress.substr(0, 2), paths[1].scsiAddress.substr(0, 2));
}

TEST(CapturedNvme, NamespaceThroughTwoControllersIsOneSubsystem) {
    auto paths = captured("nvme");
    ASSERT_FALSE(paths.empty()) << "the committed nvme fixture gives no paths";
    ASSERT_EQ(paths.size(), 2u);
    for (const Path &p : paths) {
        EXPECT_EQ(p.transport, Transport::Nvme);
        EXPECT_EQ(p.protocol, "nvme:pcie");
        EXPECT_EQ(p.vendor, "NVME");
        EXPECT_EQ(p.product, "QEMU NVMe Ctrl");
        EXPECT_EQ(p.serial, "MPATHLABNVME");
        EXPECT_NE(p.ids.nodeName.find("org.mpath:lab"), std::string::npos);
    }
    EXPECT_EQ(paths[0].ids.nodeName, paths[1].ids.nodeName);
    EXPECT_EQ(mpath::policy::groupPaths(paths, GroupingPolicy::GroupByNodeName).size(), 1u);
}
