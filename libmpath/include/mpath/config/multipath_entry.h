#pragma once

#include "mpath/config/settings.h"
#include "mpath/config/source_location.h"

#include <string>

namespace mpath::config {

/// A multipaths {} entry: settings for one WWID.
struct MultipathEntry {
    std::string wwid;  ///< exact WWID, required
    std::string alias; ///< map name, "" for none
    Settings settings;
    SourceLocation where; ///< the entry's "multipath {" line

    bool operator==(const MultipathEntry &) const = default;
};

} // namespace mpath::config
