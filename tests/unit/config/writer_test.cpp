#include "mpath/config/parser.h"
#include "mpath/config/writer.h"
#include "test_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace config = mpath::config;
using namespace mpath::config;

namespace {

// Source locations differ between a file and its rewrite; everything else
// must not.
Config withoutLocations(Config c) {
    c.files.clear();
    auto clear = [](Blacklist &b) {
        for (auto &p : b.devnodes)
            p.where = {};
        for (auto &p : b.wwids)
            p.where = {};
        for (auto &p : b.properties)
            p.where = {};
        for (auto &p : b.protocols)
            p.where = {};
        for (auto &d : b.devices)
            d.where = {};
    };
    clear(c.blacklist);
    clear(c.blacklistExceptions);
    c.globals.where.clear();
    c.defaults.where.clear();
    c.overrides.where.clear();
    for (auto &d : c.devices) {
        d.where = {};
        d.settings.where.clear();
    }
    for (auto &m : c.multipaths) {
        m.where = {};
        m.settings.where.clear();
    }
    return c;
}

// The messages of \a r's diagnostics, without their places and order.
std::vector<std::string> messages(const ConfigResult &r) {
    std::vector<std::string> out;
    for (const auto &d : r.diagnostics)
        out.push_back(d.message);
    std::sort(out.begin(), out.end());
    return out;
}

std::string readData(const std::string &name) {
    return mpath_test::readFile(std::filesystem::path(MPATH_TEST_DATA_DIR) / "config" / name);
}

} // namespace

TEST(ConfigWriter, WritesNothingForAnEmptyConfig) {
    EXPECT_EQ(config::write(Config{}), "");
}

TEST(ConfigWriter, WritesSectionsWithIndentedKeywords) {
    ConfigResult r = config::parseString("defaults {\n polling_interval 10\n"
                                         " features \"2 pg_init_retries 50\"\n}\n"
                                         "multipaths {\n multipath {\n wwid 36001\n"
                                         " alias db\n }\n}\n");
    ASSERT_TRUE(r.diagnostics.empty());
    EXPECT_EQ(config::write(r.config), "defaults {\n"
                                       "    polling_interval 10\n"
                                       "    features \"2 pg_init_retries 50\"\n"
                                       "}\n"
                                       "multipaths {\n"
                                       "    multipath {\n"
                                       "        wwid 36001\n"
                                       "        alias db\n"
                                       "    }\n"
                                       "}\n");
}

TEST(ConfigWriter, QuotesOnlyWhatTheSyntaxNeeds) {
    EXPECT_EQ(config::quote("tur"), "tur");
    EXPECT_EQ(config::quote(""), "\"\"");
    EXPECT_EQ(config::quote("a b"), "\"a b\"");
    EXPECT_EQ(config::quote("a#b"), "\"a#b\"");
    EXPECT_EQ(config::quote("a!b"), "\"a!b\"");
    EXPECT_EQ(config::quote("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(ConfigWriter, RewriteOfAMultipathToolsFileReadsBackEqual) {
    ConfigResult first = config::parseString(readData("multipath-tools-sample.conf"));
    ASSERT_FALSE(first.hasErrors());
    // The sample has every section; an empty text would round-trip too.
    ASSERT_FALSE(first.config.devices.empty());
    ASSERT_FALSE(first.config.multipaths.empty());
    ASSERT_FALSE(first.config.blacklist.empty());
    ConfigResult second = config::parseString(config::write(first.config));
    // The sample's deprecated lines draw the same notices again, no more.
    EXPECT_FALSE(messages(first).empty());
    EXPECT_EQ(messages(second), messages(first)) << config::write(first.config);
    EXPECT_EQ(withoutLocations(second.config), withoutLocations(first.config));
}

TEST(ConfigWriter, RewriteKeepsAwkwardValues) {
    ConfigResult first = config::parseString(
        "defaults {\n prio_args \"a  \"\"b\"\" #c\"\n"
        " failback 15\n no_path_retry queue\n pg_init_delay_msecs off\n max_sectors_kb 64\n"
        " path_selector \"historical-service-time 1 5\"\n}\n"
        "blacklist {\n devnode \"!^(sd|nvme)\"\n device {\n product \"[{]x[}]\"\n }\n}\n"
        "devices {\n device {\n vendor \"A B\"\n product .*\n product_blacklist LUNZ\n"
        " features 0\n hardware_handler \"2 alua x\"\n }\n}\n",
        "x", true);
    ASSERT_TRUE(first.diagnostics.empty()) << first.diagnostics[0].toString();
    ConfigResult second = config::parseString(config::write(first.config), "y", true);
    EXPECT_TRUE(second.diagnostics.empty()) << second.diagnostics[0].toString();
    EXPECT_EQ(withoutLocations(second.config), withoutLocations(first.config));
    EXPECT_EQ(second.config.defaults.prioArgs, "a  \"b\" #c");
}
