#include "mpath/discovery/discovery.h"
#include "mpath/discovery/udev_property_files.h"
#include "mpath/testing/sysfs_tree_builder.h"
#include "temp_dir.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/sysmacros.h>

using namespace mpath::discovery;
using mpath::config::Config;
using mpath::model::DeviceState;
using mpath::model::Path;
using mpath::model::Transport;
using mpath::testing::SysfsTreeBuilder;

namespace {

/// Success, or a failure that shows the error's message.
::testing::AssertionResult succeeded(const mpath::Result<void> &r) {
    if (r)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << r.error().message;
}

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

    Discovery discovery(Options o = {}) { return Discovery(Sysfs(tree_->sysfsRoot()), o); }
    UdevPropertyFiles udev() { return UdevPropertyFiles(tree_->udevDirectory()); }

    mpath_test::TempDir dir_{"mpath-disc"};
    std::unique_ptr<SysfsTreeBuilder> tree_;
};

} // namespace

TEST_F(DiscoveryTest, ScsiPathTakesWwidFromIdSerial) {
    auto d = scsiDisk("sdb", 1);
    d.udev = {{"ID_SERIAL", "36001405aabbccdd00112233445566778"}};
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(d)));
    auto found = discovery().discover("sdb", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->wwidSource, wwid::Source::UdevProperty);
    const Path &p = found->path;
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
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(scsiDisk("sdc", 2))));
    auto found = discovery().discover("sdc", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->wwidSource, wwid::Source::VpdPage83);
    EXPECT_EQ(found->path.wwid, "36001405aabbccdd00112233445566778");
}

TEST_F(DiscoveryTest, FallbackCanBeSwitchedOff) {
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(scsiDisk("sdc", 2))));
    Options o;
    o.sysfsFallback = false;
    auto found = discovery(o).discover("sdc", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->path.wwid, "");
}

TEST_F(DiscoveryTest, ConfiguredUidAttributeReplacesTheDefault) {
    auto d = scsiDisk("sdb", 1);
    d.udev = {{"ID_SERIAL", "3serial"}, {"ID_WWN", "0x6001405aabbccdd0"}};
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(d)));
    Options o;
    std::string seenVendor;
    o.uidAttribute = [&](const Path &p) {
        seenVendor = p.vendor;
        return std::string("ID_WWN");
    };
    auto found = discovery(o).discover("sdb", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(seenVendor, "LIO-ORG");
    EXPECT_EQ(found->path.wwid, "0x6001405aabbccdd0");
}

TEST_F(DiscoveryTest, FibreChannelPathCarriesHostAndTargetPortNames) {
    auto d = scsiDisk("sdd", 3);
    d.hostKind = SysfsTreeBuilder::HostKind::FibreChannel;
    d.hostWwnn = "0x20000024ff000001";
    d.hostWwpn = "0x21000024ff000001";
    d.targetWwnn = "0x500a098000000001";
    d.targetWwpn = "0x500a098100000001";
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(d)));
    auto found = discovery().discover("sdd", udev());
    ASSERT_TRUE(found) << found.error().message;
    const Path &p = found->path;
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
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(d)));
    auto found = discovery().discover("sde", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->path.transport, Transport::Iscsi);
    EXPECT_EQ(found->path.protocol, "scsi:iscsi");
    EXPECT_EQ(found->path.ids.nodeName, "iqn.2003-01.org.linux-iscsi.t:sn.1");
}

TEST_F(DiscoveryTest, SasPathNodeNameIsTheEndDeviceAddress) {
    auto d = scsiDisk("sdf", 5);
    d.hostKind = SysfsTreeBuilder::HostKind::Sas;
    d.sasAddress = "0x5000c50012345678";
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(d)));
    auto found = discovery().discover("sdf", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->path.transport, Transport::Sas);
    EXPECT_EQ(found->path.protocol, "scsi:sas");
    EXPECT_EQ(found->path.ids.nodeName, "0x5000c50012345678");
}

TEST_F(DiscoveryTest, OfflineScsiDeviceIsReportedOffline) {
    auto d = scsiDisk("sdb", 1);
    d.state = "offline";
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(d)));
    auto found = discovery().discover("sdb", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->path.deviceState, DeviceState::Offline);
}

TEST_F(DiscoveryTest, ScsiPathCarriesAluaSupportAndTheAttachedHandler) {
    auto d = scsiDisk("sdb", 1);
    d.tpgs = 2;
    d.dhState = "alua";
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(d)));
    auto e = scsiDisk("sdc", 2);
    e.tpgs = 0;
    e.dhState = "detached";
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(e)));
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(scsiDisk("sdd", 3))));
    auto sdb = discovery().discover("sdb", udev());
    ASSERT_TRUE(sdb) << sdb.error().message;
    EXPECT_EQ(sdb->path.tpgs, 2);
    EXPECT_EQ(sdb->path.attachedHandler, "alua");
    auto sdc = discovery().discover("sdc", udev());
    ASSERT_TRUE(sdc) << sdc.error().message;
    EXPECT_EQ(sdc->path.tpgs, 0);
    EXPECT_EQ(sdc->path.attachedHandler, "") << "\"detached\" means no handler";
    auto sdd = discovery().discover("sdd", udev());
    ASSERT_TRUE(sdd) << sdd.error().message;
    EXPECT_EQ(sdd->path.tpgs, -1) << "no inquiry attribute: unknown";
    EXPECT_EQ(sdd->path.attachedHandler, "");
}

