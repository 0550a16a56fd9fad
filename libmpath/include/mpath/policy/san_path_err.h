#pragma once

#include "mpath/config/effective_settings.h"

#include <chrono>
#include <string>

namespace mpath::policy {

/// multipath-tools' shaky path detection (san_path_err_threshold,
/// san_path_err_forget_rate, san_path_err_recovery_time, or their older
/// spelling delay_watch_checks / delay_wait_checks): a path that keeps
/// coming back and failing again is not reinstated until it has stayed up
/// for the recovery time.
struct SanPathErrSettings {
    unsigned threshold{0};    ///< failures a path may have before it is held
    unsigned forgetRate{0};   ///< good checks that forget one failure
    unsigned recoveryTime{0}; ///< seconds a held path must stay up

    /// As in multipath-tools, only all three together take effect.
    bool enabled() const { return threshold > 0 && forgetRate > 0 && recoveryTime > 0; }
    bool operator==(const SanPathErrSettings &) const = default;
};

/// The values in force for a map: san_path_err_* where any of them is
/// set; otherwise delay_watch_checks N (threshold 1, forget rate N) and
/// delay_wait_checks M (recovery time M x \a maxPollingInterval), as
/// multipath-tools derives them.
SanPathErrSettings sanPathErrSettings(const config::EffectiveSettings &settings,
                                      unsigned maxPollingInterval);

/// One path's count of failures and hold.
struct SanPathErrState {
    using Clock = std::chrono::steady_clock;
    unsigned failures{0}; ///< failures not forgotten yet
    unsigned forgetIn{0}; ///< good checks until one more is forgotten
    bool held{false};     ///< not reinstated until recovered
    Clock::time_point heldSince{};
};

/// What a check that finds the path up or ghost means.
enum class SanPathErrVerdict {
    Reinstate, ///< not held (or no longer): reinstate as usual
    Hold,      ///< keep it failed
    HoldNow,   ///< it just crossed the threshold: keep it failed, and say so
};

/// multipath-tools' check_path_reinstate_state(), called for each check
/// that finds the path up or ghost when \a s is enabled: \a wasDown is
/// whether the check before found it down (a failure to count, or, for a
/// held path, a new start of its recovery time); \a othersUsable whether
/// another path of the map can take I/O (a held path with none is
/// reinstated at once); \a now the time of the check.
SanPathErrVerdict sanPathErrCheck(SanPathErrState &state, const SanPathErrSettings &s, bool wasDown,
                                  bool othersUsable, SanPathErrState::Clock::time_point now);

} // namespace mpath::policy
