#include "mpath/config/regex.h"

#include <atomic>
#include <cerrno>
#include <gtest/gtest.h>
#include <regex.h>
#include <thread>
#include <vector>

using namespace mpath::config;

namespace {

// What regcomp() itself says about \a pattern; "" when it compiles.
std::string regcompMessage(const std::string &pattern) {
    regex_t re;
    int rc = regcomp(&re, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc == 0) {
        regfree(&re);
        return "";
    }
    char buf[256];
    regerror(rc, &re, buf, sizeof(buf));
    return buf;
}

} // namespace

TEST(ConfigRegex, MatchesUnanchoredLikeMultipathTools) {
    auto r = Regex::compile("sd");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r->matches("xsdy"));
    EXPECT_FALSE(Regex::compile("^sd")->matches("xsdy"));
    EXPECT_TRUE(Regex::compile("^(ram|loop)[0-9]*")->matches("loop7"));
    EXPECT_TRUE(Regex().matches("anything"));
}

TEST(ConfigRegex, ABuiltinPatternMatchesAsACompiledOneOnceFirstUsed) {
    const Regex r = Regex::builtin("^(sd[a-z]|nvme[0-9])");
    const Regex copy = r; // shares the expression, compiled or not
    EXPECT_EQ(r, *Regex::compile("^(sd[a-z]|nvme[0-9])"));
    EXPECT_TRUE(copy.matches("sdb"));
    EXPECT_TRUE(r.matches("nvme0n1"));
    EXPECT_FALSE(r.matches("dm-0"));
    EXPECT_TRUE(Regex::builtin("").matches("anything"));
    // A built-in pattern is the program's own and known to compile; were
    // one broken, it would match nothing rather than everything.
    EXPECT_FALSE(Regex::builtin("(").matches("("));
}

TEST(ConfigRegex, APatternWithoutSpecialCharactersMatchesAsRegexecWould) {
    // Such patterns are matched as strings, never compiled: every answer
    // must be regexec()'s.
    const std::vector<std::string> patterns = {"NETAPP", "^DGC",  "LUN$", "^PURE$", "Vol 1",
                                               "^",      "$",     "^$",   "a.b",    "^(HP|HPE)$",
                                               "IBM",    "^IBM$", "-",    "_x_"};
    const std::vector<std::string> texts = {"",    "NETAPP", "XNETAPPY", "DGC",   "ADGC",
                                            "LUN", "LUNX",   "PURE",     "PUREX", "Vol 1",
                                            "a-b", "HP",     "HPE",      "IBM",   "_x_"};
    for (const auto &p : patterns) {
        regex_t re;
        ASSERT_EQ(regcomp(&re, p.c_str(), REG_EXTENDED | REG_NOSUB), 0) << p;
        for (const auto &t : texts) {
            const bool want = regexec(&re, t.c_str(), 0, nullptr, 0) == 0;
            EXPECT_EQ(Regex::compile(p)->matches(t), want) << "'" << p << "' on '" << t << "'";
            EXPECT_EQ(Regex::builtin(p).matches(t), want) << "'" << p << "' on '" << t << "'";
        }
        regfree(&re);
    }
}

TEST(ConfigRegex, ThreadsMatchingABuiltinPatternFirstCompileItOnce) {
    // Under ThreadSanitizer this is the race the lazy compile must not
    // have: several threads match a pattern nobody matched before.
    for (int round = 0; round < 20; ++round) {
        const Regex r = Regex::builtin("^LIO-ORG|^SANBlaze");
        std::vector<std::thread> threads;
        std::atomic<int> hits{0};
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&r, &hits] { hits += r.matches("LIO-ORG") ? 1 : 0; });
        for (auto &t : threads)
            t.join();
        EXPECT_EQ(hits.load(), 4);
    }
}

TEST(ConfigRegex, ReportsCompileErrors) {
    auto r = Regex::compile("(");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.code(), EINVAL);
    EXPECT_FALSE(r.error().message.empty());
    EXPECT_EQ(r.error().message, regcompMessage("("));
}

TEST(ConfigRegex, RefusesStackedRepetitionsThatWouldExhaustMemory) {
    auto r = Regex::compile("1ailove" + std::string(20, '+') + "r");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.code(), EINVAL);
    EXPECT_EQ(r.error().message, "too complex: nested or stacked repetitions");
    EXPECT_FALSE(Regex::compile("((((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)+)+"));
    EXPECT_FALSE(Regex::compile("((a{99}){99}){99}"));
    // glibc reads "{,m}" as "{0,m}": without a lower bound it still copies.
    auto unbounded = Regex::compile("((a{,30}){,30}){,30}");
    ASSERT_FALSE(unbounded);
    EXPECT_EQ(unbounded.error().message, "too complex: nested or stacked repetitions");
    // Optional copies nest, and glibc's closures over them grow with their
    // square: one "{,3000}" alone takes 70 MB, where "{3000}" takes 2.
    EXPECT_FALSE(Regex::compile("a{,3000}"));
    EXPECT_TRUE(Regex::compile("a{3000}"));
    EXPECT_FALSE(Regex::compile(std::string(5000, 'a')));
}

TEST(ConfigRegex, AcceptsTheRepetitionsRealPatternsUse) {
    for (const char *p :
         {"^(ram|raw|loop|fd|md|dm-|sr|scd|st)[0-9]*", "^hd[a-z]", "^sd[a-z]{1,3}$",
          "(SCSI_IDENT_|ID_WWN)", "^(1722-600|1724|1726)", "[[:alnum:]]+-[0-9]{1,4}",
          "^nvme[0-9]+n[0-9]+(p[0-9]+)?$", "3600a0980[0-9a-f]{23}"}) {
        auto r = Regex::compile(p);
        EXPECT_TRUE(r) << p << ": " << (r ? "" : r.error().message);
    }
    EXPECT_TRUE(Regex::compile("^sd[a-z]{1,3}$")->matches("sdaa"));
    EXPECT_TRUE(Regex::compile("[]x]")->matches("]"));
    EXPECT_TRUE(Regex::compile("^sd[a-z]{,2}$")->matches("sdab"));
}
