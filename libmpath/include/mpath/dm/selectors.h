#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace mpath::dm {

/// What one path selector of the kernel (the stock target's and dm-lmpath's
/// alike) takes in a table and prints back. The one list libmpath checks
/// tables, statuses, configurations and plans against; a unit test holds it
/// to kmod's selectors.
struct SelectorFacts {
    std::string_view name;
    /// Selector arguments (group-wide) it takes at most: historical-service-
    /// time's base weight and threshold multiplier; none for the others.
    unsigned maxSelectorArgs;
    /// Per-path arguments of a table, as many as TABLE status prints back.
    unsigned tableArgs;
    /// Per-path words of INFO status.
    unsigned statusArgs;
};

inline constexpr std::array<SelectorFacts, 5> kSelectors{{
    {"round-robin", 0, 1, 0},
    {"queue-length", 0, 1, 1},
    {"service-time", 0, 2, 2},
    {"historical-service-time", 2, 1, 3},
    {"io-affinity", 0, 1, 1},
}};

/// The facts of selector \a name, null when the kernel has no such selector.
const SelectorFacts *findSelector(std::string_view name);

/// The names of kSelectors joined with ", ", for messages.
std::string selectorNames();

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