TEST_F(DiscoveryTest, ScsiPathCarriesTheAluaAccessStateAndPreferredPath) {
    auto d = scsiDisk("sdb", 1);
    d.dhState = "alua";
    d.accessState = "active/non-optimized";
    d.preferredPath = 1;
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(d)));
    auto e = scsiDisk("sdc", 2);
    e.dhState = "alua";
    e.accessState = "standby";
    e.preferredPath = 0;
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(e)));
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(scsiDisk("sdd", 3))));
    auto sdb = discovery().discover("sdb", udev());
    ASSERT_TRUE(sdb) << sdb.error().message;
    EXPECT_EQ(sdb->path.accessState, "active/non-optimized");
    EXPECT_TRUE(sdb->path.preferred);
    auto sdc = discovery().discover("sdc", udev());
    ASSERT_TRUE(sdc) << sdc.error().message;
    EXPECT_EQ(sdc->path.accessState, "standby");
    EXPECT_FALSE(sdc->path.preferred);
    auto sdd = discovery().discover("sdd", udev());
    ASSERT_TRUE(sdd) << sdd.error().message;
    EXPECT_EQ(sdd->path.accessState, "") << "no access_state attribute: no ALUA state";
    EXPECT_FALSE(sdd->path.preferred) << "no preferred_path attribute: not preferred";
    EXPECT_EQ(sdd->path.anaState, "") << "ANA is NVMe only";
    EXPECT_EQ(sdd->path.nsid, 0u);
    EXPECT_EQ(sdd->path.anaGroupId, 0u);
}

TEST_F(DiscoveryTest, NvmeNamespaceTakesWwidFromIdWwn) {
    SysfsTreeBuilder::NvmeNamespace n;
    n.name = "nvme0n1";
    n.wwid = "eui.0123456789abcdef";
    n.udev = {{"ID_WWN", "eui.0123456789abcdef"}, {"ID_SERIAL", "QEMU_NVMe_Ctrl_deadbeef"}};
    ASSERT_TRUE(succeeded(tree_->addNvmeNamespace(n)));
    auto found = discovery().discover("nvme0n1", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->wwidSource, wwid::Source::UdevProperty);
    const Path &p = found->path;
    EXPECT_EQ(p.wwid, "eui.0123456789abcdef");
    EXPECT_EQ(p.transport, Transport::Nvme);
    EXPECT_EQ(p.protocol, "nvme:pcie");
    EXPECT_EQ(p.vendor, "NVME");
    EXPECT_EQ(p.product, "QEMU NVMe Ctrl");
    EXPECT_EQ(p.serial, "deadbeef");
    EXPECT_EQ(p.revision, "8.0.0");
    EXPECT_EQ(p.ids.nodeName, "nqn.2019-08.org.qemu:subsys0");
    EXPECT_EQ(p.deviceState, DeviceState::Running);
    EXPECT_EQ(p.ids.transportPort, "") << "PCIe has no transport timeouts";
}

TEST_F(DiscoveryTest, NvmeNamespaceWithoutUdevDataUsesNguid) {
    SysfsTreeBuilder::NvmeNamespace n;
    n.name = "nvme1n1";
    n.controller = 1;
    n.nguid = "e0b1a1c2-d3e4-f506-0718-293a4b5c6d7e";
    n.transport = "tcp";
    ASSERT_TRUE(succeeded(tree_->addNvmeNamespace(n)));
    auto found = discovery().discover("nvme1n1", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->wwidSource, wwid::Source::NvmeSysfs);
    EXPECT_EQ(found->path.wwid, "eui.e0b1a1c2d3e4f5060718293a4b5c6d7e");
    EXPECT_EQ(found->path.protocol, "nvme:tcp");
    EXPECT_EQ(found->path.ids.transportPort, "nvme1") << "its timeouts are its controller's";
}

TEST_F(DiscoveryTest, NvmeNamespaceWithoutUdevDataPrefersTheKernelsWwidAttribute) {
    SysfsTreeBuilder::NvmeNamespace n;
    n.name = "nvme0n1";
    n.wwid = "uuid.6c1e0c5c-1111-2222-3333-444455556666";
    n.nguid = "e0b1a1c2-d3e4-f506-0718-293a4b5c6d7e";
    ASSERT_TRUE(succeeded(tree_->addNvmeNamespace(n)));
    SysfsTreeBuilder::NvmeNamespace anonymous;
    anonymous.name = "nvme1n1";
    anonymous.controller = 1;
    ASSERT_TRUE(succeeded(tree_->addNvmeNamespace(anonymous)));
    auto found = discovery().discover("nvme0n1", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->wwidSource, wwid::Source::NvmeSysfs);
    EXPECT_EQ(found->path.wwid, "uuid.6c1e0c5c-1111-2222-3333-444455556666");
    auto none = discovery().discover("nvme1n1", udev());
    ASSERT_TRUE(none) << none.error().message << ": a namespace without WWID is still described";
    EXPECT_EQ(none->wwidSource, wwid::Source::None);
    EXPECT_EQ(none->path.wwid, "");
}

