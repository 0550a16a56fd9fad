#include "mpath/config/loader.h"
#include "temp_dir.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mpath::config;
namespace fs = std::filesystem;

namespace {

// A throw-away root directory holding an etc/ tree.
class ConfigLoaderTest : public ::testing::Test {
protected:
    void write(const std::string &rel, const std::string &text) {
        fs::path p = root_.path() / rel;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
    }

    /// load() as a user other than root, who reads files whatever their
    /// mode: as nobody when the tests run as root.
    ConfigResult loadAsNobody() {
        const bool root = geteuid() == 0;
        if (root && seteuid(65534) != 0) {
            ADD_FAILURE() << "cannot become nobody: " << std::strerror(errno);
            return {};
        }
        ConfigResult r = Loader(root_.str()).load();
        if (root && seteuid(0) != 0)
            ADD_FAILURE() << "cannot become root again: " << std::strerror(errno);
        return r;
    }

    mpath_test::TempDir root_{"mpath-config"};
};

} // namespace

TEST_F(ConfigLoaderTest, UsesBuiltinDefaultsWhenNoFileExists) {
    Loader loader(root_.str());
    EXPECT_EQ(loader.mainFile(), "");
    ConfigResult r = loader.load();
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_TRUE(r.config.files.empty());
    EXPECT_FALSE(r.config.ownFile);
    EXPECT_EQ(r.config.effectiveGlobals().findMultipaths.value, FindMultipaths::Strict);
}

TEST_F(ConfigLoaderTest, ReadsMultipathConfWhenOwnFileIsAbsent) {
    write("etc/multipath.conf", "defaults {\n polling_interval 7\n}\n");
    write("etc/multipath/conf.d/10-a.conf", "defaults {\n find_multipaths greedy\n}\n");
    ConfigResult r = Loader(root_.str()).load();
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_FALSE(r.config.ownFile);
    EXPECT_EQ(r.config.globals.pollingInterval, 7u);
    EXPECT_EQ(r.config.globals.findMultipaths, FindMultipaths::Greedy);
    ASSERT_EQ(r.config.files.size(), 2u);
    EXPECT_EQ(r.config.files[0], root_.file("etc/multipath.conf"));
}

TEST_F(ConfigLoaderTest, PrefersOwnFileAndItsConfdOverMultipathTools) {
    write("etc/mpathd/mpathd.conf", "defaults {\n polling_interval 3\n dm_target multipath\n}\n");
    write("etc/mpathd/conf.d/a.conf", "defaults {\n checker_timeout 30\n}\n");
    write("etc/multipath.conf", "defaults {\n polling_interval 7\n}\n");
    write("etc/multipath/conf.d/b.conf", "defaults {\n verbosity 4\n}\n");
    Loader loader(root_.str());
    EXPECT_EQ(loader.mainFile(), root_.file("etc/mpathd/mpathd.conf"));
    ConfigResult r = loader.load();
    EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].toString();
    EXPECT_TRUE(r.config.ownFile);
    EXPECT_EQ(r.config.globals.pollingInterval, 3u);
    EXPECT_EQ(r.config.globals.dmTarget, DmTarget::Multipath);
    EXPECT_EQ(r.config.globals.checkerTimeout, 30u);
    EXPECT_FALSE(r.config.globals.verbosity);
}

TEST_F(ConfigLoaderTest, ReadsConfdAlphabeticallyAndLaterScalarsWin) {
    write("etc/multipath.conf", "defaults {\n polling_interval 1\n}\n");
    write("etc/multipath/conf.d/20-b.conf", "defaults {\n polling_interval 20\n}\n");
    write("etc/multipath/conf.d/10-a.conf", "defaults {\n polling_interval 10\n}\n");
    write("etc/multipath/conf.d/30-c.conf", "defaults {\n verbosity 3\n}\n");
    ConfigResult r = Loader(root_.str()).load();
    EXPECT_EQ(r.config.globals.pollingInterval, 20u);
    EXPECT_EQ(r.config.globals.verbosity, 3u);
    ASSERT_EQ(r.config.files.size(), 4u);
    EXPECT_EQ(fs::path(r.config.files[1]).filename(), "10-a.conf");
    EXPECT_EQ(fs::path(r.config.files[2]).filename(), "20-b.conf");
    EXPECT_EQ(fs::path(r.config.files[3]).filename(), "30-c.conf");
}

TEST_F(ConfigLoaderTest, AppendsEntriesFromEveryConfdFile) {
    write("etc/multipath.conf", "blacklist {\n devnode ^sda$\n}\n");
    write("etc/multipath/conf.d/a.conf",
          "blacklist {\n devnode ^sdb$\n}\n"
          "multipaths {\n multipath {\n wwid 1\n alias one\n }\n}\n");
    write("etc/multipath/conf.d/b.conf",
          "multipaths {\n multipath {\n wwid 1\n alias uno\n }\n}\n");
    ConfigResult r = Loader(root_.str()).load();
    EXPECT_EQ(r.config.blacklist.devnodes.size(), 2u);
    EXPECT_EQ(r.config.multipaths.size(), 2u);
    EXPECT_EQ(r.config.effective("", "", "", "1").alias.value, "uno");
}

