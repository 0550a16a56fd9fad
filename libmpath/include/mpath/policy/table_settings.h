#pragma once

#include "mpath/config/config.h"
#include "mpath/model/map.h"

#include <string>
#include <vector>

namespace mpath::policy {

/// Sets \a map's target, features, hardware handler, per-group selector
/// and per-path arguments, and initial group (1: groups are expected in
/// priority order, see orderGroups()), the way multipath-tools assembles
/// its tables. Of the paths it sets only Path::pathArgs; leaves size and
/// names alone.
/// - features: the configured features, with queue_if_no_path added when
///   no_path_retry queues (queue or N retries) and removed when it fails;
///   pg_init_retries N, pg_init_delay_msecs N, queue_mode bio appended when
///   set;
/// - per-path arguments: what the selector keeps and prints back, so that
///   the kernel reads the table back as built (dm::pathArgsAsPrinted()): a
///   repeat count (rr_min_io for bio-based maps, rr_min_io_rq otherwise)
///   above 1 is reported in \a notes when given. rr_weight priorities
///   weights service-time paths by priority (relative throughput 1..100;
///   multipath-tools writes repeat counts, which the kernel takes as 1);
///   with another selector it is reported in \a notes.
void applyTableSettings(const config::EffectiveSettings &settings, config::DmTarget target,
                        model::Map &map, std::vector<std::string> *notes = nullptr);

/// "lmpath" or "multipath".
std::string_view targetName(config::DmTarget target);

} // namespace mpath::policy
