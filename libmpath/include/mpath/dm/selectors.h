#pragma once

#include <array>
#include <cstdint>
#include <mpath/error.h>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mpath::dm {

/// One selector argument (group-wide) a selector takes and keeps: an
/// unsigned number in [min, max].
struct SelectorArgument {
    std::string_view name; ///< for messages: "base weight"
    uint32_t min;
    uint32_t max;
};

/// historical-service-time's arguments (hst_create() of the stock selector
/// and of dm-lmpath's): the base weight of its moving average, 10-bit
/// fixed point below 1 (1024), and the threshold multiplier.
inline constexpr SelectorArgument kHistoricalServiceTimeArgs[] = {
    {"base weight", 0, 1023},
    {"threshold multiplier", 0, UINT32_MAX},
};

/// What one path selector of the kernel (the stock target's and dm-lmpath's
/// alike) takes in a table and prints back. The one list libmpath checks
/// tables, statuses, configurations and plans against; a unit test holds it
/// to kmod's selectors.
struct SelectorFacts {
    std::string_view name;
    /// The selector arguments (group-wide) it takes and prints back, in
    /// order; it may be given fewer. The selectors without any accept
    /// arguments and ignore them, printing "0" back: a table that gave
    /// them would never read back as built, so they are refused too.
    std::span<const SelectorArgument> selectorArgs;
    /// Per-path arguments of a table, as many as TABLE status prints back.
    unsigned tableArgs;
    /// Per-path words of INFO status.
    unsigned statusArgs;
};

inline constexpr std::array<SelectorFacts, 5> kSelectors{{
    {"round-robin", {}, 1, 0},
    {"queue-length", {}, 1, 1},
    {"service-time", {}, 2, 2},
    {"historical-service-time", kHistoricalServiceTimeArgs, 1, 3},
    {"io-affinity", {}, 1, 1},
}};

/// The facts of selector \a name, null when the kernel has no such selector.
const SelectorFacts *findSelector(std::string_view name);

/// The names of kSelectors joined with ", ", for messages.
std::string selectorNames();

/// Checks \a args as the selector arguments of \a selector (the words after
/// the argument count): as many as it keeps at most, each a decimal number
/// in its range.
/// \return nothing, or EINVAL with a sentence that names the selector, the
///         argument and what it takes ("historical-service-time's base
///         weight is a number from 0 to 1023, not '5000'")
Result<void> checkSelectorArgs(const SelectorFacts &selector, const std::vector<std::string> &args);

/// The per-path arguments a selector keeps and prints back for repeat
/// count \a repeat: the kernel's selectors warn that a repeat count above
/// 1 is deprecated and keep 1; service-time adds its relative throughput
/// (1); historical-service-time prints 0; io-affinity's argument is a CPU
/// mask, passed as given.
std::vector<std::string> pathArgsAsPrinted(std::string_view selector, unsigned repeat);

/// The selector arguments the selector prints back for \a args:
/// historical-service-time fills its base weight and threshold multiplier
/// with 972 and 0.
std::vector<std::string> selectorArgsAsPrinted(std::string_view selector,
                                               std::vector<std::string> args);

} // namespace mpath::dm
