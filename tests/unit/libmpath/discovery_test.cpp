#include "mpath/discovery.h"
#include "mpath/sysfs_tree_builder.h"
#include "mpath/sysfs_udev_properties.h"
#include "temp_dir.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/sysmacros.h>

using namespace mpath;

namespace {

class DiscoveryTest : public ::testing::Test {
protected:
    void SetUp() override { tree_ = std::make_unique<SysfsTreeBuilder>(dir_.str()); }

    SysfsTreeBuilder::ScsiDisk scsiDisk(const std::string &name, unsigned host) {
        SysfsTreeBuilder::ScsiDisk d;
        d.name = name;
        d.minor = 16 * host;
        d.host = host;
        d.vpdPage83 = SysfsTreeBuilder::naaPage83("6001405aabbccdd00112233445566778", host % 2);
        d.vpdPage80 = SysfsTreeBuilder::page80("aabbccdd-0011");
        return d;
    }

    Discovery discovery(DiscoveryOptions o = {}) { return Discovery(Sysfs(tree_->sysfsRoot()), o); }
    SysfsUdevProperties udev() { return SysfsUdevProperties(tree_->udevDirectory()); }

    mpath_test::TempDir dir_{"mpath-disc"};
    std::unique_ptr<SysfsTreeBuilder> tree_;
};

} // namespace

TEST_F(DiscoveryTest, ScsiPathTakesWwidFromIdSerial) {
    auto d = scsiDisk("sdb", 1);
    d.udev = {{"ID_SERIAL", "36001405aabbccdd00112233445566778"}};
    ASSERT_EQ(tree_->addScsiDisk(d), 0);
    Path p;
    Wwid::Source src{};
    ASSERT_EQ(discovery().discover("sdb", udev(), p, &src), 0);
    EXPECT_EQ(src, Wwid::Source::UdevProperty);
    EXPECT_EQ(p.kernelName, "sdb");
    EXPECT_EQ(p.devt, makedev(8, 16));
    EXPECT_EQ(p.devtString(), "8:16");
    EXPECT_EQ(p.sizeSectors, 2048u);
    EXPECT_EQ(p.wwid, "36001405aabbccdd00112233445566778");
    EXPECT_EQ(p.vendor, "LIO-ORG");
    EXPECT_EQ(p.product, "disk");
    EXPECT_EQ(p.revision, "4.0");
    EXPECT_EQ(p.serial, "aabbccdd-0011");
    EXPECT_EQ(p.scsiAddress, "1:0:0:0");
    EXPECT_EQ(p.transport, Transport::Scsi);
    EXPECT_EQ(p.protocol, "scsi:unspec");
    EXPECT_EQ(p.deviceState, DeviceState::Running);
    EXPECT_EQ(p.ids.targetPortGroup, 1);
}

TEST_F(DiscoveryTest, ScsiPathWithoutUdevDataFallsBackToVpdPage83) {
    ASSERT_EQ(tree_->addScsiDisk(scsiDisk("sdc", 2)), 0);
    Path p;
    Wwid::Source src{};
    ASSERT_EQ(discovery().discover("sdc", udev(), p, &src), 0);
    EXPECT_EQ(src, Wwid::Source::VpdPage83);
    EXPECT_EQ(p.wwid, "36001405aabbccdd00112233445566778");
}

TEST_F(DiscoveryTest, FallbackCanBeSwitchedOff) {
    ASSERT_EQ(tree_->addScsiDisk(scsiDisk("sdc", 2)), 0);
    Path p;
    DiscoveryOptions o;
    o.sysfsFallback = false;
    ASSERT_EQ(discovery(o).discover("sdc", udev(), p), 0);
    EXPECT_EQ(p.wwid, "");
}

TEST_F(DiscoveryTest, ConfiguredUidAttributeReplacesTheDefault) {
    auto d = scsiDisk("sdb", 1);
    d.udev = {{"ID_SERIAL", "3serial"}, {"ID_WWN", "0x6001405aabbccdd0"}};
    ASSERT_EQ(tree_->addScsiDisk(d), 0);
    DiscoveryOptions o;
    std::string seenVendor;
    o.uidAttribute = [&](const Path &p) {
        seenVendor = p.vendor;
        return std::string("ID_WWN");
    };
    Path p;
    ASSERT_EQ(discovery(o).discover("sdb", udev(), p), 0);
    EXPECT_EQ(seenVendor, "LIO-ORG");
    EXPECT_EQ(p.wwid, "0x6001405aabbccdd0");
}

