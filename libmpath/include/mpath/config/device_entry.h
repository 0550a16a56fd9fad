#pragma once

#include "mpath/config/regex.h"
#include "mpath/config/settings.h"
#include "mpath/config/source_location.h"

#include <string_view>

namespace mpath::config {

/// A devices {} entry (or a built-in table entry): which paths it matches
/// and what it sets for them.
struct DeviceEntry {
    Regex vendor;           ///< required in a file
    Regex product;          ///< required in a file
    Regex revision;         ///< empty: any revision
    Regex productBlacklist; ///< product_blacklist, empty: none
    Settings settings;
    SourceLocation where; ///< the entry's "device {" line; empty when built in

    /// True when vendor, product and revision match the path's inquiry data.
    bool matches(std::string_view vendorText, std::string_view productText,
                 std::string_view revisionText) const;

    /// True when \a other is written with the same vendor, product and
    /// revision patterns: multipath-tools merges such entries into one.
    bool sameDevice(const DeviceEntry &other) const;

    bool operator==(const DeviceEntry &) const = default;
};

} // namespace mpath::config
