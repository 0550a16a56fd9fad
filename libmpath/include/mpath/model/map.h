#pragma once

#include "mpath/model/path_group.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpath::model {

/// One multipath device: a device-mapper map over the path groups of one
/// WWID.
struct Map {
    std::string wwid;
    std::string alias;            ///< map name: user-friendly, configured, or the WWID
    std::string target{"lmpath"}; ///< "lmpath" or the stock "multipath"
    /// Feature words as in the table, without the count, e.g.
    /// {"queue_if_no_path", "pg_init_retries", "50"}.
    std::vector<std::string> features;
    std::string hwHandler; ///< "" for none, else "alua", "rdac", ...
    std::vector<std::string> hwHandlerArgs;
    std::vector<PathGroup> groups;
    unsigned initialGroup{1}; ///< 1-based, as in the table
    uint64_t sizeSectors{0};

    /// DM uuid: "mpath-<wwid>".
    std::string dmUuid() const { return "mpath-" + wwid; }

    bool operator==(const Map &) const = default;
};

} // namespace mpath::model
