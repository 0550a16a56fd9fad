#include "mpath/state/bindings.h"
#include "mpath/state/bindings_file.h"
#include "temp_dir.h"
#include "test_file.h"

#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mpath::state;
using namespace std::chrono_literals;
using mpath::config::Diagnostic;
namespace fs = std::filesystem;

namespace {

// A bindings file as multipath-tools writes it, with an admin's edits.
const char *kMultipathToolsFile = R"(# Multipath bindings, Version : 1.0
# NOTE: this file is automatically maintained by the multipath program.
# You should not need to edit this file in normal circumstances.
#
# Format:
# alias wwid
#
mpatha 3600a098038303053453f463045727a47
mpathb 36001405abcdef0123456789abcdef012   # added by hand

	mpathd	360014059999999999999999999999999
)";

class BindingsFileTest : public ::testing::Test {
protected:
    void write(const std::string &text) { mpath_test::writeFile(path_, text); }
    std::string read() { return mpath_test::readFile(path_); }

    mpath_test::TempDir dir_{"mpath-bindings"};
    std::string path_ = dir_.file("etc/multipath/bindings");
};

} // namespace

// ---------------------------------------------------------------------------
// Alias names
// ---------------------------------------------------------------------------

TEST(Bindings, AliasNamesRunFromAToZThenAA) {
    EXPECT_EQ(Bindings::aliasName("mpath", 0), "mpatha");
    EXPECT_EQ(Bindings::aliasName("mpath", 25), "mpathz");
    EXPECT_EQ(Bindings::aliasName("mpath", 26), "mpathaa");
    EXPECT_EQ(Bindings::aliasName("mpath", 27), "mpathab");
    EXPECT_EQ(Bindings::aliasName("mpath", 51), "mpathaz");
    EXPECT_EQ(Bindings::aliasName("mpath", 52), "mpathba");
    EXPECT_EQ(Bindings::aliasName("mpath", 701), "mpathzz");
    EXPECT_EQ(Bindings::aliasName("mpath", 702), "mpathaaa");
    EXPECT_EQ(Bindings::aliasName("data", 1), "datab");
}

TEST(Bindings, AliasIndexInvertsAliasName) {
    for (unsigned i : {0u, 1u, 25u, 26u, 51u, 52u, 701u, 702u, 18277u, 18278u})
        EXPECT_EQ(Bindings::aliasIndex("mpath", Bindings::aliasName("mpath", i)), i);
    EXPECT_EQ(Bindings::aliasIndex("mpath", "mpath"), std::nullopt);
    EXPECT_EQ(Bindings::aliasIndex("mpath", "mpathA"), std::nullopt);
    EXPECT_EQ(Bindings::aliasIndex("mpath", "mpath1"), std::nullopt);
    EXPECT_EQ(Bindings::aliasIndex("mpath", "other"), std::nullopt);
    EXPECT_EQ(Bindings::aliasIndex("mpath", "mpathzzzzzzzzzzzz"), std::nullopt);
}

TEST(Bindings, NextFreeAliasStartsAtMpatha) {
    Bindings b;
    EXPECT_EQ(b.nextFreeAlias("mpath"), "mpatha");
}

TEST(Bindings, NextFreeAliasGoesFromMpathzToMpathaa) {
    Bindings b;
    for (unsigned i = 0; i < 26; ++i)
        ASSERT_TRUE(b.add(b.nextFreeAlias("mpath"), "wwid" + std::to_string(i)));
    EXPECT_EQ(b.entries().back().alias, "mpathz");
    EXPECT_EQ(b.nextFreeAlias("mpath"), "mpathaa");
}

TEST(Bindings, NextFreeAliasFillsTheFirstGap) {
    Bindings b;
    ASSERT_TRUE(b.add("mpatha", "1"));
    ASSERT_TRUE(b.add("mpathc", "3"));
    EXPECT_EQ(b.nextFreeAlias("mpath"), "mpathb");
}

TEST(Bindings, NextFreeAliasSkipsReservedAndIgnoresOtherPrefixes) {
    Bindings b;
    ASSERT_TRUE(b.add("mpatha", "1"));
    ASSERT_TRUE(b.add("datab", "2"));
    EXPECT_EQ(b.nextFreeAlias("mpath", {"mpathb", "oracle"}), "mpathc");
    EXPECT_EQ(b.nextFreeAlias("data"), "dataa");
}

