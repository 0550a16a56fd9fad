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

// One group whose paths have these priorities, on 8:16, 8:32, ...
Map oneGroup(std::initializer_list<int> priorities) {
    Map m;
    m.sizeSectors = 100;
    PathGroup g;
    unsigned i = 0;
    for (int prio : priorities) {
        Path p;
        p.devt = makedev(8, 16 * ++i);
        p.priority = prio;
        g.paths.push_back(p);
    }
    m.groups.push_back(g);
    return m;
}

std::string lineOf(const Map &m) {
    std::string line, why;
    EXPECT_EQ(Table::buildLine(m, line, &why), 0) << why;
    return line;
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

TEST(TableSettings, RrWeightPrioritiesMultipliesTheRepeatCountByEachPathsPriority) {
    Map m = oneGroup({50, 0, -1, 1});
    TableSettings::apply(settingsFrom("defaults {\n path_selector \"round-robin 0\"\n "
                                      "rr_weight priorities\n rr_min_io_rq 2\n}\n"),
                         DmTarget::Multipath, m);
    EXPECT_EQ(lineOf(m), "0 100 multipath 0 0 1 1 round-robin 0 4 1 8:16 100 8:32 2 8:48 2 8:64 2")
        << "paths without a priority above 0 keep rr_min_io_rq";
}

TEST(TableSettings, RrWeightPrioritiesWeighsRrMinIoInBioBasedMaps) {
    Map m = oneGroup({10, 1});
    TableSettings::apply(settingsFrom("defaults {\n path_selector \"round-robin 0\"\n "
                                      "rr_weight priorities\n queue_mode bio\n rr_min_io 3\n "
                                      "rr_min_io_rq 7\n}\n"),
                         DmTarget::Lmpath, m);
    EXPECT_EQ(lineOf(m), "0 100 lmpath 2 queue_mode bio 0 1 1 round-robin 0 2 1 8:16 30 8:32 3");
}

TEST(TableSettings, RrWeightUniformGivesEveryPathTheSameRepeatCount) {
    Map m = oneGroup({50, 10});
    m.groups[0].paths[0].pathArgs = {"500"};
    TableSettings::apply(settingsFrom("defaults {\n path_selector \"round-robin 0\"\n "
                                      "rr_weight uniform\n rr_min_io_rq 4\n}\n"),
                         DmTarget::Lmpath, m);
    EXPECT_EQ(lineOf(m), "0 100 lmpath 0 0 1 1 round-robin 0 2 1 8:16 4 8:32 4");
}
