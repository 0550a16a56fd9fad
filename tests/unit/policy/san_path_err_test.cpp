#include "mpath/config/parser.h"
#include "mpath/policy/san_path_err.h"

#include <gtest/gtest.h>

using namespace mpath::policy;
using Verdict = SanPathErrVerdict;
using Clock = SanPathErrState::Clock;
using std::chrono::seconds;

namespace {

mpath::config::EffectiveSettings settingsFrom(const char *text) {
    mpath::config::ConfigResult r = mpath::config::parseString(text);
    for (const auto &d : r.diagnostics)
        ADD_FAILURE() << "unexpected diagnostic: " << d.toString();
    return r.config.effective("ACME", "Disk", "1.0", "3600a");
}

} // namespace

TEST(SanPathErr, TakesEffectOnlyWithAllThreeAndDelayChecksAreItsOlderSpelling) {
    EXPECT_FALSE(sanPathErrSettings(settingsFrom(""), 20).enabled());
    EXPECT_FALSE(sanPathErrSettings(settingsFrom("defaults {\n san_path_err_threshold 2\n"
                                                 " san_path_err_forget_rate 10\n}\n"),
                                    20)
                     .enabled())
        << "without a recovery time, as multipath-tools";
    const SanPathErrSettings all =
        sanPathErrSettings(settingsFrom("devices {\n device {\n vendor ACME\n product Disk\n"
                                        " san_path_err_threshold 2\n san_path_err_forget_rate 10\n"
                                        " san_path_err_recovery_time 30\n }\n}\n"),
                           20);
    EXPECT_EQ(all, (SanPathErrSettings{2, 10, 30}));
    EXPECT_TRUE(all.enabled());
    // delay_watch_checks 12, delay_wait_checks 3: threshold 1, forget rate
    // 12, recovery 3 x max_polling_interval.
    EXPECT_EQ(sanPathErrSettings(settingsFrom("defaults {\n delay_watch_checks 12\n"
                                              " delay_wait_checks 3\n}\n"),
                                 20),
              (SanPathErrSettings{1, 12, 60}));
    // Any san_path_err_* set: delay_*_checks are ignored.
    EXPECT_EQ(sanPathErrSettings(settingsFrom("defaults {\n delay_watch_checks 12\n"
                                              " delay_wait_checks 3\n"
                                              " san_path_err_threshold 5\n}\n"),
                                 20),
              (SanPathErrSettings{5, 0, 0}));
}

TEST(SanPathErr, APathFailedMoreThanTheThresholdIsHeldUntilItStayedUpTheRecoveryTime) {
    const SanPathErrSettings s{2, 3, 30};
    SanPathErrState st;
    Clock::time_point t{};
    // Two failures (up after down) are allowed, the third holds it.
    EXPECT_EQ(sanPathErrCheck(st, s, true, true, t), Verdict::Reinstate);
    EXPECT_EQ(sanPathErrCheck(st, s, true, true, t += seconds(5)), Verdict::Reinstate);
    EXPECT_EQ(st.failures, 2u);
    EXPECT_EQ(sanPathErrCheck(st, s, true, true, t += seconds(5)), Verdict::HoldNow);
    EXPECT_TRUE(st.held);
    // Up for 30 s: still held; past 30 s: reinstated, failures forgotten.
    EXPECT_EQ(sanPathErrCheck(st, s, false, true, t += seconds(15)), Verdict::Hold);
    EXPECT_EQ(sanPathErrCheck(st, s, false, true, t += seconds(15)), Verdict::Hold);
    EXPECT_EQ(sanPathErrCheck(st, s, false, true, t += seconds(1)), Verdict::Reinstate);
    EXPECT_FALSE(st.held);
    EXPECT_EQ(st.failures, 0u);
}

TEST(SanPathErr, DownAgainWhileHeldStartsTheRecoveryTimeAgain) {
    const SanPathErrSettings s{1, 3, 30};
    SanPathErrState st;
    Clock::time_point t{};
    sanPathErrCheck(st, s, true, true, t);
    ASSERT_EQ(sanPathErrCheck(st, s, true, true, t += seconds(2)), Verdict::HoldNow);
    EXPECT_EQ(sanPathErrCheck(st, s, false, true, t += seconds(25)), Verdict::Hold);
    // It failed again at 27 s: 30 s from its next good check.
    EXPECT_EQ(sanPathErrCheck(st, s, true, true, t += seconds(5)), Verdict::Hold);
    EXPECT_EQ(sanPathErrCheck(st, s, false, true, t += seconds(29)), Verdict::Hold);
    EXPECT_EQ(sanPathErrCheck(st, s, false, true, t += seconds(2)), Verdict::Reinstate);
}

TEST(SanPathErr, AHeldPathIsReinstatedAtOnceWhenTheMapHasNoOtherUsablePath) {
    const SanPathErrSettings s{1, 3, 30};
    SanPathErrState st;
    Clock::time_point t{};
    sanPathErrCheck(st, s, true, true, t);
    ASSERT_EQ(sanPathErrCheck(st, s, true, true, t), Verdict::HoldNow);
    EXPECT_EQ(sanPathErrCheck(st, s, false, false, t += seconds(1)), Verdict::Reinstate)
        << "a shaky path is better than none";
    EXPECT_FALSE(st.held);
    EXPECT_EQ(st.failures, 0u);
}

TEST(SanPathErr, EveryForgetRateGoodChecksForgetOneFailure) {
    const SanPathErrSettings s{2, 3, 30};
    SanPathErrState st;
    Clock::time_point t{};
    sanPathErrCheck(st, s, true, true, t);
    sanPathErrCheck(st, s, true, true, t);
    ASSERT_EQ(st.failures, 2u);
    // The countdown runs from the forget rate: 3 good checks, then the
    // fourth forgets one failure.
    for (int i = 0; i < 3; ++i)
        sanPathErrCheck(st, s, false, true, t);
    EXPECT_EQ(st.failures, 2u);
    sanPathErrCheck(st, s, false, true, t);
    EXPECT_EQ(st.failures, 1u);
    // One failure again: two, not above the threshold of 2.
    EXPECT_EQ(sanPathErrCheck(st, s, true, true, t), Verdict::Reinstate);
    EXPECT_EQ(st.failures, 2u);
    // Disabled settings change nothing.
    SanPathErrState untouched;
    EXPECT_EQ(sanPathErrCheck(untouched, SanPathErrSettings{2, 0, 30}, true, true, t),
              Verdict::Reinstate);
    EXPECT_EQ(untouched.failures, 0u);
}
