#include "mpath/wwids_file.h"
#include "temp_dir.h"
#include "test_file.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace mpath;
namespace fs = std::filesystem;

namespace {

const char *kMultipathToolsFile = R"(# Multipath wwids, Version : 1.0
# NOTE: This file is automatically maintained by multipath and multipathd.
# You should not need to edit this file in normal circumstances.
#
# Valid WWIDs:
/3600a098038303053453f463045727a47/
/36001405abcdef0123456789abcdef012/
)";

class WwidsFileTest : public ::testing::Test {
protected:
    void write(const std::string &text) {
        fs::create_directories(fs::path(path_).parent_path());
        std::ofstream(path_) << text;
    }
    std::string read() { return mpath_test::readFile(path_); }

    mpath_test::TempDir dir_{"mpath-wwids"};
    std::string path_ = dir_.file("etc/multipath/wwids");
};

} // namespace

TEST(WwidsFile, ParsesMultipathToolsFile) {
    std::vector<Diagnostic> diags;
    auto wwids = WwidsFile::parse(kMultipathToolsFile, "wwids", &diags);
    EXPECT_TRUE(diags.empty());
    EXPECT_EQ(wwids, (std::vector<std::string>{"3600a098038303053453f463045727a47",
                                               "36001405abcdef0123456789abcdef012"}));
}

TEST(WwidsFile, SerializesExactlyAsMultipathToolsWrites) {
    EXPECT_EQ(WwidsFile::serialize(
                  {"3600a098038303053453f463045727a47", "36001405abcdef0123456789abcdef012"}),
              kMultipathToolsFile);
}

TEST(WwidsFile, RoundTripsThroughText) {
    std::vector<std::string> wwids{"a", "nvme.1b36-31323334-51454d55-00000001", "eui.0025"};
    EXPECT_EQ(WwidsFile::parse(WwidsFile::serialize(wwids), "wwids"), wwids);
}

TEST(WwidsFile, WarnsAboutMalformedLinesAndSkipsThem) {
    std::vector<Diagnostic> diags;
    auto wwids =
        WwidsFile::parse("/good/\nbad\n/half\n//\n  /spaced/  \n/good/\n", "wwids", &diags);
    EXPECT_EQ(wwids, (std::vector<std::string>{"good", "spaced"}));
    ASSERT_EQ(diags.size(), 3u);
    EXPECT_EQ(diags[0].toString(), "wwids:2: malformed line; expected '/wwid/'; ignored");
    EXPECT_EQ(diags[0].severity, Diagnostic::Severity::Warning);
    EXPECT_EQ(diags[1].line, 3u);
    EXPECT_EQ(diags[2].line, 4u);
}

TEST(WwidsFile, KeepsInnerBlanksOfOldSerials) {
    std::vector<std::string> wwids{"1ATA     VBOX HARDDISK   VB1"};
    EXPECT_EQ(WwidsFile::parse(WwidsFile::serialize(wwids), "wwids"), wwids);
}

TEST_F(WwidsFileTest, MissingFileListsNothing) {
    WwidsFile f(path_);
    std::vector<std::string> wwids{"stale"};
    ASSERT_EQ(f.load(wwids), 0);
    EXPECT_TRUE(wwids.empty());
    EXPECT_EQ(f.contains("x"), 0);
}

TEST_F(WwidsFileTest, AddWritesTheFileWithItsHeader) {
    WwidsFile f(path_);
    EXPECT_EQ(f.add("3600a098038303053453f463045727a47"), 1);
    EXPECT_EQ(f.add("3600a098038303053453f463045727a47"), 0);
    EXPECT_EQ(f.add("36001405abcdef0123456789abcdef012"), 1);
    EXPECT_EQ(read(), kMultipathToolsFile);
    EXPECT_EQ(f.contains("36001405abcdef0123456789abcdef012"), 1);
}

TEST_F(WwidsFileTest, AddRejectsUnwritableWwids) {
    WwidsFile f(path_);
    EXPECT_EQ(f.add(""), -EINVAL);
    EXPECT_EQ(f.add("a/b"), -EINVAL);
    EXPECT_EQ(f.add(" ab"), -EINVAL);
    EXPECT_EQ(f.add("a\nb"), -EINVAL);
    EXPECT_FALSE(fs::exists(path_));
}

TEST_F(WwidsFileTest, RemoveKeepsTheOthers) {
    write(kMultipathToolsFile);
    WwidsFile f(path_);
    EXPECT_EQ(f.remove("3600a098038303053453f463045727a47"), 1);
    EXPECT_EQ(f.remove("3600a098038303053453f463045727a47"), 0);
    std::vector<std::string> wwids;
    ASSERT_EQ(f.load(wwids), 0);
    EXPECT_EQ(wwids, (std::vector<std::string>{"36001405abcdef0123456789abcdef012"}));
}

TEST_F(WwidsFileTest, ConcurrentWritersLoseNoWwid) {
    constexpr int kProcs = 4;
    constexpr int kPerProc = 30;
    std::vector<pid_t> kids;
    for (int p = 0; p < kProcs; ++p) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            WwidsFile f(path_);
            for (int i = 0; i < kPerProc; ++i)
                if (f.add("w" + std::to_string(p) + "-" + std::to_string(i)) != 1)
                    _exit(1);
            _exit(0);
        }
        kids.push_back(pid);
    }
    for (pid_t pid : kids) {
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    WwidsFile f(path_);
    std::vector<std::string> wwids;
    std::vector<Diagnostic> diags;
    ASSERT_EQ(f.load(wwids, &diags), 0);
    EXPECT_TRUE(diags.empty());
    EXPECT_EQ(wwids.size(), size_t(kProcs * kPerProc));
    EXPECT_EQ(std::set<std::string>(wwids.begin(), wwids.end()).size(), wwids.size());
}
