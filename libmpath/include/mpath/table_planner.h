#pragma once

#include "mpath/config.h"
#include "mpath/discovery.h"
#include "mpath/map.h"
#include "mpath/prioritizer.h"
#include "mpath/udev_properties.h"

#include <string>
#include <vector>

namespace mpath {

/// A map the present devices would get, with its exact table.
struct PlannedMap {
    Map map;
    std::string table;       ///< "0 <size> <target> <params>", as dmsetup takes it
    std::string pathChecker; ///< the checker its paths would get
    std::string prio;        ///< the prioritizer that ranked its paths
    GroupingPolicy grouping{GroupingPolicy::Failover};
    /// What went wrong while planning it without keeping it from being
    /// planned, one line each: "sdb: prioritizer emc: not implemented, the
    /// path ranks -1".
    std::vector<std::string> notes;
};

/// A device left out of every map, and why.
struct PlanSkip {
    std::string kernelName;
    std::string wwid;
    std::string reason; ///< "blacklisted by devnode \"^sda$\"", "no WWID", ...
};

/// Everything plan() decided.
struct Plan {
    std::vector<PlannedMap> maps; ///< sorted by WWID
    std::vector<PlanSkip> skipped;
    std::vector<DiscoveryIssue> issues; ///< devices discovery could not describe
};

/// Inputs of a plan beyond configuration and devices.
struct PlanOptions {
    /// WWIDs known to be multipathed (the wwids file), for find_multipaths.
    std::vector<std::string> knownWwids;
    /// Aliases already bound (the bindings file), for user_friendly_names;
    /// a WWID without a binding keeps its WWID as name, since planning
    /// binds nothing.
    std::vector<std::pair<std::string, std::string>> bindings; ///< {alias, wwid}
    /// How prioritizers reach the devices.
    PrioritizerContext prioritizers;
};

/// Computes, without changing anything, the maps, groups and tables the
/// devices present would get: discovery, blacklist, priorities,
/// find_multipaths, grouping, naming, table settings. The daemon's
/// desired state and `mpathctl plan` both come from here.
class TablePlanner {
public:
    static Plan plan(const Config &config, const Sysfs &sysfs, const UdevProperties &udev,
                     const PlanOptions &options);
};

} // namespace mpath
