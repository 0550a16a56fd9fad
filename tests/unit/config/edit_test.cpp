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
    EXPECT_EQ(setDefault(text, "user_friendly_names", "yes"),
              "# the site's file\n"
              "defaults {\n"
              "    user_friendly_names yes # set by hand\n"
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

TEST(ConfigEdit, DisableAddsTheBlacklistAllLineOnceAndEnableTakesItAway) {
    const std::string text = "defaults {\n\tuser_friendly_names yes\n}\n"
                             "blacklist {\n\tdevnode \"^nvme\"\n}\n";
    const std::string off = blacklistAllDevices(text);
    EXPECT_EQ(off, "defaults {\n\tuser_friendly_names yes\n}\n"
                   "blacklist {\n\tdevnode \"^nvme\"\n\tdevnode \".*\"\n}\n");
    EXPECT_EQ(blacklistAllDevices(off), off);
    bool removed = false;
    EXPECT_EQ(allowAllDevices(off, removed), text);
    EXPECT_TRUE(removed);
    EXPECT_EQ(allowAllDevices("blacklist {\n  devnode \"*\"\n  devnode \"^sd\"\n}\n", removed),
              "blacklist {\n  devnode \"^sd\"\n}\n");
    EXPECT_TRUE(removed);
    // The allowlist form (blacklist every WWID, except some) is not "off".
    const std::string allowlist = "blacklist {\n\twwid \".*\"\n}\n";
    EXPECT_EQ(allowAllDevices(allowlist, removed), allowlist);
    EXPECT_FALSE(removed);
    EXPECT_EQ(allowAllDevices(text, removed), text);
    EXPECT_FALSE(removed);
    // Only the top-level blacklist: an exception naming every device stays.
    const std::string exceptions = "blacklist_exceptions {\n\tdevnode \".*\"\n}\n";
    EXPECT_EQ(allowAllDevices(exceptions, removed), exceptions);
    EXPECT_FALSE(removed);
    EXPECT_EQ(blacklistAllDevices(""), "blacklist {\n\tdevnode \".*\"\n}\n");
}

// A setting that shares its line with the section's closing brace is not
// rewritten (the brace would go): the new value is added after it.
TEST(ConfigEdit, ASettingOnTheClosingBraceLineKeepsTheBrace) {
    const std::string text = "defaults {\n\tuser_friendly_names no }\n"
                             "blacklist {\n\tdevnode \"^nvme\"\n}\n";
    const std::string out = setDefault(text, "user_friendly_names", "yes");
    EXPECT_EQ(out, "defaults {\n\tuser_friendly_names no\n\tuser_friendly_names yes\n}\n"
                   "blacklist {\n\tdevnode \"^nvme\"\n}\n");
    const ConfigResult r = parseString(out);
    EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics.front().toString();
    EXPECT_EQ(r.config.defaults.userFriendlyNames, true);
    EXPECT_EQ(r.config.blacklist.devnodes.size(), 1u);
}

// "defaults" alone on its line and "{" on the next, as multipath-tools reads it.
TEST(ConfigEdit, ABraceOnTheLineAfterTheSectionNameOpensIt) {
    const std::string text = "blacklist {\n\tdevnode \"^nvme\"\n}\n"
                             "defaults\n{\n\tuser_friendly_names no\n}\n";
    EXPECT_EQ(setDefault(text, "user_friendly_names", "yes"),
              "blacklist {\n\tdevnode \"^nvme\"\n}\n"
              "defaults\n{\n\tuser_friendly_names yes\n}\n");
    EXPECT_EQ(blacklistAllDevices(text), "blacklist {\n\tdevnode \"^nvme\"\n\tdevnode \".*\"\n}\n"
                                         "defaults\n{\n\tuser_friendly_names no\n}\n");
}

// The brace that closes the top-level section, not the first on the line.
TEST(ConfigEdit, TheBraceThatClosesTheSectionIsTheOneFound) {
    const std::string text = "blacklist {\n\tdevice { vendor \"X\" product \"Y\" } }\n";
    const std::string out = blacklistAllDevices(text);
    EXPECT_EQ(out, "blacklist {\n\tdevice { vendor \"X\" product \"Y\" }\n"
                   "\tdevnode \".*\"\n}\n");
    EXPECT_EQ(blacklistAllDevices(out), out);
    EXPECT_FALSE(parseString(out).hasErrors());
}

TEST(ConfigEdit, CrlfLinesStayCrlf) {
    EXPECT_EQ(setDefault("defaults {\r\n\tuser_friendly_names no # hand\r\n}\r\n",
                         "user_friendly_names", "yes"),
              "defaults {\r\n\tuser_friendly_names yes # hand\r\n}\r\n");
    EXPECT_EQ(setDefault("defaults {\r\n}\r\n", "find_multipaths", "yes"),
              "defaults {\r\n\tfind_multipaths yes\r\n}\r\n");
}

} // namespace
