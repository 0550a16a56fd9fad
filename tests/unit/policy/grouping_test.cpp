#include "mpath/policy/grouping.h"

#include <gtest/gtest.h>

using namespace mpath::policy;
using namespace mpath::model;
using mpath::config::GroupingPolicy;

namespace {

Path path(std::string name, int prio = 1, std::string wwid = "3600a") {
    Path p;
    p.kernelName = std::move(name);
    p.wwid = std::move(wwid);
    p.priority = prio;
    p.sizeSectors = 2048;
    return p;
}

std::vector<std::vector<std::string>> names(const std::vector<PathGroup> &groups) {
    std::vector<std::vector<std::string>> out;
    for (const PathGroup &g : groups) {
        out.emplace_back();
        for (const Path &p : g.paths)
            out.back().push_back(p.kernelName);
    }
    return out;
}

using Names = std::vector<std::vector<std::string>>;

} // namespace

TEST(Grouping, FailoverPutsEachPathInItsOwnGroupBestPriorityFirst) {
    auto g =
        groupPaths({path("sda", 1), path("sdb", 50), path("sdc", 10)}, GroupingPolicy::Failover);
    EXPECT_EQ(names(g), (Names{{"sdb"}, {"sdc"}, {"sda"}}));
    EXPECT_EQ(g[0].priority, 50);
}

TEST(Grouping, MultibusPutsAllPathsInOneGroup) {
    auto g = groupPaths({path("sda"), path("sdb"), path("sdc")}, GroupingPolicy::Multibus);
    EXPECT_EQ(names(g), (Names{{"sda", "sdb", "sdc"}}));
    EXPECT_TRUE(groupPaths({}, GroupingPolicy::Multibus).empty());
}

TEST(Grouping, GroupByPrioMakesOneGroupPerPriorityHighestFirst) {
    auto g = groupPaths({path("sda", 10), path("sdb", 50), path("sdc", 10), path("sdd", 50)},
                        GroupingPolicy::GroupByPrio);
    EXPECT_EQ(names(g), (Names{{"sdb", "sdd"}, {"sda", "sdc"}}));
    EXPECT_EQ(g[0].priority, 50);
    EXPECT_EQ(g[1].priority, 10);
}

TEST(Grouping, GroupBySerialGroupsPathsOfOneController) {
    Path a = path("sda"), b = path("sdb"), c = path("sdc");
    a.serial = "ctrlA";
    b.serial = "ctrlB";
    c.serial = "ctrlA";
    auto g = groupPaths({a, b, c}, GroupingPolicy::GroupBySerial);
    EXPECT_EQ(names(g), (Names{{"sda", "sdc"}, {"sdb"}}));
}

TEST(Grouping, GroupByNodeNameGroupsPathsToOneTargetNode) {
    Path a = path("sda", 1), b = path("sdb", 5), c = path("sdc", 5);
    a.ids.nodeName = "0x5001";
    b.ids.nodeName = "0x5002";
    c.ids.nodeName = "0x5002";
    auto g = groupPaths({a, b, c}, GroupingPolicy::GroupByNodeName);
    EXPECT_EQ(names(g), (Names{{"sdb", "sdc"}, {"sda"}}));
}

TEST(Grouping, GroupByTpgGroupsPathsOfOneTargetPortGroup) {
    Path a = path("sda", 50), b = path("sdb", 10), c = path("sdc", 50);
    a.ids.targetPortGroup = 1;
    b.ids.targetPortGroup = 2;
    c.ids.targetPortGroup = 1;
    auto g = groupPaths({b, a, c}, GroupingPolicy::GroupByTpg);
    EXPECT_EQ(names(g), (Names{{"sda", "sdc"}, {"sdb"}}));
}

TEST(Grouping, GroupPriorityIsTheMeanOfUsablePaths) {
    PathGroup g;
    g.paths = {path("sda", 50), path("sdb", 10), path("sdc", 90)};
    g.paths[2].checkerState = CheckerState::Down;
    EXPECT_EQ(groupPriority(g), 30);
    g.paths[0].deviceState = DeviceState::Offline;
    g.paths[1].checkerState = CheckerState::Down;
    EXPECT_EQ(groupPriority(g), 0);
}

TEST(Grouping, TiesGoToTheGroupWithMoreUsablePaths) {
    Path a = path("sda", 10), b = path("sdb", 10), c = path("sdc", 10);
    a.serial = "x";
    b.serial = "y";
    c.serial = "y";
    auto g = groupPaths({a, b, c}, GroupingPolicy::GroupBySerial);
    EXPECT_EQ(names(g), (Names{{"sdb", "sdc"}, {"sda"}}));
}

TEST(Grouping, ByWwidSortsByWwidAndDropsPathsWithoutWwid) {
    auto by = byWwid(
        {path("sda", 1, "3b"), path("sdb", 1, "3a"), path("sdc", 1, ""), path("sdd", 1, "3b")});
    ASSERT_EQ(by.size(), 2u);
    EXPECT_EQ(by[0].wwid, "3a");
    EXPECT_EQ(by[1].wwid, "3b");
    ASSERT_EQ(by[1].paths.size(), 2u);
    EXPECT_EQ(by[1].paths[0].kernelName, "sda");
    EXPECT_EQ(by[1].paths[1].kernelName, "sdd");
}

TEST(Grouping, BuildMapRejectsPathsOfAnotherSize) {
    Path odd = path("sdc");
    odd.sizeSectors = 4096;
    std::vector<Path> rejected;
    Map m =
        buildMap({"3600a", {path("sda"), path("sdb"), odd}}, GroupingPolicy::Multibus, &rejected);
    EXPECT_EQ(m.wwid, "3600a");
    EXPECT_EQ(m.alias, "3600a");
    EXPECT_EQ(m.sizeSectors, 2048u);
    EXPECT_EQ(names(m.groups), (Names{{"sda", "sdb"}}));
    ASSERT_EQ(rejected.size(), 1u);
    EXPECT_EQ(rejected[0].kernelName, "sdc");
}

TEST(Grouping, MarginalPathsAreGroupedApartAfterAllOthersWhateverTheirPriority) {
    Path shaky = path("sdb", 50);
    shaky.marginal = true;
    Path shaky2 = path("sdd", 10);
    shaky2.marginal = true;
    // Multibus: the others in one group, the marginal ones in another.
    EXPECT_EQ(names(groupPaths({path("sda", 10), shaky, path("sdc", 10), shaky2},
                               GroupingPolicy::Multibus)),
              (Names{{"sda", "sdc"}, {"sdb", "sdd"}}));
    // Failover: still each path alone, the marginal ones last, best first.
    EXPECT_EQ(names(groupPaths({path("sda", 10), shaky, path("sdc", 1), shaky2},
                               GroupingPolicy::Failover)),
              (Names{{"sda"}, {"sdc"}, {"sdb"}, {"sdd"}}));
    // Only marginal paths: grouped as usual.
    EXPECT_EQ(names(groupPaths({shaky, shaky2}, GroupingPolicy::Multibus)),
              (Names{{"sdb", "sdd"}}));
}
