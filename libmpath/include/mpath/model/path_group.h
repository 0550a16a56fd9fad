#pragma once

#include "mpath/model/path.h"

#include <string>
#include <vector>

namespace mpath::model {

/// What device-mapper reports for a path group.
enum class GroupState {
    Unknown,
    Active,   ///< 'A': the group I/O goes to now
    Enabled,  ///< 'E': may be switched to
    Disabled, ///< 'D': bypassed
};

inline constexpr std::array<EnumName<GroupState>, 4> kGroupStateNames{{
    {GroupState::Unknown, "unknown"},
    {GroupState::Active, "active"},
    {GroupState::Enabled, "enabled"},
    {GroupState::Disabled, "disabled"},
}};

constexpr std::string_view toString(GroupState s) {
    return nameOf(kGroupStateNames, s);
}

/// Paths that are used together; the kernel picks among them with the
/// group's path selector.
struct PathGroup {
    std::string selector{"service-time"};  ///< "round-robin", "queue-length", ...
    std::vector<std::string> selectorArgs; ///< group-wide selector arguments
    std::vector<Path> paths;
    /// Per-path selector arguments, e.g. {"1"} for a repeat count; same
    /// count for every path of the group.
    std::vector<std::string> pathArgs{"1"};
    int priority{0}; ///< mean priority of the usable paths, decides group order
    GroupState state{GroupState::Unknown};

    bool operator==(const PathGroup &) const = default;
};

} // namespace mpath::model