TEST(Bindings, RefusesSecondBindingForAliasOrWwid) {
    Bindings b;
    ASSERT_TRUE(b.add("mpatha", "1"));
    EXPECT_EQ(b.add("mpatha", "2").code(), EEXIST);
    EXPECT_EQ(b.add("mpathb", "1").code(), EEXIST);
    EXPECT_EQ(b.add("mpath c", "3").code(), EINVAL);
    EXPECT_EQ(b.add("", "3").code(), EINVAL);
    EXPECT_EQ(b.add("mpathc", "").code(), EINVAL);
    EXPECT_EQ(b.add("mpathc", " 3").code(), EINVAL);
    EXPECT_EQ(b.add("mpathc", "3#4").code(), EINVAL);
    EXPECT_EQ(b.add("mpathc", "3\n4").code(), EINVAL);
    EXPECT_EQ(b.entries().size(), 1u);
}

TEST(Bindings, RemoveDropsOnlyThatWwid) {
    Bindings b;
    ASSERT_TRUE(b.add("mpatha", "1"));
    ASSERT_TRUE(b.add("mpathb", "2"));
    EXPECT_TRUE(b.remove("1"));
    EXPECT_EQ(b.remove("1").code(), ENOENT);
    EXPECT_EQ(b.aliasFor("2"), "mpathb");
    EXPECT_EQ(b.nextFreeAlias("mpath"), "mpatha");
}

// ---------------------------------------------------------------------------
// File format
// ---------------------------------------------------------------------------

TEST(Bindings, ParsesMultipathToolsFileWithComments) {
    BindingsParseResult r = Bindings::parse(kMultipathToolsFile, "bindings");
    EXPECT_TRUE(r.diagnostics.empty());
    ASSERT_EQ(r.bindings.entries().size(), 3u);
    EXPECT_EQ(r.bindings.aliasFor("3600a098038303053453f463045727a47"), "mpatha");
    EXPECT_EQ(r.bindings.aliasFor("36001405abcdef0123456789abcdef012"), "mpathb");
    EXPECT_EQ(r.bindings.wwidFor("mpathd"), "360014059999999999999999999999999");
    EXPECT_EQ(r.bindings.nextFreeAlias("mpath"), "mpathc");
}

TEST(Bindings, RejectsDuplicateAliasLine) {
    BindingsParseResult r = Bindings::parse("mpatha 1\nmpathb 2\nmpatha 3\n", "bindings");
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].toString(),
              "bindings:3: alias 'mpatha' is already bound to 1; line ignored");
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Error);
    EXPECT_EQ(r.bindings.wwidFor("mpatha"), "1");
    EXPECT_EQ(r.bindings.aliasFor("3"), std::nullopt);
}

TEST(Bindings, RejectsSecondAliasForAWwid) {
    BindingsParseResult r = Bindings::parse("mpatha 1\nmpathb 1\n", "bindings");
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].toString(),
              "bindings:2: wwid 1 is already bound to 'mpatha'; line ignored");
}

TEST(Bindings, RejectsAliasWithoutWwid) {
    BindingsParseResult r = Bindings::parse("mpatha\nmpathb   # no wwid\nmpathc 3\n", "bindings");
    ASSERT_EQ(r.diagnostics.size(), 2u);
    EXPECT_EQ(r.diagnostics[0].toString(),
              "bindings:1: malformed binding; expected 'alias wwid'; line ignored");
    EXPECT_EQ(r.diagnostics[1].line, 2u);
    EXPECT_EQ(r.bindings.entries(), (std::vector<Binding>{{"mpathc", "3"}}));
}

TEST(Bindings, ReadsWwidsWithInnerBlanksAsOldSerialsHad) {
    const char *text = "mpatha 1ATA     VBOX HARDDISK       VBfe43d230-3b43fe42 \r\n"
                       "mpathb 14f504e46494c45526354355179652d\n";
    BindingsParseResult r = Bindings::parse(text, "bindings");
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_EQ(r.bindings.aliasFor("1ATA     VBOX HARDDISK       VBfe43d230-3b43fe42"), "mpatha");
    // Written back unchanged, so the next reader finds the same WWID.
    BindingsParseResult again = Bindings::parse(r.bindings.serialize(), "bindings");
    EXPECT_EQ(again.bindings, r.bindings);
}

TEST(Bindings, SerializesWithTheMultipathToolsHeaderAndRoundTrips) {
    Bindings b;
    ASSERT_TRUE(b.add("mpatha", "36001"));
    ASSERT_TRUE(b.add("oradata", "36002"));
    std::string text = b.serialize();
    EXPECT_EQ(text.rfind("# Multipath bindings, Version : 1.0\n", 0), 0u);
    EXPECT_NE(text.find("# alias wwid\n#\nmpatha 36001\noradata 36002\n"), std::string::npos);
    BindingsParseResult r = Bindings::parse(text, "bindings");
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_EQ(r.bindings, b);
}

