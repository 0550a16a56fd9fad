#pragma once

#include "mpath/config/effective_settings.h"
#include "mpath/config/resolved.h"
#include "mpath/config/values.h"

#include <string>
#include <vector>

namespace mpath::config {

/// Daemon-wide settings after defaults {} over built-in defaults.
struct EffectiveGlobals {
    Resolved<unsigned> verbosity;
    Resolved<FindMultipaths> findMultipaths;
    Resolved<int> findMultipathsTimeout;
    Resolved<unsigned> pollingInterval;
    Resolved<unsigned> maxPollingInterval;
    Resolved<unsigned> checkerTimeout;
    Resolved<std::string> bindingsFile;
    Resolved<std::string> wwidsFile;
    Resolved<std::string> configDir;
    Resolved<bool> queueWithoutDaemon;
    Resolved<MarginalPathgroups> marginalPathgroups;
    Resolved<MaxFds> maxFds;
    Resolved<DmTarget> dmTarget;

    /// Every setting in force as keyword/value/origin, in the order of the
    /// keyword table, less the refused ones.
    std::vector<EffectiveEntry> entries() const;
};

} // namespace mpath::config
