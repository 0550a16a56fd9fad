#include "mpath/sysfs.h"
#include "mpath/sysfs_tree_builder.h"
#include "mpath/sysfs_udev_properties.h"
#include "temp_dir.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace mpath;

namespace {

class SysfsTest : public ::testing::Test {
protected:
    void write(const std::string &rel, const std::string &content) {
        std::filesystem::path p = dir_.path() / rel;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p) << content;
    }

    mpath_test::TempDir dir_{"mpath-sysfs"};
};

} // namespace

TEST_F(SysfsTest, ReadAttributeDropsTrailingNewlineAndPadding) {
    write("devices/x/vendor", "LIO-ORG \n");
    std::string v;
    ASSERT_EQ(Sysfs(dir_.str()).readAttribute("devices/x/vendor", v), 0);
    EXPECT_EQ(v, "LIO-ORG");
}

TEST_F(SysfsTest, ReadAttributeOfMissingFileIsENOENT) {
    std::string v;
    EXPECT_EQ(Sysfs(dir_.str()).readAttribute("block/nope/dev", v), -ENOENT);
}

TEST_F(SysfsTest, ReadNumberRejectsText) {
    write("a", "12x\n");
    write("b", "2048\n");
    uint64_t n = 0;
    EXPECT_EQ(Sysfs(dir_.str()).readNumber("a", n), -EINVAL);
    ASSERT_EQ(Sysfs(dir_.str()).readNumber("b", n), 0);
    EXPECT_EQ(n, 2048u);
}

TEST_F(SysfsTest, ResolveFollowsRelativeLinksAndAnswersRelativeToRoot) {
    write("devices/pci/host0/target0:0:0/0:0:0:0/vendor", "x\n");
    std::filesystem::create_directories(dir_.path() / "block/sda");
    std::filesystem::create_directory_symlink("../../devices/pci/host0/target0:0:0/0:0:0:0",
                                              dir_.path() / "block/sda/device");
    std::string r;
    ASSERT_EQ(Sysfs(dir_.str()).resolve("block/sda/device", r), 0);
    EXPECT_EQ(r, "devices/pci/host0/target0:0:0/0:0:0:0");
}

TEST_F(SysfsTest, ResolveRefusesLinksLeadingOutOfTheTree) {
    std::filesystem::create_directories(dir_.path() / "block");
    std::filesystem::create_directory_symlink("/tmp", dir_.path() / "block/out");
    std::string r;
    EXPECT_EQ(Sysfs(dir_.str()).resolve("block/out", r), -EXDEV);
}

TEST_F(SysfsTest, ListDirectoryIsSorted) {
    write("block/sdb/dev", "8:16\n");
    write("block/sda/dev", "8:0\n");
    std::vector<std::string> names;
    ASSERT_EQ(Sysfs(dir_.str()).listDirectory("block", names), 0);
    EXPECT_EQ(names, (std::vector<std::string>{"sda", "sdb"}));
}

TEST(SysfsUdevProperties, ParsesUdevadmPropertyOutput) {
    auto props = SysfsUdevProperties::parse("DEVNAME=/dev/sda\nID_SERIAL=36001405aa\n"
                                            "ID_MODEL='QEMU HARDDISK'\nnot a property\n");
    EXPECT_EQ(props.size(), 3u);
    EXPECT_EQ(props["ID_SERIAL"], "36001405aa");
    EXPECT_EQ(props["ID_MODEL"], "QEMU HARDDISK");
}

TEST_F(SysfsTest, UdevPropertiesOfUnknownDeviceIsENOENT) {
    SysfsTreeBuilder b(dir_.str());
    UdevPropertyMap props;
    EXPECT_EQ(SysfsUdevProperties(b.udevDirectory()).properties("sdz", props), -ENOENT);
    ASSERT_EQ(b.writeUdevProperties("sdz", {{"ID_SERIAL", "3abc"}}), 0);
    ASSERT_EQ(SysfsUdevProperties(b.udevDirectory()).properties("sdz", props), 0);
    EXPECT_EQ(props.at("ID_SERIAL"), "3abc");
}

TEST_F(SysfsTest, ResolveLinkJoinsTheTargetToTheLinksDirectory) {
    write("devices/pci/host0/target0:0:0/0:0:0:0/block/sda/dev", "8:0\n");
    std::filesystem::create_directories(dir_.path() / "block");
    std::filesystem::create_directory_symlink("../devices/pci/host0/target0:0:0/0:0:0:0/block/sda",
                                              dir_.path() / "block/sda");
    std::filesystem::create_directory_symlink(
        "../../../0:0:0:0", dir_.path() / "devices/pci/host0/target0:0:0/0:0:0:0/block/sda/device");
    Sysfs s(dir_.str());
    std::string block, device;
    ASSERT_EQ(s.resolveLink("block/sda", block), 0);
    EXPECT_EQ(block, "devices/pci/host0/target0:0:0/0:0:0:0/block/sda");
    ASSERT_EQ(s.resolveLink(block + "/device", device), 0);
    EXPECT_EQ(device, "devices/pci/host0/target0:0:0/0:0:0:0");
    std::string same;
    ASSERT_EQ(s.resolveLink("devices/pci", same), 0);
    EXPECT_EQ(same, "devices/pci");
    EXPECT_EQ(s.resolveLink("devices/none", same), -ENOENT);
}

TEST_F(SysfsTest, ResolveLinkRefusesTargetsAboveTheRoot) {
    std::filesystem::create_directories(dir_.path() / "block");
    std::filesystem::create_directory_symlink("../../etc", dir_.path() / "block/x");
    std::string r;
    EXPECT_EQ(Sysfs(dir_.str()).resolveLink("block/x", r), -EXDEV);
}