TEST(Bindings, ACopyChangesAloneWhetherItOrTheOriginalIsChanged) {
    // Copies share their entries until one changes (a plan gets a copy).
    Bindings a;
    ASSERT_TRUE(a.add("mpatha", "36001"));
    Bindings b = a;
    ASSERT_TRUE(b.add("mpathb", "36002"));
    ASSERT_TRUE(a.remove("36001"));
    EXPECT_EQ(a.entries(), std::vector<Binding>{});
    EXPECT_EQ(b.entries(), (std::vector<Binding>{{"mpatha", "36001"}, {"mpathb", "36002"}}));
    Bindings c = b;
    EXPECT_EQ(c, b);
    ASSERT_TRUE(c.remove("36002"));
    EXPECT_NE(c, b);
    EXPECT_EQ(b.aliasFor("36002"), "mpathb");
    EXPECT_EQ(Bindings{}, a) << "an emptied one equals one never filled";
}

// ---------------------------------------------------------------------------
// The file on disk
// ---------------------------------------------------------------------------

TEST_F(BindingsFileTest, MissingFileReadsAsNoBindings) {
    BindingsFile f(path_);
    auto b = f.load();
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_TRUE(b->entries().empty());
}

TEST_F(BindingsFileTest, BindCreatesTheFileAndItsDirectory) {
    BindingsFile f(path_);
    auto alias = f.bind("36001", "mpath");
    ASSERT_TRUE(alias) << alias.error().message;
    EXPECT_EQ(*alias, "mpatha");
    std::string text = read();
    EXPECT_NE(text.find("\nmpatha 36001\n"), std::string::npos);
    struct stat st;
    ASSERT_EQ(stat(path_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(BindingsFileTest, BindReusesTheExistingAlias) {
    write(kMultipathToolsFile);
    BindingsFile f(path_);
    auto alias = f.bind("36001405abcdef0123456789abcdef012", "mpath");
    ASSERT_TRUE(alias) << alias.error().message;
    EXPECT_EQ(*alias, "mpathb");
    EXPECT_EQ(read(), kMultipathToolsFile); // nothing was rewritten
    alias = f.bind("36009", "mpath");
    ASSERT_TRUE(alias) << alias.error().message;
    EXPECT_EQ(*alias, "mpathc");
    alias = f.bind("36010", "mpath");
    ASSERT_TRUE(alias) << alias.error().message;
    EXPECT_EQ(*alias, "mpathe");
}

TEST_F(BindingsFileTest, KeepsTheModeOfAnExistingFile) {
    write("mpatha 1\n");
    chmod(path_.c_str(), 0644);
    BindingsFile f(path_);
    auto alias = f.bind("2", "mpath");
    ASSERT_TRUE(alias) << alias.error().message;
    struct stat st;
    ASSERT_EQ(stat(path_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(BindingsFileTest, DoesNotRewriteAFileWithErrors) {
    const char *broken = "mpatha 1\nmpatha 2\n";
    write(broken);
    BindingsFile f(path_);
    EXPECT_EQ(f.bind("3", "mpath").code(), EBADMSG);
    EXPECT_EQ(read(), broken);
    // Existing bindings still answer.
    auto alias = f.bind("1", "mpath");
    ASSERT_TRUE(alias) << alias.error().message;
    EXPECT_EQ(*alias, "mpatha");
    std::vector<Diagnostic> diags;
    auto b = f.load(&diags);
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_EQ(diags.size(), 1u);
}

TEST_F(BindingsFileTest, AddAndRemoveUpdateTheFile) {
    BindingsFile f(path_);
    auto added = f.add("oradata", "36001");
    ASSERT_TRUE(added) << added.error().message;
    EXPECT_EQ(f.add("oradata", "36002").code(), EEXIST);
    auto b = f.load();
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_EQ(b->aliasFor("36001"), "oradata");
    auto removed = f.remove("36001");
    ASSERT_TRUE(removed) << removed.error().message;
    EXPECT_EQ(f.remove("36001").code(), ENOENT);
    b = f.load();
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_TRUE(b->entries().empty());
}

TEST_F(BindingsFileTest, LeavesNoTemporaryFilesBehind) {
    BindingsFile f(path_);
    for (int i = 0; i < 5; ++i) {
        auto alias = f.bind(std::to_string(i), "mpath");
        ASSERT_TRUE(alias) << alias.error().message;
    }
    std::set<std::string> names;
    for (const auto &e : fs::directory_iterator(fs::path(path_).parent_path()))
        names.insert(e.path().filename());
    EXPECT_EQ(names, (std::set<std::string>{"bindings", "bindings.lock"}));
}

TEST_F(BindingsFileTest, ConcurrentProcessesNeverShareAnAlias) {
    constexpr int kProcs = 4;
    constexpr int kPerProc = 25;
    std::vector<pid_t> kids;
    for (int p = 0; p < kProcs; ++p) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            BindingsFile f(path_);
            for (int i = 0; i < kPerProc; ++i) {
                // Every process also asks for one shared WWID.
                std::string wwid = i == 0 ? "shared" : std::to_string(p) + "-" + std::to_string(i);
                // Long enough for the others' turns: none may give up.
                if (!f.bind(wwid, "mpath", {}, 10s))
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
    BindingsFile f(path_);
    std::vector<Diagnostic> diags;
    auto b = f.load(&diags);
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_TRUE(diags.empty()) << diags[0].toString();
    // Every WWID bound once, every alias unique, no gaps.
    EXPECT_EQ(b->entries().size(), size_t(kProcs * (kPerProc - 1) + 1));
    std::set<std::string> aliases;
    for (const auto &e : b->entries())
        aliases.insert(e.alias);
    EXPECT_EQ(aliases.size(), b->entries().size());
    EXPECT_EQ(b->nextFreeAlias("mpath"), Bindings::aliasName("mpath", unsigned(aliases.size())));
}

TEST_F(BindingsFileTest, ConcurrentThreadsNeverShareAnAlias) {
    constexpr int kThreads = 4;
    constexpr int kPerThread = 20;
    std::vector<std::vector<std::string>> got(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            // One object per thread, as a daemon's workers would have.
            BindingsFile f(path_);
            for (int i = 0; i < kPerThread; ++i) {
                auto alias =
                    f.bind("t" + std::to_string(t) + "-" + std::to_string(i), "mpath", {}, 10s);
                if (alias)
                    got[t].push_back(*alias);
            }
        });
    }
    for (auto &th : threads)
        th.join();
    std::set<std::string> aliases;
    for (const auto &list : got) {
        EXPECT_EQ(list.size(), size_t(kPerThread));
        aliases.insert(list.begin(), list.end());
    }
    EXPECT_EQ(aliases.size(), size_t(kThreads * kPerThread));
    auto b = BindingsFile(path_).load();
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_EQ(b->entries().size(), size_t(kThreads * kPerThread));
}

TEST_F(BindingsFileTest, AWriterWaitsForTheLockOnlyAsLongAsItIsTold) {
    // Another process holds the writer lock for 300 ms.
    fs::create_directories(fs::path(path_).parent_path());
    int pipeFds[2];
    ASSERT_EQ(pipe(pipeFds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        close(pipeFds[0]);
        int lock = open((path_ + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lock < 0 || flock(lock, LOCK_EX) != 0)
            _exit(1);
        char locked = 'l';
        if (::write(pipeFds[1], &locked, 1) != 1)
            _exit(1);
        std::this_thread::sleep_for(300ms);
        // When the lock is let go, for the parent to check that its
        // waiting writer got it only afterwards.
        auto released = std::chrono::steady_clock::now().time_since_epoch().count();
        if (::write(pipeFds[1], &released, sizeof released) != sizeof released)
            _exit(1);
        flock(lock, LOCK_UN);
        _exit(0);
    }
    close(pipeFds[1]);
    char locked = 0;
    ASSERT_EQ(::read(pipeFds[0], &locked, 1), 1) << "the lock holder failed";

    BindingsFile f(path_);
    auto start = std::chrono::steady_clock::now();
    auto refused = f.bind("36001", "mpath", {}, 0ms);
    auto refusedAfter = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    EXPECT_EQ(refused.code(), EWOULDBLOCK);
    EXPECT_LT(refusedAfter.count(), 150) << "ms; a writer told not to wait does not wait";
    EXPECT_FALSE(fs::exists(path_));

    auto alias = f.bind("36001", "mpath", {}, 2s);
    auto done = std::chrono::steady_clock::now().time_since_epoch().count();
    ASSERT_TRUE(alias) << alias.error().message;
    EXPECT_EQ(*alias, "mpatha");

    decltype(done) released = 0;
    EXPECT_EQ(::read(pipeFds[0], &released, sizeof released), ssize_t(sizeof released));
    EXPECT_LE(released, done) << "the writer got the lock after the holder let go";
    close(pipeFds[0]);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
