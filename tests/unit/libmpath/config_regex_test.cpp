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
