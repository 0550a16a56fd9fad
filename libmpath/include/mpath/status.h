#pragma once

#include "mpath/map.h"

#include <string>
#include <string_view>
#include <vector>

namespace mpath {

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

/// The STATUSTYPE_INFO line of the multipath target (`dmsetup status`):
///
///     <#feature info> [info] <#hwh info> [info] <#pgs> <next pg>
///     {<A|E|D> <#selector info> [info] <#paths> <#path info>
///         {<major:minor> <A|F> <fail count> [path info]}}
///
/// with the stock feature info "2 <queueing> <pg_init count>".
class Status {
public:
    /// Applies an INFO line to \p map: group states, per-path
    /// active/failed and fail counts. When \p map already has groups (read
    /// from the table), the status must name the same groups and paths in
    /// the same order; when it has none, groups are created with paths that
    /// carry only their devt.
    /// \param status receives map-wide facts; may be null.
    /// \return 0 on success or -EINVAL with \p why set.
    [[nodiscard]] static int parse(std::string_view info, Map &map, MapStatus *status = nullptr,
                                   std::string *why = nullptr);

    /// Parses a `dmsetup status` line "<start> <length> <target> <info>".
    [[nodiscard]] static int parseLine(std::string_view line, Map &map, MapStatus *status = nullptr,
                                       std::string *why = nullptr);

    /// Builds the INFO line the kernel would print for \p map in its
    /// current state (used by the fake device-mapper). Selector info words
    /// come from \p status when it has them for a path, else zeros.
    static std::string build(const Map &map, const MapStatus &status = {});

    /// How many per-path info words a known selector prints, -1 when the
    /// selector is not known.
    static int selectorInfoArgs(std::string_view selector);
};

} // namespace mpath
