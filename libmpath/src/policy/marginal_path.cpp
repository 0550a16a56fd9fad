#include "mpath/policy/marginal_path.h"

namespace mpath::policy {

MarginalPathSettings marginalPathSettings(const config::EffectiveSettings &settings) {
    auto value = [](const config::Resolved<config::OffOrNumber> &r) {
        return r.value.off ? 0u : r.value.value;
    };
    const auto &threshold = settings.marginalPathErrRateThreshold.value;
    return {value(settings.marginalPathDoubleFailedTime), value(settings.marginalPathErrSampleTime),
            threshold.off ? -1 : static_cast<int>(threshold.value),
            value(settings.marginalPathErrRecheckGapTime)};
}

bool marginalPathFailed(MarginalPathState &st, const MarginalPathSettings &s,
                        MarginalPathState::Clock::time_point now) {
    if (!s.enabled() || st.held)
        return false;
    if (st.failures == 0 || now - st.firstFailure > std::chrono::seconds(s.doubleFailedTime)) {
        st.failures = 0;
        st.firstFailure = now;
    }
    if (++st.failures < 2)
        return false;
    st = {};
    st.held = true; // sampled as soon as it is up again
    return true;
}

MarginalPathVerdict marginalPathCheck(MarginalPathState &st, const MarginalPathSettings &s,
                                      bool othersUsable, MarginalPathState::Clock::time_point now) {
    if (!s.enabled() || !st.held)
        return MarginalPathVerdict::Reinstate;
    if (!othersUsable) {
        // No other path for the map's I/O: this one rather than none.
        st = {};
        return MarginalPathVerdict::Reinstate;
    }
    if (st.sampling)
        return MarginalPathVerdict::Hold;
    if (st.badSampleAt == MarginalPathState::Clock::time_point{} ||
        now - st.badSampleAt > std::chrono::seconds(s.recheckGapTime)) {
        st.sampling = true;
        return MarginalPathVerdict::StartSampling;
    }
    return MarginalPathVerdict::Hold;
}

double marginalPathErrorRate(unsigned errors, unsigned reads) {
    return reads == 0 ? 0.0 : errors * 1000.0 / reads;
}

MarginalPathVerdict marginalPathSampled(MarginalPathState &st, const MarginalPathSettings &s,
                                        unsigned errors, unsigned reads, bool othersUsable,
                                        MarginalPathState::Clock::time_point now) {
    st.sampling = false;
    if (!s.enabled() || !st.held || !othersUsable ||
        marginalPathErrorRate(errors, reads) <= s.rateThreshold) {
        st = {};
        return MarginalPathVerdict::Reinstate;
    }
    st.badSampleAt = now;
    return MarginalPathVerdict::Hold;
}

} // namespace mpath::policy
