#include "mpath/config/regex.h"

#include <cerrno>
#include <gtest/gtest.h>
#include <regex.h>

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
