#include "mpath/config/parser.h"
#include "mpath/dm/table.h"
#include "mpath/policy/table_settings.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

using namespace mpath::policy;
using namespace mpath::model;
using mpath::config::DmTarget;
using mpath::config::EffectiveSettings;

namespace {

/// The settings of an ACME Disk under \p text, whose lines all apply
/// (features "queue_if_no_path", used on purpose, draws its deprecation
/// notices).
EffectiveSettings settingsFrom(const char *text) {
    mpath::config::ConfigResult r = mpath::config::parseString(text);
    EXPECT_FALSE(r.hasErrors());
    for (const auto &d : r.diagnostics)
        if (d.message.find("'queue_if_no_path'") == std::string::npos &&
            d.message.find("\"1 queue_if_no_path\"") == std::string::npos)
            ADD_FAILURE() << "unexpected diagnostic: " << d.toString();
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
    auto line = mpath::dm::buildTableLine(m);
    EXPECT_TRUE(line) << line.error().message;
    return line.valueOr("");
}

} // namespace

TEST(TableSettings, NoPathRetryQueueAddsQueueIfNoPath) {
    Map m = twoGroups();
    applyTableSettings(settingsFrom("defaults {\n no_path_retry queue\n}\n"), DmTarget::Multipath,
                       m);
    EXPECT_EQ(m.features, std::vector<std::string>{"queue_if_no_path"});
    EXPECT_EQ(m.target, "multipath");
}

TEST(TableSettings, NoPathRetryFailRemovesAConfiguredQueueIfNoPath) {
    Map m = twoGroups();
    applyTableSettings(
        settingsFrom("defaults {\n features \"1 queue_if_no_path\"\n no_path_retry fail\n}\n"),
        DmTarget::Lmpath, m);
    EXPECT_TRUE(m.features.empty());
}

TEST(TableSettings, FeaturesAloneStillQueueWhenNoPathRetryIsUnset) {
    Map m = twoGroups();
    applyTableSettings(settingsFrom("defaults {\n features \"1 queue_if_no_path\"\n}\n"),
                       DmTarget::Lmpath, m);
    EXPECT_EQ(m.features, std::vector<std::string>{"queue_if_no_path"});
}

TEST(TableSettings, PgInitAndBioQueueModeBecomeFeatureWords) {
    Map m = twoGroups();
    std::vector<std::string> notes;
    applyTableSettings(settingsFrom("defaults {\n pg_init_retries 5\n pg_init_delay_msecs 200\n "
                                    "queue_mode bio\n rr_min_io 100\n}\n"),
                       DmTarget::Lmpath, m, &notes);
    EXPECT_EQ(m.features,
              (std::vector<std::string>{"pg_init_retries", "5", "pg_init_delay_msecs", "200",
                                        "retain_attached_hw_handler", "queue_mode", "bio"}))
        << "a bio-based map keeps the attached handler, and the kernel prints that it does";
    EXPECT_EQ(m.groups[0].pathArgs, (std::vector<std::string>{"1", "1"}))
        << "service-time keeps repeat count 1 and relative throughput 1";
    EXPECT_EQ(notes, std::vector<std::string>{"rr_min_io 100 is written as 1: the kernel's "
                                              "selectors keep no repeat count above 1"});
}

TEST(TableSettings, FeaturesComeInTheOrderTheKernelPrintsThem) {
    // As tests/fixtures/dm/*/all-features.table: the kernel's order, not
    // the configuration's.
    Map m = twoGroups();
    applyTableSettings(settingsFrom("defaults {\n features \"3 retain_attached_hw_handler "
                                    "pg_init_delay_msecs 100\"\n pg_init_retries 3\n "
                                    "no_path_retry queue\n}\n"),
                       DmTarget::Multipath, m);
    EXPECT_EQ(m.features, (std::vector<std::string>{"queue_if_no_path", "pg_init_retries", "3",
                                                    "pg_init_delay_msecs", "100",
                                                    "retain_attached_hw_handler"}));
}

TEST(TableSettings, PgInitWordsInFeaturesStandWithoutTheirKeywords) {
    Map m = twoGroups();
    applyTableSettings(settingsFrom("defaults {\n features \"2 pg_init_retries 50\"\n}\n"),
                       DmTarget::Multipath, m);
    EXPECT_EQ(m.features, (std::vector<std::string>{"pg_init_retries", "50"}));
    applyTableSettings(settingsFrom("defaults {\n features \"2 pg_init_retries 50\"\n "
                                    "pg_init_retries 7\n}\n"),
                       DmTarget::Multipath, m);
    EXPECT_EQ(m.features, (std::vector<std::string>{"pg_init_retries", "7"}))
        << "the keyword wins over the same word in features";
}

