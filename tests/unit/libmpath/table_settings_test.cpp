#include "mpath/config_parser.h"
#include "mpath/table.h"
#include "mpath/table_settings.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

using namespace mpath;

namespace {

EffectiveSettings settingsFrom(const char *text) {
    ConfigResult r = ConfigParser::parseString(text);
    EXPECT_FALSE(r.hasErrors());
    return r.config.effective("ACME", "Disk", "1.0", "3600a");
}

Map twoGroups() {
    Map m;
    m.sizeSectors = 100;
    for (unsigned i = 0; i < 2; ++i) {
        PathGroup g;
        Path p;
        p.devt = makedev(8, 16 * (i + 1));
        g.paths.push_back(p);
        m.groups.push_back(g);
    }
    return m;
}

} // namespace

TEST(TableSettings, NoPathRetryQueueAddsQueueIfNoPath) {
    Map m = twoGroups();
    TableSettings::apply(settingsFrom("defaults {\n no_path_retry queue\n}\n"), DmTarget::Multipath,
                         m);
    EXPECT_EQ(m.features, std::vector<std::string>{"queue_if_no_path"});
    EXPECT_EQ(m.target, "multipath");
}

TEST(TableSettings, NoPathRetryFailRemovesAConfiguredQueueIfNoPath) {
    Map m = twoGroups();
    TableSettings::apply(
        settingsFrom("defaults {\n features \"1 queue_if_no_path\"\n no_path_retry fail\n}\n"),
        DmTarget::Lmpath, m);
    EXPECT_TRUE(m.features.empty());
}

TEST(TableSettings, FeaturesAloneStillQueueWhenNoPathRetryIsUnset) {
    Map m = twoGroups();
    TableSettings::apply(settingsFrom("defaults {\n features \"1 queue_if_no_path\"\n}\n"),
                         DmTarget::Lmpath, m);
    EXPECT_EQ(m.features, std::vector<std::string>{"queue_if_no_path"});
}

TEST(TableSettings, PgInitAndBioQueueModeBecomeFeatureWords) {
    Map m = twoGroups();
    TableSettings::apply(settingsFrom("defaults {\n pg_init_retries 5\n pg_init_delay_msecs 200\n "
                                      "queue_mode bio\n rr_min_io 100\n}\n"),
                         DmTarget::Lmpath, m);
    EXPECT_EQ(m.features, (std::vector<std::string>{"pg_init_retries", "5", "pg_init_delay_msecs",
                                                    "200", "queue_mode", "bio"}));
    EXPECT_EQ(m.groups[0].pathArgs, std::vector<std::string>{"100"})
        << "bio-based maps repeat rr_min_io times";
}

TEST(TableSettings, SelectorHandlerAndRepeatCountReachEveryGroup) {
    Map m = twoGroups();
    TableSettings::apply(settingsFrom("defaults {\n path_selector \"round-robin 0\"\n "
                                      "hardware_handler \"1 alua\"\n rr_min_io_rq 3\n}\n"),
                         DmTarget::Lmpath, m);
    std::string line, why;
    ASSERT_EQ(Table::buildLine(m, line, &why), 0) << why;
    EXPECT_EQ(line, "0 100 lmpath 0 1 alua 2 1 round-robin 0 1 1 8:16 3 round-robin 0 1 1 8:32 3");
}
