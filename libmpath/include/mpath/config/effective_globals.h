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
    Resolved<DmTarget> dmTarget;

    /// Every setting as keyword/value/origin, in the order of the keyword
    /// table.
    std::vector<EffectiveEntry> entries() const;
};

} // namespace mpath::config