TEST_F(ConfigLoaderTest, IgnoresConfdFilesWithoutConfSuffix) {
    write("etc/multipath/conf.d/a.conf.rpmsave", "defaults {\n polling_interval 9\n}\n");
    write("etc/multipath/conf.d/README", "not a config\n");
    fs::create_directories(root_.path() / "etc/multipath/conf.d/dir.conf");
    ConfigResult r = Loader(root_.str()).load();
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_TRUE(r.config.files.empty());
    EXPECT_FALSE(r.config.globals.pollingInterval);
}

TEST_F(ConfigLoaderTest, ReadsConfdWithoutAMainFile) {
    write("etc/multipath/conf.d/a.conf", "defaults {\n polling_interval 9\n}\n");
    ConfigResult r = Loader(root_.str()).load();
    EXPECT_EQ(r.config.globals.pollingInterval, 9u);
}

TEST_F(ConfigLoaderTest, FollowsConfigDirFromTheMainFile) {
    write("etc/multipath.conf", "defaults {\n config_dir /etc/mp.d\n}\n");
    write("etc/mp.d/x.conf", "defaults {\n polling_interval 11\n}\n");
    write("etc/multipath/conf.d/y.conf", "defaults {\n polling_interval 12\n}\n");
    ConfigResult r = Loader(root_.str()).load();
    EXPECT_EQ(r.config.globals.pollingInterval, 11u);
}

TEST_F(ConfigLoaderTest, DiagnosticsNameTheFileTheyComeFrom) {
    write("etc/multipath.conf", "defaults {\n}\n");
    write("etc/multipath/conf.d/bad.conf", "defaults {\n failback never\n}\n");
    ConfigResult r = Loader(root_.str()).load();
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].toString(),
              root_.str() + "/etc/multipath/conf.d/bad.conf:2: invalid value 'never' for failback; "
                            "accepted: immediate, manual, followover, or a number of seconds > 0");
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning);
}

TEST_F(ConfigLoaderTest, ReportsAnUnreadableFile) {
    write("etc/multipath.conf", "defaults {\n}\n");
    chmod(root_.str().c_str(), 0755);
    chmod(root_.file("etc/multipath.conf").c_str(), 0);
    ConfigResult r = loadAsNobody();
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].toString(),
              root_.str() + "/etc/multipath.conf: cannot read: Permission denied");
    EXPECT_TRUE(r.hasErrors());
}

TEST_F(ConfigLoaderTest, AFolderThatCannotBeSearchedIsAnErrorNotAnAbsentFile) {
    // Falling back to built-in defaults here would drop the admin's
    // configuration without a word.
    write("etc/multipath.conf", "defaults {\n}\n");
    chmod(root_.str().c_str(), 0755);
    chmod(root_.file("etc").c_str(), 0);
    ConfigResult r = loadAsNobody();
    chmod(root_.file("etc").c_str(), 0755);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics[0].toString(),
              root_.str() + "/etc/mpathd/mpathd.conf: cannot read: Permission denied");
    EXPECT_TRUE(r.hasErrors());
}

TEST_F(ConfigLoaderTest, AConfdFolderThatCannotBeReadIsAnError) {
    write("etc/multipath.conf", "defaults {\n}\n");
    write("etc/multipath/conf.d/a.conf", "defaults {\n}\n");
    chmod(root_.str().c_str(), 0755);
    chmod(root_.file("etc/multipath/conf.d").c_str(), 0);
    ConfigResult r = loadAsNobody();
    chmod(root_.file("etc/multipath/conf.d").c_str(), 0755);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].toString(),
              root_.str() + "/etc/multipath/conf.d: cannot read the folder: Permission denied");
    EXPECT_TRUE(r.hasErrors());
}

TEST_F(ConfigLoaderTest, ReportsAnAliasGivenToTwoWwidsAcrossFiles) {
    write("etc/multipath.conf", "multipaths {\n multipath {\n wwid 1\n alias db\n }\n}\n");
    write("etc/multipath/conf.d/a.conf", "multipaths {\n multipath {\n wwid 2\n alias db\n }\n}\n");
    ConfigResult r = Loader(root_.str()).load();
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].file, root_.file("etc/multipath/conf.d/a.conf"));
    EXPECT_EQ(r.diagnostics[0].line, 2u);
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning);
}

TEST_F(ConfigLoaderTest, PlacesConfiguredStateFilesUnderTheRoot) {
    write("etc/multipath.conf", "defaults {\n bindings_file /var/lib/mpath/bindings\n}\n");
    Loader loader(root_.str() + "/");
    ConfigResult r = loader.load();
    EXPECT_EQ(loader.underRoot(r.config.effectiveGlobals().bindingsFile.value),
              root_.file("var/lib/mpath/bindings"));
    EXPECT_EQ(Loader("/").underRoot("/etc/multipath/wwids"), "/etc/multipath/wwids");
}
