#pragma once

#include "mpath/path.h"

#include <string>
#include <vector>

namespace mpath {

/// What device-mapper reports for a path group.
enum class GroupState {
    Unknown,
    Active,   ///< 'A': the group I/O goes to now
    Enabled,  ///< 'E': may be switched to
    Disabled, ///< 'D': bypassed
};

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

const char *toString(GroupState s);

} // namespace mpath
