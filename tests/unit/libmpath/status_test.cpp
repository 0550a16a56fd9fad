#include "mpath/status.h"
#include "mpath/table.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

using namespace mpath;

namespace {

const char *twoGroupTable = "1 queue_if_no_path 0 2 1 round-robin 0 2 1 8:16 1 8:32 1 "
                            "round-robin 0 2 1 8:48 1 8:64 1";
const char *twoGroupStatus = "2 0 0 0 2 1 A 0 2 0 8:16 A 0 8:32 F 3 E 0 2 0 8:48 A 0 8:64 A 0";

} // namespace

TEST(Status, SetsPerPathActiveFailedAndFailCounts) {
    Map m;
    ASSERT_EQ(Table::parse(twoGroupTable, m), 0);
    std::string why;
    ASSERT_EQ(Status::parse(twoGroupStatus, m, nullptr, &why), 0) << why;
    EXPECT_EQ(m.groups[0].state, GroupState::Active);
    EXPECT_EQ(m.groups[1].state, GroupState::Enabled);
    EXPECT_EQ(m.groups[0].paths[0].dmState, DmPathState::Active);
    EXPECT_EQ(m.groups[0].paths[1].dmState, DmPathState::Failed);
    EXPECT_EQ(m.groups[0].paths[1].failCount, 3u);
    EXPECT_EQ(m.groups[1].paths[1].failCount, 0u);
}

TEST(Status, ReportsQueueingPgInitCountAndNextGroup) {
    Map m;
    MapStatus st;
    ASSERT_EQ(Status::parse("2 1 4 0 2 2 E 0 1 0 8:16 F 1 A 0 1 0 8:32 A 0", m, &st), 0);
    EXPECT_TRUE(st.queueing);
    EXPECT_EQ(st.pgInitCount, 4u);
    EXPECT_EQ(st.nextGroup, 2u);
}

TEST(Status, BuildsGroupsFromTheStatusAloneWhenTheMapHasNone) {
    Map m;
    ASSERT_EQ(Status::parse(twoGroupStatus, m), 0);
    ASSERT_EQ(m.groups.size(), 2u);
    EXPECT_EQ(m.groups[1].paths[0].devt, makedev(8, 48));
    EXPECT_EQ(m.groups[0].paths[1].dmState, DmPathState::Failed);
}

TEST(Status, KeepsSelectorInfoWordsPerPath) {
    Map m;
    MapStatus st;
    ASSERT_EQ(Status::parse("2 0 0 0 1 1 A 0 2 2 8:16 A 0 4096 1 8:32 A 0 0 2", m, &st), 0);
    ASSERT_EQ(st.selectorInfo.size(), 1u);
    EXPECT_EQ(st.selectorInfo[0][0], (std::vector<std::string>{"4096", "1"}));
    EXPECT_EQ(st.selectorInfo[0][1], (std::vector<std::string>{"0", "2"}));
}

TEST(Status, ReadsDisabledGroups) {
    Map m;
    ASSERT_EQ(Status::parse("2 0 0 0 1 1 D 0 1 0 8:16 A 0", m), 0);
    EXPECT_EQ(m.groups[0].state, GroupState::Disabled);
}

TEST(StatusParser, RejectsAStatusWhosePathsDifferFromTheTable) {
    Map m;
    ASSERT_EQ(Table::parse(twoGroupTable, m), 0);
    std::string why;
    EXPECT_EQ(Status::parse("2 0 0 0 2 1 A 0 2 0 8:16 A 0 8:99 F 3 E 0 2 0 8:48 A 0 8:64 A 0", m,
                            nullptr, &why),
              -EINVAL);
    EXPECT_NE(why.find("8:99"), std::string::npos) << why;
}

TEST(StatusParser, RejectsAGroupCountThatDiffersFromTheTable) {
    Map m;
    ASSERT_EQ(Table::parse(twoGroupTable, m), 0);
    EXPECT_EQ(Status::parse("2 0 0 0 1 1 A 0 1 0 8:16 A 0", m), -EINVAL);
}

TEST(StatusParser, RejectsAnUnknownPathState) {
    Map m;
    std::string why;
    EXPECT_EQ(Status::parse("2 0 0 0 1 1 A 0 1 0 8:16 X 0", m, nullptr, &why), -EINVAL);
    EXPECT_NE(why.find("'X'"), std::string::npos) << why;
}

TEST(StatusParser, RejectsATruncatedLine) {
    Map m;
    EXPECT_EQ(Status::parse("2 0 0 0 1 1 A 0 1 2 8:16 A 0 5", m), -EINVAL);
}

TEST(StatusBuilder, PrintsFailedPathsAndTheInitialGroupAsNext) {
    Map m;
    ASSERT_EQ(Table::parse(twoGroupTable, m), 0);
    m.groups[0].paths[1].dmState = DmPathState::Failed;
    m.groups[0].paths[1].failCount = 1;
    EXPECT_EQ(Status::build(m), "2 0 0 0 2 1 E 0 2 0 8:16 A 0 8:32 F 1 E 0 2 0 8:48 A 0 8:64 A 0");
}

TEST(StatusBuilder, PrintsServiceTimeRelativeThroughputFromThePathArguments) {
    Map m;
    ASSERT_EQ(Table::parse("0 0 1 1 service-time 0 1 2 8:16 1 5", m), 0);
    EXPECT_EQ(Status::build(m), "2 0 0 0 1 1 E 0 1 2 8:16 A 0 0 5");
}
