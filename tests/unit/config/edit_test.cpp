#include "mpath/config/edit.h"
#include "mpath/config/parser.h"

#include <gtest/gtest.h>

using namespace mpath::config;

namespace {

TEST(ConfigEdit, ReplacesTheLastLineThatSetsTheKeywordAndKeepsTheRest) {
    const std::string text = "# the site's file\n"
                             "defaults {\n"
                             "    user_friendly_names no   # set by hand\n"
                             "    polling_interval 10\n"
                             "}\n"
                             "devices {\n"
                             "    device {\n"
                             "        vendor X\n"
                             "        user_friendly_names no\n"
                             "    }\n"
                             "}\n";
    EXPECT_EQ(setDefault(text, "user_friendly_names", "yes"), "# the site's file\n"
                                                              "defaults {\n"
                                                              "    user_friendly_names yes\n"
                                                              "    polling_interval 10\n"
                                                              "}\n"
                                                              "devices {\n"
                                                              "    device {\n"
                                                              "        vendor X\n"
                                                              "        user_friendly_names no\n"
                                                              "    }\n"
                                                              "}\n");
}

TEST(ConfigEdit, AddsTheKeywordBeforeTheClosingBraceIndentedAsItsNeighbours) {
    const std::string text = "defaults {\n  polling_interval 10\n}\nblacklist {\n}\n";
    const std::string out = setDefault(text, "find_multipaths", "yes");
    EXPECT_EQ(out, "defaults {\n  polling_interval 10\n  find_multipaths yes\n}\nblacklist {\n}\n");
    const ConfigResult r = parseString(out);
    EXPECT_EQ(r.config.globals.findMultipaths.value_or(FindMultipaths::Off), FindMultipaths::On);
}

TEST(ConfigEdit, AddsADefaultsSectionWhenThereIsNone) {
    EXPECT_EQ(setDefault("", "user_friendly_names", "yes"),
              "defaults {\n\tuser_friendly_names yes\n}\n");
    EXPECT_EQ(setDefault("blacklist {\n}\n", "user_friendly_names", "no"),
              "blacklist {\n}\n\ndefaults {\n\tuser_friendly_names no\n}\n");
}

TEST(ConfigEdit, ABraceOnTheLastBodyLineGoesOnALineOfItsOwn) {
    EXPECT_EQ(setDefault("defaults { polling_interval 10 }\n", "user_friendly_names", "yes"),
              "defaults { polling_interval 10\n\tuser_friendly_names yes\n}\n");
}

TEST(ConfigEdit, AQuotedWordOrACommentIsNotASetting) {
    const std::string text = "defaults {\n"
                             "#   user_friendly_names no\n"
                             "    alias_prefix \"user_friendly_names\"\n"
                             "}\n";
    EXPECT_EQ(setDefault(text, "user_friendly_names", "yes"),
              "defaults {\n"
              "#   user_friendly_names no\n"
              "    alias_prefix \"user_friendly_names\"\n"
              "    user_friendly_names yes\n"
              "}\n");
}

TEST(ConfigEdit, DisableAddsTheBlacklistAllLineOnceAndEnableTakesEveryFormAway) {
    const std::string text = "defaults {\n\tuser_friendly_names yes\n}\n"
                             "blacklist {\n\tdevnode \"^nvme\"\n}\n";
    const std::string off = blacklistAllDevices(text);
    EXPECT_EQ(off, "defaults {\n\tuser_friendly_names yes\n}\n"
                   "blacklist {\n\tdevnode \"^nvme\"\n\tdevnode \".*\"\n}\n");
    EXPECT_EQ(blacklistAllDevices(off), off);
    bool removed = false;
    EXPECT_EQ(allowAllDevices(off, removed), text);
    EXPECT_TRUE(removed);
    EXPECT_EQ(allowAllDevices("blacklist {\n  wwid \"*\"\n  devnode \"^sd\"\n}\n", removed),
              "blacklist {\n  devnode \"^sd\"\n}\n");
    EXPECT_TRUE(removed);
    EXPECT_EQ(allowAllDevices(text, removed), text);
    EXPECT_FALSE(removed);
    // Only the top-level blacklist: an exception naming every device stays.
    const std::string exceptions = "blacklist_exceptions {\n\tdevnode \".*\"\n}\n";
    EXPECT_EQ(allowAllDevices(exceptions, removed), exceptions);
    EXPECT_FALSE(removed);
    EXPECT_EQ(blacklistAllDevices(""), "blacklist {\n\tdevnode \".*\"\n}\n");
}

} // namespace
