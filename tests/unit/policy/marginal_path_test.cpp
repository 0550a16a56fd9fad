#include "mpath/config/parser.h"
#include "mpath/policy/marginal_path.h"

#include <gtest/gtest.h>

using namespace mpath::policy;
using Verdict = MarginalPathVerdict;
using Clock = MarginalPathState::Clock;
using std::chrono::seconds;

namespace {

mpath::config::EffectiveSettings settingsFrom(const std::string &text) {
    mpath::config::ConfigResult r = mpath::config::parseString(text);
    for (const auto &d : r.diagnostics)
        ADD_FAILURE() << "unexpected diagnostic: " << d.toString();
    return r.config.effective("ACME", "Disk", "1.0", "3600a");
}

/// Two failures within 60 s make a path suspect; a sample of 120 s may
/// have 5 errors per thousand reads; a bad one is repeated 300 s later.
const MarginalPathSettings kSettings{60, 120, 5, 300};

} // namespace

TEST(MarginalPath, TakesEffectOnlyWithAllFourAndAZeroThresholdCounts) {
    EXPECT_FALSE(marginalPathSettings(settingsFrom("")).enabled());
    EXPECT_FALSE(marginalPathSettings(settingsFrom("")).partial());
    const MarginalPathSettings three =
        marginalPathSettings(settingsFrom("defaults {\n marginal_path_double_failed_time 60\n"
                                          " marginal_path_err_sample_time 120\n"
                                          " marginal_path_err_recheck_gap_time 300\n}\n"));
    EXPECT_FALSE(three.enabled()) << "no rate threshold, as multipath-tools";
    EXPECT_TRUE(three.partial());
    const MarginalPathSettings all = marginalPathSettings(
        settingsFrom("devices {\n device {\n vendor ACME\n product Disk\n"
                     " marginal_path_double_failed_time 60\n marginal_path_err_sample_time 120\n"
                     " marginal_path_err_rate_threshold 0\n"
                     " marginal_path_err_recheck_gap_time 300\n }\n}\n"));
    EXPECT_EQ(all, (MarginalPathSettings{60, 120, 0, 300}));
    EXPECT_TRUE(all.enabled()) << "a threshold of 0 means: no error at all";
}

TEST(MarginalPath, TwoFailuresWithinTheDoubleFailedTimeHoldThePath) {
    MarginalPathState st;
    const Clock::time_point t0{seconds(1000)};
    EXPECT_FALSE(marginalPathFailed(st, kSettings, t0));
    // The second failure 61 s later starts the count again.
    EXPECT_FALSE(marginalPathFailed(st, kSettings, t0 + seconds(61)));
    EXPECT_FALSE(st.held);
    EXPECT_EQ(marginalPathCheck(st, kSettings, true, t0 + seconds(62)), Verdict::Reinstate);
    // The third, 59 s after the second: held.
    EXPECT_TRUE(marginalPathFailed(st, kSettings, t0 + seconds(120)));
    EXPECT_TRUE(st.held);
    // Failures while held are not news.
    EXPECT_FALSE(marginalPathFailed(st, kSettings, t0 + seconds(121)));
    // Disabled: nothing is counted.
    MarginalPathState off;
    EXPECT_FALSE(marginalPathFailed(off, {}, t0));
    EXPECT_FALSE(marginalPathFailed(off, {}, t0 + seconds(1)));
    EXPECT_FALSE(off.held);
}

TEST(MarginalPath, AHeldPathIsSampledWhenUpAndReinstatedOnlyByAGoodSample) {
    MarginalPathState st;
    const Clock::time_point t0{seconds(1000)};
    marginalPathFailed(st, kSettings, t0);
    ASSERT_TRUE(marginalPathFailed(st, kSettings, t0 + seconds(10)));
    // Up: a sample starts, once.
    EXPECT_EQ(marginalPathCheck(st, kSettings, true, t0 + seconds(20)), Verdict::StartSampling);
    EXPECT_EQ(marginalPathCheck(st, kSettings, true, t0 + seconds(25)), Verdict::Hold);
    // 6 errors in 1000 reads: more than 5 per thousand, held.
    EXPECT_EQ(marginalPathSampled(st, kSettings, 6, 1000, true, t0 + seconds(140)), Verdict::Hold);
    EXPECT_TRUE(st.held);
    // No new sample before the recheck gap has passed.
    EXPECT_EQ(marginalPathCheck(st, kSettings, true, t0 + seconds(440)), Verdict::Hold);
    EXPECT_EQ(marginalPathCheck(st, kSettings, true, t0 + seconds(441)), Verdict::StartSampling);
    // 5 in 1000: at most the threshold, no longer held.
    EXPECT_EQ(marginalPathSampled(st, kSettings, 5, 1000, true, t0 + seconds(561)),
              Verdict::Reinstate);
    EXPECT_FALSE(st.held);
    EXPECT_EQ(marginalPathCheck(st, kSettings, true, t0 + seconds(562)), Verdict::Reinstate);
    EXPECT_DOUBLE_EQ(marginalPathErrorRate(6, 1000), 6.0);
    EXPECT_DOUBLE_EQ(marginalPathErrorRate(0, 0), 0.0);
}

TEST(MarginalPath, AHeldPathIsReinstatedAtOnceWhenTheMapHasNoOtherUsablePath) {
    const Clock::time_point t0{seconds(1000)};
    MarginalPathState checking;
    marginalPathFailed(checking, kSettings, t0);
    ASSERT_TRUE(marginalPathFailed(checking, kSettings, t0 + seconds(1)));
    EXPECT_EQ(marginalPathCheck(checking, kSettings, false, t0 + seconds(2)), Verdict::Reinstate);
    EXPECT_FALSE(checking.held);
    // Nor is a bad sample held when the others have gone meanwhile.
    MarginalPathState sampled;
    marginalPathFailed(sampled, kSettings, t0);
    ASSERT_TRUE(marginalPathFailed(sampled, kSettings, t0 + seconds(1)));
    ASSERT_EQ(marginalPathCheck(sampled, kSettings, true, t0 + seconds(2)), Verdict::StartSampling);
    EXPECT_EQ(marginalPathSampled(sampled, kSettings, 900, 1000, false, t0 + seconds(122)),
              Verdict::Reinstate);
    EXPECT_FALSE(sampled.held);
}