TEST_F(DiscoveryTest, NvmeNamespaceCarriesItsNsidAnaGroupAndAnaState) {
    SysfsTreeBuilder::NvmeNamespace n;
    n.name = "nvme0n3";
    n.nsid = 3;
    n.anaGroupId = 2;
    n.anaState = "non-optimized";
    n.wwid = "eui.0123456789abcdef";
    n.transport = "tcp";
    n.kato = 5;
    ASSERT_TRUE(succeeded(tree_->addNvmeNamespace(n)));
    SysfsTreeBuilder::NvmeNamespace plain;
    plain.name = "nvme1n1";
    plain.controller = 1;
    plain.nsid = 1;
    plain.wwid = "eui.fedcba9876543210";
    ASSERT_TRUE(succeeded(tree_->addNvmeNamespace(plain)));
    auto found = discovery().discover("nvme0n3", udev());
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->path.nsid, 3u);
    EXPECT_EQ(found->path.anaGroupId, 2u);
    EXPECT_EQ(found->path.anaState, "non-optimized");
    EXPECT_EQ(found->path.keepAliveTimeout, 5u);
    EXPECT_EQ(found->path.accessState, "") << "access_state is SCSI only";
    EXPECT_FALSE(found->path.preferred);
    auto without = discovery().discover("nvme1n1", udev());
    ASSERT_TRUE(without) << without.error().message;
    EXPECT_EQ(without->path.nsid, 1u);
    EXPECT_EQ(without->path.anaGroupId, 0u) << "no ana_grpid attribute: unknown";
    EXPECT_EQ(without->path.anaState, "") << "no ana_state attribute: no native NVMe multipath";
    EXPECT_EQ(without->path.keepAliveTimeout, 0u) << "no kato attribute";
}

TEST_F(DiscoveryTest, MissingDeviceIsENOENT) {
    EXPECT_EQ(discovery().discover("sdq", udev()).code(), ENOENT);
    EXPECT_EQ(discovery().discover("../etc", udev()).code(), EINVAL);
}

TEST_F(DiscoveryTest, DiscoverAllSkipsDeviceMapperLoopAndHiddenNvme) {
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(scsiDisk("sdb", 1))));
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(scsiDisk("sdc", 2))));
    ASSERT_TRUE(succeeded(tree_->addVirtualDisk("dm-0", 253, 0)));
    ASSERT_TRUE(succeeded(tree_->addVirtualDisk("loop0", 7, 0)));
    ASSERT_TRUE(succeeded(tree_->addVirtualDisk("nvme0c0n1", 259, 9)));
    ASSERT_TRUE(succeeded(tree_->addVirtualDisk("nullb0", 251, 0)));
    std::vector<Issue> issues;
    auto paths = discovery().discoverAll(udev(), &issues);
    EXPECT_TRUE(issues.empty());
    std::vector<std::string> names;
    for (const Path &p : paths)
        names.push_back(p.kernelName);
    EXPECT_EQ(names, (std::vector<std::string>{"nullb0", "sdb", "sdc"}));
    ASSERT_EQ(paths.size(), 3u);
    EXPECT_EQ(paths[0].transport, Transport::NullBlk);
    EXPECT_EQ(paths[0].protocol, "undef");
    EXPECT_EQ(paths[1].wwid, paths[2].wwid);
}

TEST_F(DiscoveryTest, DiscoverAllReportsDevicesItCannotDescribe) {
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(scsiDisk("sdb", 1))));
    std::filesystem::create_directories(tree_->sysfsRoot() + "/block/sdx");
    std::vector<Issue> issues;
    auto paths = discovery().discoverAll(udev(), &issues);
    ASSERT_EQ(paths.size(), 1u);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].kernelName, "sdx");
    EXPECT_EQ(issues[0].error.code, ENOENT) << issues[0].error.message;
}

TEST_F(DiscoveryTest, OptionsFromConfigUseTheConfiguredUidAttribute) {
    auto d = scsiDisk("sdb", 1);
    d.udev = {{"ID_SERIAL", "3serial"}, {"ID_WWN", "0x6001405aabbccdd0"}};
    ASSERT_TRUE(succeeded(tree_->addScsiDisk(d)));
    auto builtin = discovery(Options::fromConfig(Config{})).discover("sdb", udev());
    ASSERT_TRUE(builtin) << builtin.error().message;
    EXPECT_EQ(builtin->path.wwid, "3serial");
    Config c;
    c.overrides.uidAttribute = "ID_WWN";
    auto configured = discovery(Options::fromConfig(c)).discover("sdb", udev());
    ASSERT_TRUE(configured) << configured.error().message;
    EXPECT_EQ(configured->path.wwid, "0x6001405aabbccdd0");
}
