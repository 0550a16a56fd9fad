#pragma once

#include "mpath/config/config.h"
#include "mpath/discovery/discovery.h"
#include "mpath/discovery/udev_properties.h"
#include "mpath/model/map.h"
#include "mpath/policy/blacklist.h"
#include "mpath/policy/marginal_path.h"
#include "mpath/policy/names.h"
#include "mpath/policy/san_path_err.h"
#include "mpath/policy/transport_timeouts.h"
#include "mpath/state/bindings.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mpath::policy {

/// The prioritizer and checker a path gets.
struct PathPolicy {
    std::string prio;
    std::string prioArgs;
    std::string checker;
    /// detect_prio chose \a prio (ana) for a device that may not support
    /// it: then the configured one, "" when none.
    std::string fallbackPrio;
    std::string fallbackPrioArgs;

    bool operator==(const PathPolicy &) const = default;
};

/// The configured prioritizer and checker, or, with detect_prio and
/// detect_checker as in multipath-tools, for a device that reports ALUA
/// support: the sysfs prioritizer when the kernel shows the port's
/// access_state (alua otherwise), and the tur checker.
PathPolicy choosePathPolicy(const config::EffectiveSettings &settings, const model::Path &path);

/// Why a path is in no map whatever the priorities: blacklisted, or no
/// WWID. nullopt when it may be multipathed. \a properties may be null
/// (udev has no data on the device).
std::optional<std::string> excluded(const BlacklistFilter &filter,
                                    const config::EffectiveSettings &settings,
                                    const model::Path &path,
                                    const discovery::UdevPropertyMap *properties);

/// What planning starts from: what discovery found, the priorities, and
/// the state files. Gatherer fills it from the running system.
struct PlanInput {
    /// Every described block device, priorities set where computed (-1
    /// where not).
    std::vector<model::Path> paths;
    /// udev properties by kernel name, for the blacklist's property rule; a
    /// path without an entry has no udev data.
    std::map<std::string, discovery::UdevPropertyMap> udevProperties;
    /// Why a path has no priority, by kernel name: "prioritizer alua: ...".
    std::map<std::string, std::string> priorityNotes;
    /// Devices discovery could not describe.
    std::vector<discovery::Issue> issues;
    /// WWIDs known to be multipathed (the wwids file), for find_multipaths.
    std::set<std::string> knownWwids;
    /// The bindings file, for user_friendly_names.
    state::Bindings bindings;
};

/// A map the paths would get, with its exact table.
struct PlannedMap {
    model::Map map;
    std::string table;       ///< "0 <size> <target> <params>", as dmsetup takes it
    std::string pathChecker; ///< the checker its paths get
    std::string prio;        ///< the prioritizer that ranked its paths
    config::GroupingPolicy grouping{config::GroupingPolicy::Failover};
    bool skipKpartx{false};        ///< skip_kpartx: no partition mappings on it
    unsigned maxSectorsKb{0};      ///< max_sectors_kb for each path before a load; 0: none
    unsigned ghostDelay{0};        ///< ghost_delay in seconds; 0: off
    SanPathErrSettings sanPathErr; ///< shaky path detection of its paths
    /// marginal_path_*: I/O error sampling of its paths that fail twice in
    /// a row; where in force, sanPathErr is not (as in multipath-tools).
    MarginalPathSettings marginalPath;
    TransportTimeouts timeouts; ///< what its paths' transports are given
    NameChoice name;            ///< how map.alias was chosen, and a binding it needs
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
    std::vector<discovery::Issue> issues; ///< devices discovery could not describe
    /// The bindings with the new aliases of the plan: what the bindings
    /// file holds once the daemon has made these maps.
    state::Bindings bindings;
};

/// The maps, groups and tables \a input gives under \a config: blacklist,
/// find_multipaths, grouping by priority, naming, table settings. A pure
/// function: no I/O, same input same plan. The daemon's desired state and
/// `mpathctl plan` both come from here.
Plan plan(const config::Config &config, const PlanInput &input);

} // namespace mpath::policy
