#pragma once

#include "mpath/config/blacklist.h"
#include "mpath/config/device_entry.h"
#include "mpath/config/diagnostic.h"
#include "mpath/config/effective_globals.h"
#include "mpath/config/effective_settings.h"
#include "mpath/config/multipath_entry.h"
#include "mpath/config/resolved.h"
#include "mpath/config/settings.h"
#include "mpath/config/source_location.h"
#include "mpath/config/values.h"
#include "mpath/model/path.h"

#include <string>
#include <string_view>
#include <vector>

/// Configuration in multipath.conf syntax: its values (values.h), its
/// sections (settings.h, blacklist.h, device_entry.h, multipath_entry.h),
/// the files they come from (parser.h, loader.h), and how a path's
/// effective settings are resolved from them (resolve.h).
namespace mpath::config {

/// A parsed configuration: every section of every file read, in order.
/// Built by parse() / Loader; a value type.
struct Config {
    GlobalSettings globals; ///< defaults {} keywords that are daemon-wide
    Settings defaults;      ///< defaults {} keywords that are per map/path
    Blacklist blacklist;
    Blacklist blacklistExceptions;
    std::vector<DeviceEntry> devices; ///< file order; later entries win
    std::vector<MultipathEntry> multipaths;
    Settings overrides;
    std::vector<std::string> files; ///< files read, in order
    /// True when the main file was mpathd.conf (not multipath.conf); only
    /// then are our own keywords (dm_target) accepted.
    bool ownFile{false};

    /// The effective settings for a path with these inquiry strings in the
    /// map of \a wwid, using the built-in hardware table (see resolve()).
    EffectiveSettings effective(std::string_view vendor, std::string_view product,
                                std::string_view revision, std::string_view wwid) const;
    /// Same, taking vendor/product/revision/wwid from \a path.
    EffectiveSettings effective(const model::Path &path) const;

    /// Daemon-wide settings (see resolveGlobals()).
    EffectiveGlobals effectiveGlobals() const;

    /// The last multipaths {} entry for \a wwid, or null.
    const MultipathEntry *multipathFor(std::string_view wwid) const;

    bool operator==(const Config &) const = default;
};

} // namespace mpath::config
