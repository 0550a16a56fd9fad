#include "mpath/dm/status.h"
#include "mpath/dm/table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/sysmacros.h>

using namespace mpath::dm;
using mpath::model::DmPathState;
using mpath::model::GroupState;
using mpath::model::Map;
using ::testing::HasSubstr;

namespace {

const char *twoGroupTable = "1 queue_if_no_path 0 2 1 round-robin 0 2 1 8:16 1 8:32 1 "
                            "round-robin 0 2 1 8:48 1 8:64 1";
const char *twoGroupStatus = "2 0 0 0 2 1 A 0 2 0 8:16 A 0 8:32 F 3 E 0 2 0 8:48 A 0 8:64 A 0";

/// The map of twoGroupTable.
Map twoGroupMap() {
    auto m = parseTable(twoGroupTable);
    EXPECT_TRUE(m) << m.error().message;
    return m.valueOr({});
}

} // namespace

TEST(Status, SetsPerPathActiveFailedAndFailCounts) {
    Map m = twoGroupMap();
    ASSERT_EQ(m.groups.size(), 2u);
    auto st = parseStatus(twoGroupStatus, m);
    ASSERT_TRUE(st) << st.error().message;
    EXPECT_EQ(m.groups[0].state, GroupState::Active);
    EXPECT_EQ(m.groups[1].state, GroupState::Enabled);
    EXPECT_EQ(m.groups[0].paths[0].dmState, DmPathState::Active);
    EXPECT_EQ(m.groups[0].paths[1].dmState, DmPathState::Failed);
    EXPECT_EQ(m.groups[0].paths[1].failCount, 3u);
    EXPECT_EQ(m.groups[1].paths[1].failCount, 0u);
}

TEST(Status, ReportsQueueingPgInitCountAndNextGroup) {
    Map m;
    auto st = parseStatus("2 1 4 0 2 2 E 0 1 0 8:16 F 1 A 0 1 0 8:32 A 0", m);
    ASSERT_TRUE(st) << st.error().message;
    EXPECT_TRUE(st->queueing);
    EXPECT_EQ(st->pgInitCount, 4u);
    EXPECT_EQ(st->nextGroup, 2u);
}

TEST(Status, BuildsGroupsFromTheStatusAloneWhenTheMapHasNone) {
    Map m;
    auto st = parseStatus(twoGroupStatus, m);
    ASSERT_TRUE(st) << st.error().message;
    ASSERT_EQ(m.groups.size(), 2u);
    EXPECT_EQ(m.groups[1].paths[0].devt, makedev(8, 48));
    EXPECT_EQ(m.groups[0].paths[1].dmState, DmPathState::Failed);
}

TEST(Status, KeepsSelectorInfoWordsPerPath) {
    Map m;
    auto st = parseStatus("2 0 0 0 1 1 A 0 2 2 8:16 A 0 4096 1 8:32 A 0 0 2", m);
    ASSERT_TRUE(st) << st.error().message;
    ASSERT_EQ(st->selectorInfo.size(), 1u);
    EXPECT_EQ(st->selectorInfo[0][0], (std::vector<std::string>{"4096", "1"}));
    EXPECT_EQ(st->selectorInfo[0][1], (std::vector<std::string>{"0", "2"}));
}

TEST(Status, ReadsDisabledGroups) {
    Map m;
    auto st = parseStatus("2 0 0 0 1 1 D 0 1 0 8:16 A 0", m);
    ASSERT_TRUE(st) << st.error().message;
    EXPECT_EQ(m.groups[0].state, GroupState::Disabled);
}

TEST(StatusParser, RejectsAStatusWhosePathsDifferFromTheTable) {
    Map m = twoGroupMap();
    auto st = parseStatus("2 0 0 0 2 1 A 0 2 0 8:16 A 0 8:99 F 3 E 0 2 0 8:48 A 0 8:64 A 0", m);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), EINVAL);
    EXPECT_THAT(st.error().message, HasSubstr("8:99"));
}

TEST(StatusParser, RejectsAGroupCountThatDiffersFromTheTable) {
    Map m = twoGroupMap();
    EXPECT_EQ(parseStatus("2 0 0 0 1 1 A 0 1 0 8:16 A 0", m).code(), EINVAL);
}

TEST(StatusParser, RejectsAnUnknownPathState) {
    Map m;
    auto st = parseStatus("2 0 0 0 1 1 A 0 1 0 8:16 X 0", m);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), EINVAL);
    EXPECT_THAT(st.error().message, HasSubstr("'X'"));
}

TEST(StatusParser, LeavesTheMapUntouchedOnError) {
    Map m = twoGroupMap();
    Map before = m;
    // Valid up to the second path of the second group, whose state is unknown.
    EXPECT_EQ(
        parseStatus("2 0 0 0 2 1 A 0 2 0 8:16 A 0 8:32 F 3 E 0 2 0 8:48 A 0 8:64 X 0", m).code(),
        EINVAL);
    EXPECT_EQ(m, before);
}

TEST(StatusParser, RejectsATruncatedLine) {
    Map m;
    EXPECT_EQ(parseStatus("2 0 0 0 1 1 A 0 1 2 8:16 A 0 5", m).code(), EINVAL);
}

TEST(StatusBuilder, PrintsFailedPathsAndTheInitialGroupAsNext) {
    Map m = twoGroupMap();
    ASSERT_EQ(m.groups.size(), 2u);
    m.groups[0].paths[1].dmState = DmPathState::Failed;
    m.groups[0].paths[1].failCount = 1;
    EXPECT_EQ(buildStatus(m), "2 0 0 0 2 1 E 0 2 0 8:16 A 0 8:32 F 1 E 0 2 0 8:48 A 0 8:64 A 0");
}

TEST(StatusBuilder, PrintsServiceTimeRelativeThroughputFromThePathArguments) {
    auto m = parseTable("0 0 1 1 service-time 0 1 2 8:16 1 5");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(buildStatus(*m), "2 0 0 0 1 1 E 0 1 2 8:16 A 0 0 5");
}
