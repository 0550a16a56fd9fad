#include "mpath/discovery/sysfs.h"
#include "mpath/discovery/udev_property_files.h"
#include "mpath/testing/sysfs_tree_builder.h"
#include "temp_dir.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace mpath::discovery;
using mpath::testing::SysfsTreeBuilder;

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
    auto v = Sysfs(dir_.str()).readAttribute("devices/x/vendor");
    ASSERT_TRUE(v) << v.error().message;
    EXPECT_EQ(*v, "LIO-ORG");
}

TEST_F(SysfsTest, ReadAttributeOfMissingFileIsENOENT) {
    auto v = Sysfs(dir_.str()).readAttribute("block/nope/dev");
    EXPECT_EQ(v.code(), ENOENT);
}

TEST_F(SysfsTest, ReadNumberRejectsText) {
    write("a", "12x\n");
    write("b", "2048\n");
    EXPECT_EQ(Sysfs(dir_.str()).readNumber("a").code(), EINVAL);
    auto n = Sysfs(dir_.str()).readNumber("b");
    ASSERT_TRUE(n) << n.error().message;
    EXPECT_EQ(*n, 2048u);
}

TEST_F(SysfsTest, ResolveFollowsRelativeLinksAndAnswersRelativeToRoot) {
    write("devices/pci/host0/target0:0:0/0:0:0:0/vendor", "x\n");
    std::filesystem::create_directories(dir_.path() / "block/sda");
    std::filesystem::create_directory_symlink("../../devices/pci/host0/target0:0:0/0:0:0:0",
                                              dir_.path() / "block/sda/device");
    auto r = Sysfs(dir_.str()).resolve("block/sda/device");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, "devices/pci/host0/target0:0:0/0:0:0:0");
}

TEST_F(SysfsTest, ResolveRefusesLinksLeadingOutOfTheTree) {
    std::filesystem::create_directories(dir_.path() / "block");
    std::filesystem::create_directory_symlink("/tmp", dir_.path() / "block/out");
    EXPECT_EQ(Sysfs(dir_.str()).resolve("block/out").code(), EXDEV);
}

TEST_F(SysfsTest, ListDirectoryIsSorted) {
    write("block/sdb/dev", "8:16\n");
    write("block/sda/dev", "8:0\n");
    auto names = Sysfs(dir_.str()).listDirectory("block");
    ASSERT_TRUE(names) << names.error().message;
    EXPECT_EQ(*names, (std::vector<std::string>{"sda", "sdb"}));
}

TEST(UdevPropertyFiles, ParsesUdevadmPropertyOutput) {
    auto props = UdevPropertyFiles::parse("DEVNAME=/dev/sda\nID_SERIAL=36001405aa\n"
                                          "ID_MODEL='QEMU HARDDISK'\nnot a property\n");
    EXPECT_EQ(props.size(), 3u);
    EXPECT_EQ(props["ID_SERIAL"], "36001405aa");
    EXPECT_EQ(props["ID_MODEL"], "QEMU HARDDISK");
}

TEST_F(SysfsTest, UdevPropertiesOfUnknownDeviceIsENOENT) {
    SysfsTreeBuilder b(dir_.str());
    EXPECT_EQ(UdevPropertyFiles(b.udevDirectory()).properties("sdz").code(), ENOENT);
    auto written = b.writeUdevProperties("sdz", {{"ID_SERIAL", "3abc"}});
    ASSERT_TRUE(written) << written.error().message;
    auto props = UdevPropertyFiles(b.udevDirectory()).properties("sdz");
    ASSERT_TRUE(props) << props.error().message;
    EXPECT_EQ(props->at("ID_SERIAL"), "3abc");
}

TEST_F(SysfsTest, ResolveLinkJoinsTheTargetToTheLinksDirectory) {
    write("devices/pci/host0/target0:0:0/0:0:0:0/block/sda/dev", "8:0\n");
    std::filesystem::create_directories(dir_.path() / "block");
    std::filesystem::create_directory_symlink("../devices/pci/host0/target0:0:0/0:0:0:0/block/sda",
                                              dir_.path() / "block/sda");
    std::filesystem::create_directory_symlink(
        "../../../0:0:0:0", dir_.path() / "devices/pci/host0/target0:0:0/0:0:0:0/block/sda/device");
    Sysfs s(dir_.str());
    auto block = s.resolveLink("block/sda");
    ASSERT_TRUE(block) << block.error().message;
    EXPECT_EQ(*block, "devices/pci/host0/target0:0:0/0:0:0:0/block/sda");
    auto device = s.resolveLink(*block + "/device");
    ASSERT_TRUE(device) << device.error().message;
    EXPECT_EQ(*device, "devices/pci/host0/target0:0:0/0:0:0:0");
    auto same = s.resolveLink("devices/pci");
    ASSERT_TRUE(same) << same.error().message;
    EXPECT_EQ(*same, "devices/pci");
    EXPECT_EQ(s.resolveLink("devices/none").code(), ENOENT);
}

TEST_F(SysfsTest, ResolveLinkRefusesTargetsAboveTheRoot) {
    std::filesystem::create_directories(dir_.path() / "block");
    std::filesystem::create_directory_symlink("../../etc", dir_.path() / "block/x");
    EXPECT_EQ(Sysfs(dir_.str()).resolveLink("block/x").code(), EXDEV);
}