TEST(TableSettings, PerPathArgumentsAreWhatEachSelectorPrintsBack) {
    // The forms the kernel prints in its table (tests/fixtures/dm): a map
    // built this way reads back as built.
    const std::pair<const char *, const char *> cases[] = {
        {"round-robin 0", "round-robin 0 2 1 8:16 1 8:32 1"},
        {"queue-length 0", "queue-length 0 2 1 8:16 1 8:32 1"},
        {"service-time 0", "service-time 0 2 2 8:16 1 1 8:32 1 1"},
        {"historical-service-time 0", "historical-service-time 2 972 0 2 1 8:16 0 8:32 0"},
        {"historical-service-time 1 900", "historical-service-time 2 900 0 2 1 8:16 0 8:32 0"},
    };
    for (const auto &[selector, expected] : cases) {
        Map m = oneGroup({1, 1});
        std::vector<std::string> notes;
        applyTableSettings(
            settingsFrom(
                (std::string("defaults {\n path_selector \"") + selector + "\"\n}\n").c_str()),
            DmTarget::Multipath, m, &notes);
        EXPECT_EQ(lineOf(m), std::string("0 100 multipath 0 0 1 1 ") + expected);
        EXPECT_TRUE(notes.empty()) << selector;
    }
}

TEST(TableSettings, SelectorHandlerAndRepeatCountReachEveryGroup) {
    Map m = twoGroups();
    std::vector<std::string> notes;
    applyTableSettings(settingsFrom("defaults {\n path_selector \"round-robin 0\"\n "
                                    "rr_min_io_rq 3\n}\ndevices {\n device {\n vendor ACME\n "
                                    "product Disk\n hardware_handler \"1 alua\"\n }\n}\n"),
                       DmTarget::Lmpath, m, &notes);
    auto line = mpath::dm::buildTableLine(m);
    ASSERT_TRUE(line) << line.error().message;
    EXPECT_EQ(*line, "0 100 lmpath 0 1 alua 2 1 round-robin 0 1 1 8:16 1 round-robin 0 1 1 8:32 1");
    EXPECT_EQ(notes, std::vector<std::string>{"rr_min_io_rq 3 is written as 1: the kernel's "
                                              "selectors keep no repeat count above 1"});
}

TEST(TableSettings, StalePerPathArgumentsAreCleared) {
    Map m = oneGroup({50, 10});
    m.groups[0].paths[0].pathArgs = {"500"};
    applyTableSettings(settingsFrom("defaults {\n path_selector \"round-robin 0\"\n}\n"),
                       DmTarget::Lmpath, m);
    EXPECT_EQ(lineOf(m), "0 100 lmpath 0 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
}

TEST(TableSettings, RrWeightPrioritiesMakesEachServiceTimePathsPriorityItsWeight) {
    // ALUA optimized 50, non-optimized 10, a failed prioritizer -1 and a
    // priority of 0: weighted as 1, as multipath-tools weighs only
    // priorities above 0.
    Map m = oneGroup({50, 10, -1, 0});
    std::vector<std::string> notes;
    applyTableSettings(settingsFrom("defaults {\n rr_weight priorities\n}\n"), DmTarget::Lmpath, m,
                       &notes);
    EXPECT_EQ(lineOf(m), "0 100 lmpath 0 0 1 1 service-time 0 4 2 8:16 1 50 8:32 1 10 "
                         "8:48 1 1 8:64 1 1");
    EXPECT_TRUE(notes.empty());
    // The kernel reads the table back as built.
    auto back = mpath::dm::parseTableLine(lineOf(m));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(mpath::dm::buildTableLine(*back).valueOr(""), lineOf(m));
}

TEST(TableSettings, RrWeightPrioritiesAbove100AreScaledDownKeepingTheirRatios) {
    // alua with the preferred bit: 130 against 50; relative throughput
    // stops at 100.
    Map m = oneGroup({130, 50, 1});
    applyTableSettings(settingsFrom("defaults {\n rr_weight priorities\n}\n"), DmTarget::Lmpath, m);
    EXPECT_EQ(lineOf(m), "0 100 lmpath 0 0 1 1 service-time 0 3 2 8:16 1 100 8:32 1 38 "
                         "8:48 1 1");
}

TEST(TableSettings, RrWeightPrioritiesWithEqualPrioritiesLeavesTheTableAsUniform) {
    // Equal shares are no weights: a group whose priorities move together
    // (group_by_prio) keeps one table.
    Map m = oneGroup({50, 50});
    applyTableSettings(settingsFrom("defaults {\n rr_weight priorities\n}\n"), DmTarget::Lmpath, m);
    EXPECT_EQ(lineOf(m), "0 100 lmpath 0 0 1 1 service-time 0 2 2 8:16 1 1 8:32 1 1");
}

TEST(TableSettings, RrWeightPrioritiesWithASelectorWithoutWeightsIsANote) {
    Map m = oneGroup({50, 10});
    std::vector<std::string> notes;
    mpath::config::ConfigResult r = mpath::config::parseString(
        "defaults {\n rr_weight priorities\n path_selector \"queue-length 0\"\n}\n");
    applyTableSettings(r.config.effective("ACME", "Disk", "1.0", "3600a"), DmTarget::Multipath, m,
                       &notes);
    EXPECT_EQ(lineOf(m), "0 100 multipath 0 0 1 1 queue-length 0 2 1 8:16 1 8:32 1");
    EXPECT_EQ(notes, std::vector<std::string>{
                         "rr_weight priorities has no effect with path_selector queue-length: the "
                         "kernel keeps a per-path weight only for service-time"});
}
