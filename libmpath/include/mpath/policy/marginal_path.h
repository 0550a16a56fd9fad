#pragma once

#include "mpath/config/effective_settings.h"

#include <chrono>

namespace mpath::policy {

/// multipath-tools' marginal path detection (the four marginal_path_*
/// keywords): a path that device-mapper fails twice within
/// double_failed_time is not reinstated when it comes back until a
/// sample of its I/O (direct reads for sample_time seconds) shows an
/// error rate at most rate_threshold per thousand; a worse sample keeps
/// it failed, and it is sampled again recheck_gap_time seconds later.
struct MarginalPathSettings {
    unsigned doubleFailedTime{0}; ///< seconds within which two failures make a path suspect
    unsigned sampleTime{0};       ///< seconds of direct reads per sample
    int rateThreshold{-1};        ///< errors per thousand reads a path may have; -1: unset
    unsigned recheckGapTime{0};   ///< seconds between a bad sample and the next

    /// As in multipath-tools, only all four together take effect.
    bool enabled() const {
        return doubleFailedTime > 0 && sampleTime > 0 && recheckGapTime > 0 && rateThreshold >= 0;
    }
    /// Some are set, not all: the admin meant it, and it does nothing.
    bool partial() const {
        return !enabled() &&
               (doubleFailedTime > 0 || sampleTime > 0 || recheckGapTime > 0 || rateThreshold >= 0);
    }
    bool operator==(const MarginalPathSettings &) const = default;
};

/// The values in force for a map.
MarginalPathSettings marginalPathSettings(const config::EffectiveSettings &settings);

/// One path's failures and hold.
struct MarginalPathState {
    using Clock = std::chrono::steady_clock;
    unsigned failures{0}; ///< failures since firstFailure
    Clock::time_point firstFailure{};
    bool held{false};     ///< not reinstated until a sample says it is good
    bool sampling{false}; ///< a sample of its I/O runs
    /// When the last sample found it bad; none: sample as soon as it is up.
    Clock::time_point badSampleAt{};
};

/// multipath-tools' io_err_stat_handle_pathfail(): device-mapper failed
/// the path at \a now. \return true when this failure made it held (the
/// second within double_failed_time).
bool marginalPathFailed(MarginalPathState &state, const MarginalPathSettings &s,
                        MarginalPathState::Clock::time_point now);

enum class MarginalPathVerdict {
    Reinstate,     ///< not held (or no longer): reinstate as usual
    Hold,          ///< keep it failed
    StartSampling, ///< keep it failed, and sample its I/O now
};

/// multipath-tools' need_io_err_check(), for a check that finds the path
/// up or ghost: \a othersUsable whether another path of the map can take
/// I/O (a held path with none is reinstated at once).
MarginalPathVerdict marginalPathCheck(MarginalPathState &state, const MarginalPathSettings &s,
                                      bool othersUsable, MarginalPathState::Clock::time_point now);

/// Errors per thousand reads, as multipath-tools computes it (0 without reads).
double marginalPathErrorRate(unsigned errors, unsigned reads);

/// A sample ended with \a errors of \a reads failed: at most the
/// threshold's rate, or no other usable path, and the path is no longer
/// held (Reinstate); otherwise Hold until the next sample.
MarginalPathVerdict marginalPathSampled(MarginalPathState &state, const MarginalPathSettings &s,
                                        unsigned errors, unsigned reads, bool othersUsable,
                                        MarginalPathState::Clock::time_point now);

} // namespace mpath::policy
