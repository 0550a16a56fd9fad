#include "mpath/state/wwids_file.h"
#include "temp_dir.h"
#include "test_file.h"

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace mpath::state;
using namespace std::chrono_literals;
using mpath::config::Diagnostic;
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

// What \a r says: true or false, or nullopt (and a failure with the
// error's message) when it failed.
std::optional<bool> valueOf(const mpath::Result<bool> &r) {
    if (!r) {
        ADD_FAILURE() << r.error().message;
        return std::nullopt;
    }
    return *r;
}

class WwidsFileTest : public ::testing::Test {
protected:
    void write(const std::string &text) { mpath_test::writeFile(path_, text); }
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
    auto wwids = f.load();
    ASSERT_TRUE(wwids) << wwids.error().message;
    EXPECT_TRUE(wwids->empty());
    EXPECT_EQ(valueOf(f.contains("x")), false);
}

TEST_F(WwidsFileTest, AddWritesTheFileWithItsHeader) {
    WwidsFile f(path_);
    EXPECT_EQ(valueOf(f.add("3600a098038303053453f463045727a47")), true);
    EXPECT_EQ(valueOf(f.add("3600a098038303053453f463045727a47")), false);
    EXPECT_EQ(valueOf(f.add("36001405abcdef0123456789abcdef012")), true);
    EXPECT_EQ(read(), kMultipathToolsFile);
    EXPECT_EQ(valueOf(f.contains("36001405abcdef0123456789abcdef012")), true);
}

TEST_F(WwidsFileTest, AddRejectsUnwritableWwids) {
    WwidsFile f(path_);
    EXPECT_EQ(f.add("").code(), EINVAL);
    EXPECT_EQ(f.add("a/b").code(), EINVAL);
    EXPECT_EQ(f.add(" ab").code(), EINVAL);
    EXPECT_EQ(f.add("a\nb").code(), EINVAL);
    EXPECT_FALSE(fs::exists(path_));
}

TEST_F(WwidsFileTest, AddAllListsTheNewOnesInOrderAndNamesThoseItRefused) {
    write(kMultipathToolsFile);
    WwidsFile f(path_);
    auto refused = f.addAll({"36001405abcdef0123456789abcdef012", "w2", "a/b", "w1", "w2"});
    ASSERT_TRUE(refused) << refused.error().message;
    EXPECT_EQ(*refused, (std::vector<std::string>{"a/b"}));
    auto wwids = f.load();
    ASSERT_TRUE(wwids) << wwids.error().message;
    EXPECT_EQ(*wwids, (std::vector<std::string>{"3600a098038303053453f463045727a47",
                                                "36001405abcdef0123456789abcdef012", "w2", "w1"}));
}

TEST_F(WwidsFileTest, AddAllOfOnlyRefusedWwidsLeavesNoFile) {
    WwidsFile f(path_);
    auto refused = f.addAll({"", " ab"});
    ASSERT_TRUE(refused) << refused.error().message;
    EXPECT_EQ(refused->size(), 2u);
    EXPECT_FALSE(fs::exists(path_));
}

TEST_F(WwidsFileTest, RemoveKeepsTheOthers) {
    write(kMultipathToolsFile);
    WwidsFile f(path_);
    EXPECT_EQ(valueOf(f.remove("3600a098038303053453f463045727a47")), true);
    EXPECT_EQ(valueOf(f.remove("3600a098038303053453f463045727a47")), false);
    auto wwids = f.load();
    ASSERT_TRUE(wwids) << wwids.error().message;
    EXPECT_EQ(*wwids, (std::vector<std::string>{"36001405abcdef0123456789abcdef012"}));
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
            for (int i = 0; i < kPerProc; ++i) {
                // Long enough for the others' turns: none may give up.
                auto added = f.add("w" + std::to_string(p) + "-" + std::to_string(i), 10s);
                if (!added || !*added)
                    _exit(1);
            }
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
    std::vector<Diagnostic> diags;
    auto wwids = f.load(&diags);
    ASSERT_TRUE(wwids) << wwids.error().message;
    EXPECT_TRUE(diags.empty());
    EXPECT_EQ(wwids->size(), size_t(kProcs * kPerProc));
    EXPECT_EQ(std::set<std::string>(wwids->begin(), wwids->end()).size(), wwids->size());
}
