#include "mpath/bindings_file.h"
#include "mpath/config_parser.h"
#include "mpath/names.h"
#include "temp_dir.h"

#include <filesystem>
#include <gtest/gtest.h>

using namespace mpath;
namespace fs = std::filesystem;

namespace {

class NamesTest : public ::testing::Test {
protected:
    Config config(std::string_view text) {
        ConfigResult r = ConfigParser::parseString(text);
        EXPECT_TRUE(r.diagnostics.empty());
        return r.config;
    }

    mpath_test::TempDir dir_{"mpath-names"};
};

} // namespace

TEST_F(NamesTest, UsesTheWwidWithoutUserFriendlyNames) {
    Config c;
    BindingsFile b(dir_.file("bindings"));
    std::string name;
    ASSERT_EQ(Names::mapName(c, c.effective("X", "Y", "", "36001"), "36001", &b, name), 0);
    EXPECT_EQ(name, "36001");
    EXPECT_FALSE(fs::exists(dir_.file("bindings")));
}

TEST_F(NamesTest, BindsAFriendlyNameWhenEnabled) {
    Config c = config("defaults {\n user_friendly_names yes\n}\n");
    BindingsFile b(dir_.file("bindings"));
    std::string name;
    ASSERT_EQ(Names::mapName(c, c.effective("X", "Y", "", "36001"), "36001", &b, name), 0);
    EXPECT_EQ(name, "mpatha");
    ASSERT_EQ(Names::mapName(c, c.effective("X", "Y", "", "36002"), "36002", &b, name), 0);
    EXPECT_EQ(name, "mpathb");
    ASSERT_EQ(Names::mapName(c, c.effective("X", "Y", "", "36001"), "36001", &b, name), 0);
    EXPECT_EQ(name, "mpatha");
}

TEST_F(NamesTest, HonoursAliasPrefix) {
    Config c = config("defaults {\n user_friendly_names yes\n alias_prefix disk\n}\n");
    BindingsFile b(dir_.file("bindings"));
    std::string name;
    ASSERT_EQ(Names::mapName(c, c.effective("X", "Y", "", "36001"), "36001", &b, name), 0);
    EXPECT_EQ(name, "diska");
}

TEST_F(NamesTest, ConfiguredAliasWinsAndIsNeverHandedOut) {
    Config c = config("defaults {\n user_friendly_names yes\n}\n"
                      "multipaths {\n multipath {\n wwid 36009\n alias mpatha\n }\n}\n");
    BindingsFile b(dir_.file("bindings"));
    std::string name;
    ASSERT_EQ(Names::mapName(c, c.effective("X", "Y", "", "36009"), "36009", &b, name), 0);
    EXPECT_EQ(name, "mpatha");
    ASSERT_EQ(Names::mapName(c, c.effective("X", "Y", "", "36001"), "36001", &b, name), 0);
    EXPECT_EQ(name, "mpathb");
}

TEST_F(NamesTest, DeviceEntryCanTurnFriendlyNamesOff) {
    Config c = config("defaults {\n user_friendly_names yes\n}\n");
    BindingsFile b(dir_.file("bindings"));
    std::string name;
    // The built-in NetApp entry says user_friendly_names no.
    ASSERT_EQ(Names::mapName(c, c.effective("NETAPP", "LUN", "", "3600a0"), "3600a0", &b, name), 0);
    EXPECT_EQ(name, "3600a0");
}

TEST_F(NamesTest, FallsBackToTheWwidWhenTheBindingsFileIsBroken) {
    Config c = config("defaults {\n user_friendly_names yes\n}\n");
    std::string path = dir_.file("bindings");
    {
        BindingsFile b(path);
        ASSERT_EQ(b.add("mpatha", "1"), 0);
    }
    FILE *f = fopen(path.c_str(), "a");
    ASSERT_NE(f, nullptr);
    fputs("mpatha 2\n", f);
    fclose(f);
    BindingsFile b(path);
    std::string name;
    EXPECT_LT(Names::mapName(c, c.effective("X", "Y", "", "36001"), "36001", &b, name), 0);
    EXPECT_EQ(name, "36001");
}

TEST_F(NamesTest, RefusesABindingThatTheConfigurationGaveToAnotherMap) {
    std::string path = dir_.file("bindings");
    BindingsFile b(path);
    ASSERT_EQ(b.add("mpatha", "36001"), 0);
    Config c = config("defaults {\n user_friendly_names yes\n}\n"
                      "multipaths {\n multipath {\n wwid 36009\n alias mpatha\n }\n}\n");
    std::string name;
    EXPECT_EQ(Names::mapName(c, c.effective("X", "Y", "", "36001"), "36001", &b, name), -EEXIST);
    EXPECT_EQ(name, "36001");
}
