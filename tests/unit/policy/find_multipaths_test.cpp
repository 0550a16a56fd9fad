#include "mpath/policy/find_multipaths.h"

#include <gtest/gtest.h>

using namespace mpath::policy;
using mpath::config::FindMultipaths;

namespace {

FindMultipathsDecision decide(FindMultipaths mode, unsigned paths, bool known = false,
                              bool timedOut = false) {
    FindMultipathsInput in;
    in.mode = mode;
    in.wwid = "36001405aa";
    in.pathCount = paths;
    in.knownWwid = known;
    in.timedOut = timedOut;
    return decideFindMultipaths(in);
}

constexpr auto Yes = FindMultipathsDecision::Multipath;
constexpr auto No = FindMultipathsDecision::NotMultipath;
constexpr auto Wait = FindMultipathsDecision::Wait;

} // namespace

TEST(FindMultipaths, StrictTakesOnlyKnownWwids) {
    EXPECT_EQ(decide(FindMultipaths::Strict, 4), No);
    EXPECT_EQ(decide(FindMultipaths::Strict, 1, true), Yes);
}

TEST(FindMultipaths, StrictTakesWwidsThatAlreadyHaveAMap) {
    FindMultipathsInput in;
    in.wwid = "3600";
    in.mapExists = true;
    EXPECT_EQ(decideFindMultipaths(in), Yes);
}

TEST(FindMultipaths, OffAndGreedyTakeEveryPath) {
    EXPECT_EQ(decide(FindMultipaths::Off, 1), Yes);
    EXPECT_EQ(decide(FindMultipaths::Greedy, 1), Yes);
}

TEST(FindMultipaths, OnNeedsTwoPathsOrAKnownWwid) {
    EXPECT_EQ(decide(FindMultipaths::On, 1), No);
    EXPECT_EQ(decide(FindMultipaths::On, 2), Yes);
    EXPECT_EQ(decide(FindMultipaths::On, 1, true), Yes);
}

TEST(FindMultipaths, SmartWaitsForASecondPathUntilTheTimeout) {
    EXPECT_EQ(decide(FindMultipaths::Smart, 1), Wait);
    EXPECT_EQ(decide(FindMultipaths::Smart, 1, false, true), No);
    EXPECT_EQ(decide(FindMultipaths::Smart, 2), Yes);
    EXPECT_EQ(decide(FindMultipaths::Smart, 1, true), Yes);
}

TEST(FindMultipaths, PathWithoutWwidIsNeverMultipathed) {
    FindMultipathsInput in;
    in.mode = FindMultipaths::Greedy;
    in.knownWwid = true;
    EXPECT_EQ(decideFindMultipaths(in), No);
}
