#pragma once

#include "mpath/config.h"
#include "mpath/map.h"

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
    /// - per-path argument: the repeat count, rr_min_io for bio-based maps,
    ///   rr_min_io_rq otherwise; with rr_weight priorities, a path whose
    ///   priority is above 0 gets that count times its priority (in
    ///   Path::pathArgs), as multipath-tools does.
    static void apply(const EffectiveSettings &settings, DmTarget target, Map &map);

    /// "lmpath" or "multipath".
    static const char *targetName(DmTarget target);
};

} // namespace mpath