TEST_F(DiscoveryTest, FibreChannelPathCarriesHostAndTargetPortNames) {
    auto d = scsiDisk("sdd", 3);
    d.hostKind = SysfsTreeBuilder::HostKind::FibreChannel;
    d.hostWwnn = "0x20000024ff000001";
    d.hostWwpn = "0x21000024ff000001";
    d.targetWwnn = "0x500a098000000001";
    d.targetWwpn = "0x500a098100000001";
    ASSERT_EQ(tree_->addScsiDisk(d), 0);
    Path p;
    ASSERT_EQ(discovery().discover("sdd", udev(), p), 0);
    EXPECT_EQ(p.transport, Transport::FibreChannel);
    EXPECT_EQ(p.protocol, "scsi:fcp");
    EXPECT_EQ(p.ids.hostWwnn, "0x20000024ff000001");
    EXPECT_EQ(p.ids.hostWwpn, "0x21000024ff000001");
    EXPECT_EQ(p.ids.targetWwnn, "0x500a098000000001");
    EXPECT_EQ(p.ids.targetWwpn, "0x500a098100000001");
    EXPECT_EQ(p.ids.nodeName, "0x500a098000000001");
}

TEST_F(DiscoveryTest, IscsiPathNodeNameIsTheTargetIqn) {
    auto d = scsiDisk("sde", 4);
    d.hostKind = SysfsTreeBuilder::HostKind::Iscsi;
    d.iscsiSession = 7;
    d.iscsiTarget = "iqn.2003-01.org.linux-iscsi.t:sn.1";
    ASSERT_EQ(tree_->addScsiDisk(d), 0);
    Path p;
    ASSERT_EQ(discovery().discover("sde", udev(), p), 0);
    EXPECT_EQ(p.transport, Transport::Iscsi);
    EXPECT_EQ(p.protocol, "scsi:iscsi");
    EXPECT_EQ(p.ids.nodeName, "iqn.2003-01.org.linux-iscsi.t:sn.1");
}

TEST_F(DiscoveryTest, SasPathNodeNameIsTheEndDeviceAddress) {
    auto d = scsiDisk("sdf", 5);
    d.hostKind = SysfsTreeBuilder::HostKind::Sas;
    d.sasAddress = "0x5000c50012345678";
    ASSERT_EQ(tree_->addScsiDisk(d), 0);
    Path p;
    ASSERT_EQ(discovery().discover("sdf", udev(), p), 0);
    EXPECT_EQ(p.transport, Transport::Sas);
    EXPECT_EQ(p.protocol, "scsi:sas");
    EXPECT_EQ(p.ids.nodeName, "0x5000c50012345678");
}

TEST_F(DiscoveryTest, OfflineScsiDeviceIsReportedOffline) {
    auto d = scsiDisk("sdb", 1);
    d.state = "offline";
    ASSERT_EQ(tree_->addScsiDisk(d), 0);
    Path p;
    ASSERT_EQ(discovery().discover("sdb", udev(), p), 0);
    EXPECT_EQ(p.deviceState, DeviceState::Offline);
}

TEST_F(DiscoveryTest, ScsiPathCarriesAluaSupportAndTheAttachedHandler) {
    auto d = scsiDisk("sdb", 1);
    d.tpgs = 2;
    d.dhState = "alua";
    ASSERT_EQ(tree_->addScsiDisk(d), 0);
    auto e = scsiDisk("sdc", 2);
    e.tpgs = 0;
    e.dhState = "detached";
    ASSERT_EQ(tree_->addScsiDisk(e), 0);
    ASSERT_EQ(tree_->addScsiDisk(scsiDisk("sdd", 3)), 0);
    Path p;
    ASSERT_EQ(discovery().discover("sdb", udev(), p), 0);
    EXPECT_EQ(p.tpgs, 2);
    EXPECT_EQ(p.attachedHandler, "alua");
    ASSERT_EQ(discovery().discover("sdc", udev(), p), 0);
    EXPECT_EQ(p.tpgs, 0);
    EXPECT_EQ(p.attachedHandler, "") << "\"detached\" means no handler";
    ASSERT_EQ(discovery().discover("sdd", udev(), p), 0);
    EXPECT_EQ(p.tpgs, -1) << "no inquiry attribute: unknown";
    EXPECT_EQ(p.attachedHandler, "");
}

