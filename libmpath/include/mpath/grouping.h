#pragma once

#include "mpath/config.h"
#include "mpath/map.h"

#include <string>
#include <vector>

namespace mpath {

/// The paths that share one WWID.
struct WwidPaths {
    std::string wwid;
    std::vector<Path> paths;

    bool operator==(const WwidPaths &) const = default;
};

/// Turns paths into maps and path groups (path_grouping_policy), and
/// orders groups by priority, as multipath-tools does.
class Grouping {
public:
    /// Splits the paths of one map into groups:
    /// - failover: one group per path;
    /// - multibus: one group with every path;
    /// - group_by_serial / group_by_node_name / group_by_tpg / group_by_prio:
    ///   one group per distinct Path::serial / TransportIds::nodeName /
    ///   TransportIds::targetPortGroup / Path::priority.
    /// Paths keep their relative order inside a group; groups are then
    /// ordered with order().
    static std::vector<PathGroup> group(std::vector<Path> paths, GroupingPolicy policy);

    /// True when a path counts for its group's priority: its checker says
    /// up or ghost (or has not run yet) and the device is not offline or
    /// removed.
    static bool usable(const Path &path);

    /// The mean priority of the group's usable paths (a path without
    /// priority counts 0); 0 when no path is usable.
    static int groupPriority(const PathGroup &group);

    /// Sets every group's priority (groupPriority()) and sorts the groups:
    /// higher priority first, then more usable paths first, else as given.
    static void order(std::vector<PathGroup> &groups);

    /// Collects paths by WWID, sorted by WWID, keeping path order; paths
    /// without WWID are left out.
    static std::vector<WwidPaths> byWwid(std::vector<Path> paths);

    /// The map for one WWID: wwid, alias (the WWID until a name is chosen),
    /// size of the first path with a size, groups by \a policy. Paths whose
    /// size differs from the map's cannot be part of it; they are left out
    /// and handed back in \a rejected (may be null).
    static Map buildMap(WwidPaths paths, GroupingPolicy policy,
                        std::vector<Path> *rejected = nullptr);
};

} // namespace mpath
