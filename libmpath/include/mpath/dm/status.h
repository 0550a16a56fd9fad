#pragma once

#include "mpath/error.h"
#include "mpath/model/map.h"

#include <string>
#include <string_view>
#include <vector>

// The STATUSTYPE_INFO line of the multipath target (`dmsetup status`):
//
//     <#feature info> [info] <#hwh info> [info] <#pgs> <next pg>
//     {<A|E|D> <#selector info> [info] <#paths> <#path info>
//         {<major:minor> <A|F> <fail count> [path info]}}
//
// with the stock feature info "2 <queueing> <pg_init count>".

namespace mpath::dm {

/// Map-wide facts of a status INFO line that have no place in the model.
struct MapStatus {
    /// The kernel holds I/O back until path group initialisation ends
    /// (MPATHF_QUEUE_IO). Not set by queue_if_no_path queueing, which the
    /// status does not show.
    bool queueing{false};
    unsigned pgInitCount{0}; ///< path group initialisations so far
    unsigned nextGroup{0};   ///< group the next I/O goes to, 1-based, 0 if none
    /// Selector info words per group and path, e.g. {"0", "1"} for
    /// service-time's in-flight size and relative throughput.
    std::vector<std::vector<std::vector<std::string>>> selectorInfo;

    bool operator==(const MapStatus &) const = default;
};

/// Applies an INFO line to \a map: group states, per-path active/failed and
/// fail counts. When \a map already has groups (read from the table), the
/// status must name the same groups and paths in the same order; when it
/// has none, groups are created with paths that carry only their devt.
/// \a map changes only on success.
/// \return the map-wide facts, or EINVAL naming the word at fault
Result<MapStatus> parseStatus(std::string_view info, model::Map &map);

/// parseStatus() of a `dmsetup status` line "<start> <length> <target>
/// <info>".
Result<MapStatus> parseStatusLine(std::string_view line, model::Map &map);

/// The INFO line the kernel would print for \a map in its current state
/// (what the fake device-mapper answers). Selector info words come from
/// \a status when it has them for a path, else zeros.
std::string buildStatus(const model::Map &map, const MapStatus &status = {});

} // namespace mpath::dm
