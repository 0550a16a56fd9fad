#pragma once

#include "mpath/config/device_entry.h"
#include "mpath/config/settings.h"

#include <string_view>
#include <vector>

namespace mpath::config {

/// A table of device entries: what storage arrays need by default.
///
/// Several entries may match one path (a generic "NVME" entry and a
/// vendor-specific one); they are merged keyword by keyword, later entries
/// over earlier ones, as multipath-tools does.
class Hwtable {
public:
    explicit Hwtable(std::vector<DeviceEntry> entries) : entries_(std::move(entries)) {}

    /// The compiled-in table of common arrays.
    static const Hwtable &builtin();

    const std::vector<DeviceEntry> &entries() const { return entries_; }

    /// Every entry matching the inquiry strings, in table order.
    std::vector<const DeviceEntry *> matching(std::string_view vendor, std::string_view product,
                                              std::string_view revision) const;

    /// The settings of every matching entry merged, later over earlier;
    /// all fields unset when nothing matches.
    Settings merged(std::string_view vendor, std::string_view product,
                    std::string_view revision) const;

    /// The devices section multipath-tools builds from this table and the
    /// entries of configuration files: this table's entries, then
    /// \a entries in order. An entry written with the same vendor, product
    /// and revision as an earlier one (DeviceEntry::sameDevice()) takes
    /// that one's place at its own position, keeping the earlier entry's
    /// settings it does not set itself. Resolving against the result
    /// gives what resolving against this table and \a entries gives.
    std::vector<DeviceEntry> mergedWith(const std::vector<DeviceEntry> &entries) const;

private:
    std::vector<DeviceEntry> entries_;
};

/// Every field \a over sets replaces the one in \a base, with its line.
void mergeSettings(Settings &base, const Settings &over);

} // namespace mpath::config
