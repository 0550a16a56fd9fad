#pragma once

#include "mpath/config/config.h"
#include "mpath/config/effective_globals.h"
#include "mpath/config/effective_settings.h"
#include "mpath/config/hwtable.h"

#include <string_view>

// How a path's settings are decided: multipath-tools' precedence, keyword
// by keyword, written down in docs/configuration.md.

namespace mpath::config {

/// The inquiry strings and the WWID of a path: what the resolver matches
/// device and multipaths entries against. It views strings its caller
/// keeps for the time of the call.
struct DeviceIdentity {
    std::string_view vendor;
    std::string_view product;
    std::string_view revision;
    std::string_view wwid; ///< "" when unknown: no multipaths {} entry applies
};

/// The effective settings of a path. For each keyword the first layer that
/// sets it wins, among the layers whose section accepts it:
///
///   1. the multipaths {} entries for the WWID, the last one first;
///   2. overrides {};
///   3. the devices {} entries matching the path, the newest first, then
///      the entries of \a table, the last one first;
///   4. defaults {};
///   5. the built-in default.
///
/// prio_args comes from the layer that gave prio (within the devices
/// layer, from the first entry that sets prio_args). A features
/// "queue_if_no_path" word becomes no_path_retry queue when no layer sets
/// no_path_retry, and is dropped from the features either way. The alias
/// is the one of the first multipaths {} entry that names it.
EffectiveSettings resolve(const Config &config, const DeviceIdentity &device,
                          const Hwtable &table = Hwtable::builtin());

/// The daemon-wide settings: defaults {} over the built-in defaults;
/// max_polling_interval follows polling_interval as in multipath-tools.
EffectiveGlobals resolveGlobals(const Config &config);

/// The whole configuration as it applies, in the shape multipath-tools
/// shows it (multipath -t): defaults {} with every keyword's effective
/// value (each keyword defaults {} accepts; no_path_retry only when set,
/// as it has no default), the devices section built from \a table and
/// \a config's entries (Hwtable::mergedWith()), and \a config's
/// blacklists, multipaths and overrides. Written with write(), it reads
/// back into a configuration that resolves every path the same way.
Config mergedConfig(const Config &config, const Hwtable &table = Hwtable::builtin());

/// The built-in default of every per-map/per-path keyword, each with
/// Origin::Builtin.
EffectiveSettings builtinSettings();

/// The built-in default of every daemon-wide keyword.
EffectiveGlobals builtinGlobals();

} // namespace mpath::config