TEST_F(DiscoveryTest, NvmeNamespaceTakesWwidFromIdWwn) {
    SysfsTreeBuilder::NvmeNamespace n;
    n.name = "nvme0n1";
    n.wwid = "eui.0123456789abcdef";
    n.udev = {{"ID_WWN", "eui.0123456789abcdef"}, {"ID_SERIAL", "QEMU_NVMe_Ctrl_deadbeef"}};
    ASSERT_EQ(tree_->addNvmeNamespace(n), 0);
    Path p;
    Wwid::Source src{};
    ASSERT_EQ(discovery().discover("nvme0n1", udev(), p, &src), 0);
    EXPECT_EQ(src, Wwid::Source::UdevProperty);
    EXPECT_EQ(p.wwid, "eui.0123456789abcdef");
    EXPECT_EQ(p.transport, Transport::Nvme);
    EXPECT_EQ(p.protocol, "nvme:pcie");
    EXPECT_EQ(p.vendor, "NVME");
    EXPECT_EQ(p.product, "QEMU NVMe Ctrl");
    EXPECT_EQ(p.serial, "deadbeef");
    EXPECT_EQ(p.revision, "8.0.0");
    EXPECT_EQ(p.ids.nodeName, "nqn.2019-08.org.qemu:subsys0");
    EXPECT_EQ(p.deviceState, DeviceState::Running);
}

TEST_F(DiscoveryTest, NvmeNamespaceWithoutUdevDataUsesNguid) {
    SysfsTreeBuilder::NvmeNamespace n;
    n.name = "nvme1n1";
    n.controller = 1;
    n.nguid = "e0b1a1c2-d3e4-f506-0718-293a4b5c6d7e";
    n.transport = "tcp";
    ASSERT_EQ(tree_->addNvmeNamespace(n), 0);
    Path p;
    Wwid::Source src{};
    ASSERT_EQ(discovery().discover("nvme1n1", udev(), p, &src), 0);
    EXPECT_EQ(src, Wwid::Source::NvmeSysfs);
    EXPECT_EQ(p.wwid, "eui.e0b1a1c2d3e4f5060718293a4b5c6d7e");
    EXPECT_EQ(p.protocol, "nvme:tcp");
}

TEST_F(DiscoveryTest, MissingDeviceIsENOENT) {
    Path p;
    EXPECT_EQ(discovery().discover("sdq", udev(), p), -ENOENT);
    EXPECT_EQ(discovery().discover("../etc", udev(), p), -EINVAL);
}

TEST_F(DiscoveryTest, DiscoverAllSkipsDeviceMapperLoopAndHiddenNvme) {
    ASSERT_EQ(tree_->addScsiDisk(scsiDisk("sdb", 1)), 0);
    ASSERT_EQ(tree_->addScsiDisk(scsiDisk("sdc", 2)), 0);
    ASSERT_EQ(tree_->addVirtualDisk("dm-0", 253, 0), 0);
    ASSERT_EQ(tree_->addVirtualDisk("loop0", 7, 0), 0);
    ASSERT_EQ(tree_->addVirtualDisk("nvme0c0n1", 259, 9), 0);
    ASSERT_EQ(tree_->addVirtualDisk("nullb0", 251, 0), 0);
    std::vector<DiscoveryIssue> issues;
    auto paths = discovery().discoverAll(udev(), &issues);
    EXPECT_TRUE(issues.empty());
    std::vector<std::string> names;
    for (const Path &p : paths)
        names.push_back(p.kernelName);
    EXPECT_EQ(names, (std::vector<std::string>{"nullb0", "sdb", "sdc"}));
    EXPECT_EQ(paths[0].transport, Transport::NullBlk);
    EXPECT_EQ(paths[0].protocol, "undef");
    EXPECT_EQ(paths[1].wwid, paths[2].wwid);
}

TEST_F(DiscoveryTest, DiscoverAllReportsDevicesItCannotDescribe) {
    ASSERT_EQ(tree_->addScsiDisk(scsiDisk("sdb", 1)), 0);
    std::filesystem::create_directories(tree_->sysfsRoot() + "/block/sdx");
    std::vector<DiscoveryIssue> issues;
    auto paths = discovery().discoverAll(udev(), &issues);
    ASSERT_EQ(paths.size(), 1u);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].kernelName, "sdx");
    EXPECT_EQ(issues[0].error, -ENOENT);
}

TEST_F(DiscoveryTest, OptionsFromConfigUseTheConfiguredUidAttribute) {
    auto d = scsiDisk("sdb", 1);
    d.udev = {{"ID_SERIAL", "3serial"}, {"ID_WWN", "0x6001405aabbccdd0"}};
    ASSERT_EQ(tree_->addScsiDisk(d), 0);
    Path p;
    ASSERT_EQ(discovery(DiscoveryOptions::fromConfig(Config{})).discover("sdb", udev(), p), 0);
    EXPECT_EQ(p.wwid, "3serial");
    Config c;
    c.overrides.uidAttribute = "ID_WWN";
    ASSERT_EQ(discovery(DiscoveryOptions::fromConfig(c)).discover("sdb", udev(), p), 0);
    EXPECT_EQ(p.wwid, "0x6001405aabbccdd0");
}
