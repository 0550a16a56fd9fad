#pragma once

#include "mpath/config.h"
#include "mpath/map.h"

#include <string>
#include <vector>

namespace mpath {

/// Turns effective configuration into the table-level fields of a Map,
/// the way multipath-tools assembles its tables.
class TableSettings {
public:
    /// Sets \p map's target, features, hardware handler, per-group selector
    /// and per-path arguments, and initial group (1: groups are expected in
    /// priority order, see Grouping::order()). Of the paths it sets only
    /// Path::pathArgs; leaves size and names alone.
    /// - features: the configured features, with queue_if_no_path added
    ///   when no_path_retry queues (queue or N retries) and removed when it
    ///   fails; pg_init_retries N, pg_init_delay_msecs N, queue_mode bio
    ///   appended when set;
    /// - per-path arguments: what the selector keeps and prints back, so
    ///   that the kernel reads the table back as built: the repeat count
    ///   (rr_min_io for bio-based maps, rr_min_io_rq otherwise) capped at
    ///   1, which is all the kernel's selectors keep; service-time adds
    ///   its relative throughput 1, historical-service-time takes 0 (and
    ///   its selector arguments get their defaults, 972 and 0, filled). A
    ///   count above 1, and rr_weight priorities (which multipath-tools
    ///   writes as counts above 1), are reported in \p notes when given.
    static void apply(const EffectiveSettings &settings, DmTarget target, Map &map,
                      std::vector<std::string> *notes = nullptr);

    /// "lmpath" or "multipath".
    static const char *targetName(DmTarget target);
};

} // namespace mpath
