// The lmpath constructor grammar, built from kmod/lmpath-table.c in
// userspace: every malformed table of tests/vm/data/bad-tables.txt is
// rejected with the stock target's ti->error, every table of
// good-tables.txt prints the stock TABLE status and round-trips.

#include "lmpath_map.h"
#include "table_data.h"

#include <gtest/gtest.h>
#include <set>

using lmpath_test::construct;
using lmpath_test::infoOf;
using lmpath_test::loadTableCases;
using lmpath_test::TableCase;
using lmpath_test::tableOf;

namespace {

std::string caseName(const testing::TestParamInfo<TableCase> &info) {
    return "line" + std::to_string(info.param.line);
}

class RejectsMalformedTable : public testing::TestWithParam<TableCase> {};

TEST_P(RejectsMalformedTable, WithTheStockTargetsError) {
    const TableCase &c = GetParam();
    auto r = construct(c.args);
    EXPECT_EQ(r.map, nullptr) << "accepted: " << c.args << "\n  as: " << tableOf(r.map.get());
    EXPECT_LT(r.error, 0) << c.args;
    EXPECT_EQ(r.what, c.expected) << "table: " << c.args;
}

INSTANTIATE_TEST_SUITE_P(BadTables, RejectsMalformedTable,
                         testing::ValuesIn(loadTableCases("bad-tables.txt")), caseName);

class AcceptsWellFormedTable : public testing::TestWithParam<TableCase> {};

TEST_P(AcceptsWellFormedTable, AndPrintsTheStockTableStatus) {
    const TableCase &c = GetParam();
    auto r = construct(c.args);
    ASSERT_NE(r.map, nullptr) << c.args << ": " << r.what;
    EXPECT_EQ(tableOf(r.map.get()), c.expected) << c.args;
}

TEST_P(AcceptsWellFormedTable, AndItsTableStatusConstructsTheSameTable) {
    const TableCase &c = GetParam();
    auto first = construct(c.args);
    ASSERT_NE(first.map, nullptr) << c.args << ": " << first.what;
    const std::string printed = tableOf(first.map.get());
    auto again = construct(printed);
    ASSERT_NE(again.map, nullptr) << printed << ": " << again.what;
    EXPECT_EQ(tableOf(again.map.get()), printed);
    EXPECT_EQ(infoOf(again.map.get()), infoOf(first.map.get()));
}

INSTANTIATE_TEST_SUITE_P(GoodTables, AcceptsWellFormedTable,
                         testing::ValuesIn(loadTableCases("good-tables.txt")), caseName);

TEST(TableGrammar, ListsAtLeastFiftyMalformedTablesWithTwentyDistinctErrors) {
    const auto cases = loadTableCases("bad-tables.txt");
    std::set<std::string> errors;
    for (const auto &c : cases)
        errors.insert(c.expected);
    EXPECT_GE(cases.size(), 50u);
    EXPECT_GE(errors.size(), 20u);
}

TEST(TableGrammar, ShowsAFreshMapAsQueueingWithNoActiveGroup) {
    auto r = construct("0 0 2 1 round-robin 0 1 0 8:16 service-time 0 1 0 8:32");
    ASSERT_NE(r.map, nullptr) << r.what;
    // Before any I/O the stock target reports queue_io set, no group active.
    EXPECT_EQ(infoOf(r.map.get()), "2 1 0 0 2 1 E 0 1 0 8:16 A 0 E 0 1 2 8:32 A 0 0 1");
}

TEST(TableGrammar, PrintsTheHardwareHandlerNameButNotItsArguments) {
    auto r = construct("0 3 rdac x y 1 1 round-robin 0 1 0 8:16");
    ASSERT_NE(r.map, nullptr) << r.what;
    EXPECT_EQ(tableOf(r.map.get()), "0 1 rdac 1 1 round-robin 0 1 1 8:16 1");
    EXPECT_EQ(infoOf(r.map.get()).substr(0, 8), "2 1 0 0 ");
}

TEST(TableGrammar, RejectsAHardwareHandlerOnANonScsiPath) {
    auto r = construct("0 1 alua 1 1 round-robin 0 1 0 259:0");
    EXPECT_EQ(r.map, nullptr);
    EXPECT_EQ(r.what, "error attaching hardware handler");
}

TEST(TableGrammar, AcceptsDevicePathsAndPrintsMajorMinor) {
    auto r = construct("0 0 1 1 round-robin 0 2 0 /dev/sdb /dev/sdc");
    ASSERT_NE(r.map, nullptr) << r.what;
    EXPECT_EQ(tableOf(r.map.get()), "0 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
}

TEST(TableGrammar, HonoursBackslashEscapesLikeDmSplitArgs) {
    // "queue\_if_no_path" is one word for dm core: the backslash goes away.
    auto r = construct("1 queue\\_if_no_path 0 1 1 round-robin 0 1 0 8:16");
    ASSERT_NE(r.map, nullptr) << r.what;
    EXPECT_EQ(tableOf(r.map.get()), "1 queue_if_no_path 0 1 1 round-robin 0 1 1 8:16 1");
}

TEST(TableGrammar, AcceptsTheMaximumOf1024PathsInOneGroup) {
    std::string table = "0 0 1 1 round-robin 0 1024 0";
    for (int i = 0; i < 1024; ++i)
        table += (i % 2) ? " 8:32" : " 8:16";
    auto r = construct(table);
    ASSERT_NE(r.map, nullptr) << r.what;
    EXPECT_EQ(lmpath_user_nr_paths(r.map.get(), 0), 1024u);
}

TEST(TableGrammar, RejectsAGroupCountAboveTheLimit) {
    auto r = construct("0 0 1025 1 round-robin 0 1 0 8:16");
    EXPECT_EQ(r.what, "invalid number of priority groups");
}

TEST(TableGrammar, RoundTripsIoAffinityMasksInTheKernelsHexFormat) {
    lmpath_user_set_nr_cpus(8, 1);
    auto r = construct("0 0 1 1 io-affinity 0 2 1 8:16 0f 8:32 f0");
    ASSERT_NE(r.map, nullptr) << r.what;
    // %*pb prints nr_cpu_ids bits: two hex digits with 8 CPUs.
    EXPECT_EQ(tableOf(r.map.get()), "0 0 1 1 io-affinity 0 2 1 8:16 0f 8:32 f0");
    lmpath_user_set_nr_cpus(4, 1);
}

TEST(TableGrammar, RejectsAnIoAffinityMaskNamingACpuThatDoesNotExist) {
    lmpath_user_set_nr_cpus(4, 1);
    auto r = construct("0 0 1 1 io-affinity 0 1 1 8:16 10");
    EXPECT_EQ(r.map, nullptr);
    EXPECT_EQ(r.what, "io-affinity ps: invalid cpumask");
}

TEST(TableGrammar, PrintsHistoricalServiceTimeDefaults) {
    auto r = construct("0 0 1 1 historical-service-time 0 1 0 8:16");
    ASSERT_NE(r.map, nullptr) << r.what;
    // base weight HST_FIXED_95 (972), threshold multiplier 0
    EXPECT_EQ(tableOf(r.map.get()), "0 0 1 1 historical-service-time 2 972 0 1 1 8:16 0");
}

} // namespace
