#include "mpath/config_regex.h"

#include <gtest/gtest.h>

using namespace mpath;

TEST(ConfigRegex, MatchesUnanchoredLikeMultipathTools) {
    ConfigRegex r = ConfigRegex::compile("sd");
    EXPECT_TRUE(r.matches("xsdy"));
    EXPECT_FALSE(ConfigRegex::compile("^sd").matches("xsdy"));
    EXPECT_TRUE(ConfigRegex::compile("^(ram|loop)[0-9]*").matches("loop7"));
    EXPECT_TRUE(ConfigRegex().matches("anything"));
}

TEST(ConfigRegex, ReportsCompileErrors) {
    std::string why;
    ConfigRegex r = ConfigRegex::compile("(", &why);
    EXPECT_FALSE(r.valid());
    EXPECT_FALSE(why.empty());
    EXPECT_FALSE(r.matches("("));
}

TEST(ConfigRegex, RefusesStackedRepetitionsThatWouldExhaustMemory) {
    std::string why;
    ConfigRegex r = ConfigRegex::compile("1ailove" + std::string(20, '+') + "r", &why);
    EXPECT_FALSE(r.valid());
    EXPECT_EQ(why, "too complex: nested or stacked repetitions");
    EXPECT_FALSE(ConfigRegex::compile("((((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)+)+").valid());
    EXPECT_FALSE(ConfigRegex::compile("((a{99}){99}){99}").valid());
    EXPECT_FALSE(ConfigRegex::compile(std::string(5000, 'a')).valid());
}

TEST(ConfigRegex, AcceptsTheRepetitionsRealPatternsUse) {
    for (const char *p :
         {"^(ram|raw|loop|fd|md|dm-|sr|scd|st)[0-9]*", "^hd[a-z]", "^sd[a-z]{1,3}$",
          "(SCSI_IDENT_|ID_WWN)", "^(1722-600|1724|1726)", "[[:alnum:]]+-[0-9]{1,4}",
          "^nvme[0-9]+n[0-9]+(p[0-9]+)?$", "3600a0980[0-9a-f]{23}"}) {
        ConfigRegex r = ConfigRegex::compile(p);
        EXPECT_TRUE(r.valid()) << p;
    }
    EXPECT_TRUE(ConfigRegex::compile("^sd[a-z]{1,3}$").matches("sdaa"));
    EXPECT_TRUE(ConfigRegex::compile("[]x]").matches("]"));
}
