// mpathconf as Red Hat's tools and libblockdev's mpath plugin run it
// (cli/mpathconf.cpp): the real program on a multipath.conf of the test's.

#include "mpath/config/parser.h"
#include "temp_dir.h"
#include "test_file.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef MPATHCONF

namespace {

class MpathconfTest : public ::testing::Test {
protected:
    struct Run {
        int status;
        std::string out, err;
    };

    Run run(const std::string &args) {
        const std::string cmd = "MPATH_MULTIPATH_CONF=" + conf_ + " " MPATHCONF " " + args + " >" +
                                dir_.file("out") + " 2>" + dir_.file("err");
        const int st = std::system(cmd.c_str());
        return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, mpath_test::readFile(dir_.file("out")),
                mpath_test::readFile(dir_.file("err"))};
    }

    mpath_test::TempDir dir_{"mpathconf"};
    std::string conf_ = dir_.file("multipath.conf");
};

// What libblockdev's set_friendly_names runs, less --with_multipathd.
TEST_F(MpathconfTest, SetsFriendlyNamesAndFindMultipathsKeepingEveryOtherLine) {
    mpath_test::writeFile(conf_, "# site settings\n"
                                 "defaults {\n"
                                 "    polling_interval 10\n"
                                 "    user_friendly_names no\n"
                                 "}\n"
                                 "blacklist {\n"
                                 "    devnode \"^nvme\"\n"
                                 "}\n");
    const Run r = run("--find_multipaths y --user_friendly_names y");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(mpath_test::readFile(conf_), "# site settings\n"
                                           "defaults {\n"
                                           "    polling_interval 10\n"
                                           "    user_friendly_names yes\n"
                                           "    find_multipaths yes\n"
                                           "}\n"
                                           "blacklist {\n"
                                           "    devnode \"^nvme\"\n"
                                           "}\n");
    const Run s = run("");
    EXPECT_EQ(s.status, 0);
    EXPECT_NE(s.out.find("multipath is enabled\n"), std::string::npos) << s.out;
    EXPECT_NE(s.out.find("find_multipaths is on\n"), std::string::npos) << s.out;
    EXPECT_NE(s.out.find("user_friendly_names is enabled\n"), std::string::npos) << s.out;
}

TEST_F(MpathconfTest, DisableAndEnableBlacklistEveryDeviceAndTakeItAway) {
    EXPECT_EQ(run("--disable").status, 0);
    EXPECT_EQ(mpath_test::readFile(conf_), "blacklist {\n\tdevnode \".*\"\n}\n");
    EXPECT_NE(run("").out.find("multipath is disabled\n"), std::string::npos);
    EXPECT_EQ(run("--enable").status, 0);
    EXPECT_EQ(mpath_test::readFile(conf_), "blacklist {\n}\n");
    EXPECT_NE(run("").out.find("multipath is enabled\n"), std::string::npos);
}

// As Red Hat's: --enable without a file writes a default one; the
// allowlist form (every WWID blacklisted, some excepted) is not "off".
TEST_F(MpathconfTest, EnableWritesADefaultFileAndLeavesAnAllowlistAlone) {
    EXPECT_EQ(run("--enable").status, 0);
    EXPECT_EQ(mpath_test::readFile(conf_),
              "defaults {\n\tuser_friendly_names yes\n\tfind_multipaths yes\n}\n");
    const std::string allowlist = "blacklist {\n\twwid \".*\"\n}\n"
                                  "blacklist_exceptions {\n\twwid \"3600a\"\n}\n";
    mpath_test::writeFile(conf_, allowlist);
    EXPECT_EQ(run("--enable").status, 0);
    EXPECT_EQ(mpath_test::readFile(conf_), allowlist);
    EXPECT_NE(run("").out.find("multipath is enabled\n"), std::string::npos);
}

// A multipath.conf that is a symlink stays one: the file it names changes.
TEST_F(MpathconfTest, ASymlinkedFileIsChangedThroughTheLink) {
    const std::string real = dir_.file("real.conf");
    mpath_test::writeFile(real, "defaults {\n}\n");
    ASSERT_EQ(::chmod(real.c_str(), 0640), 0);
    ASSERT_EQ(::symlink(real.c_str(), conf_.c_str()), 0);
    EXPECT_EQ(run("--user_friendly_names y").status, 0);
    struct stat st {};
    ASSERT_EQ(::lstat(conf_.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    EXPECT_EQ(mpath_test::readFile(real), "defaults {\n\tuser_friendly_names yes\n}\n");
    ASSERT_EQ(::stat(real.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_FALSE(std::filesystem::exists(real + ".mpathconf-new"));
}

TEST_F(MpathconfTest, OutfileLeavesTheFileReadAsItWas) {
    mpath_test::writeFile(conf_, "defaults {\n}\n");
    EXPECT_EQ(run("--user_friendly_names n --outfile " + dir_.file("new.conf")).status, 0);
    EXPECT_EQ(mpath_test::readFile(conf_), "defaults {\n}\n");
    EXPECT_EQ(mpath_test::readFile(dir_.file("new.conf")),
              "defaults {\n\tuser_friendly_names no\n}\n");
}

TEST_F(MpathconfTest, BadInputIsRefusedNamingItAndChangesNothing) {
    const std::string text = "defaults {\n\tuser_friendly_names no\n}\n";
    mpath_test::writeFile(conf_, text);
    const Run value = run("--user_friendly_names maybe");
    EXPECT_EQ(value.status, 1);
    EXPECT_EQ(value.err, "mpathconf: --user_friendly_names takes y or n, not 'maybe'\n");
    const Run find = run("--find_multipaths sometimes");
    EXPECT_EQ(find.status, 1);
    EXPECT_NE(find.err.find("not 'sometimes'"), std::string::npos) << find.err;
    const Run missing = run("--with_multipathd");
    EXPECT_EQ(missing.status, 1);
    EXPECT_EQ(missing.err, "mpathconf: --with_multipathd needs a value\n");
    const Run unknown = run("--property_blacklist y");
    EXPECT_EQ(unknown.status, 1);
    EXPECT_NE(unknown.err.find("--property_blacklist is not served"), std::string::npos)
        << unknown.err;
    EXPECT_EQ(run("--enable --disable").status, 1);
    EXPECT_EQ(mpath_test::readFile(conf_), text);
    // A file multipath-tools refuses stays as it is, and says why.
    const std::string bad = "blacklist {\n\tdevnode \"^(ram\"\n}\n";
    mpath_test::writeFile(conf_, bad);
    const Run refused = run("--user_friendly_names y");
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.err.find("left unchanged"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find(":2: invalid value '^(ram' for devnode"), std::string::npos)
        << refused.err;
    EXPECT_EQ(mpath_test::readFile(conf_), bad);
}

} // namespace

#endif
