#include "mpath/policy/san_path_err.h"

namespace mpath::policy {

SanPathErrSettings sanPathErrSettings(const config::EffectiveSettings &settings,
                                      unsigned maxPollingInterval) {
    auto value = [](const config::Resolved<config::OffOrNumber> &r) {
        return r.value.off ? 0u : r.value.value;
    };
    SanPathErrSettings s{value(settings.sanPathErrThreshold), value(settings.sanPathErrForgetRate),
                         value(settings.sanPathErrRecoveryTime)};
    if (s.threshold > 0 || s.forgetRate > 0 || s.recoveryTime > 0)
        return s; // the delay_*_checks keywords are then ignored
    const unsigned watch = value(settings.delayWatchChecks);
    const unsigned wait = value(settings.delayWaitChecks);
    if (watch == 0 && wait == 0)
        return s;
    s.threshold = 1;
    s.forgetRate = watch;
    s.recoveryTime = wait * maxPollingInterval;
    return s;
}

SanPathErrVerdict sanPathErrCheck(SanPathErrState &st, const SanPathErrSettings &s, bool wasDown,
                                  bool othersUsable, SanPathErrState::Clock::time_point now) {
    if (!s.enabled())
        return SanPathErrVerdict::Reinstate;
    if (st.held) {
        // No other path for the map's I/O: this one rather than none.
        if (!othersUsable) {
            st = {};
            return SanPathErrVerdict::Reinstate;
        }
        // Down again since: its recovery time starts again.
        if (wasDown) {
            st.forgetIn = s.forgetRate;
            st.heldSince = now;
        }
        if (now - st.heldSince > std::chrono::seconds(s.recoveryTime)) {
            st = {};
            return SanPathErrVerdict::Reinstate;
        }
        return SanPathErrVerdict::Hold;
    }
    if (!wasDown) {
        // Up and up again: every forgetRate good checks forget a failure.
        if (st.failures > 0) {
            if (st.forgetIn > 0) {
                --st.forgetIn;
            } else {
                --st.failures;
                st.forgetIn = s.forgetRate;
            }
        }
        return SanPathErrVerdict::Reinstate;
    }
    if (st.failures == 0)
        st.forgetIn = s.forgetRate;
    ++st.failures;
    if (st.failures > s.threshold) {
        st.held = true;
        st.heldSince = now;
        return SanPathErrVerdict::HoldNow;
    }
    return SanPathErrVerdict::Reinstate;
}

} // namespace mpath::policy
