#pragma once

#include "mpath/config/config.h"
#include "mpath/model/map.h"

#include <string>
#include <vector>

namespace mpath::policy {

/// The paths that share one WWID.
struct WwidPaths {
    std::string wwid;
    std::vector<model::Path> paths;

    bool operator==(const WwidPaths &) const = default;
};

// Turning paths into maps and path groups (path_grouping_policy), and
// ordering groups by priority, as multipath-tools does.

/// Splits the paths of one map into groups:
/// - failover: one group per path;
/// - multibus: one group with every path;
/// - group_by_serial / group_by_node_name / group_by_tpg / group_by_prio:
///   one group per distinct Path::serial / TransportIds::nodeName /
///   TransportIds::targetPortGroup / Path::priority.
/// Paths keep their relative order inside a group; groups are then ordered
/// with orderGroups().
std::vector<model::PathGroup> groupPaths(std::vector<model::Path> paths,
                                         config::GroupingPolicy policy);

/// True when a path counts for its group's priority: its checker says up
/// or ghost (or has not run yet) and the device is not offline or removed.
bool usable(const model::Path &path);

/// The mean priority of the group's usable paths (a path without priority
/// counts 0); 0 when no path is usable.
int groupPriority(const model::PathGroup &group);

/// Sets every group's priority (groupPriority()) and sorts the groups:
/// higher priority first, then more usable paths first, else as given.
void orderGroups(std::vector<model::PathGroup> &groups);

/// Collects paths by WWID, sorted by WWID, keeping path order; paths
/// without WWID are left out.
std::vector<WwidPaths> byWwid(std::vector<model::Path> paths);

/// The map for one WWID: wwid, alias (the WWID until a name is chosen),
/// size of the first path with a size, groups by \a policy. Paths whose
/// size differs from the map's cannot be part of it; they are left out and
/// handed back in \a rejected (may be null).
model::Map buildMap(WwidPaths paths, config::GroupingPolicy policy,
                    std::vector<model::Path> *rejected = nullptr);

} // namespace mpath::policy
