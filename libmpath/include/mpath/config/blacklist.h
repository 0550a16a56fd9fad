#pragma once

#include "mpath/config/regex.h"
#include "mpath/config/source_location.h"

#include <vector>

namespace mpath::config {

/// One device {} entry inside blacklist {} or blacklist_exceptions {}.
struct BlacklistDevice {
    Regex vendor;  ///< empty: any vendor
    Regex product; ///< empty: any product
    SourceLocation where;

    bool operator==(const BlacklistDevice &) const = default;
};

/// One devnode/wwid/property/protocol line of a blacklist section.
struct BlacklistPattern {
    Regex regex;
    SourceLocation where;

    bool operator==(const BlacklistPattern &) const = default;
};

/// blacklist {} or blacklist_exceptions {}. Matching policy (which wins,
/// the property rule's special meaning) belongs to the blacklist code.
struct Blacklist {
    std::vector<BlacklistPattern> devnodes;   ///< devnode "^(ram|loop)[0-9]*"
    std::vector<BlacklistPattern> wwids;      ///< wwid "3600a0980..."
    std::vector<BlacklistPattern> properties; ///< property "(SCSI_IDENT_|ID_WWN)"
    std::vector<BlacklistPattern> protocols;  ///< protocol "scsi:fcp"
    std::vector<BlacklistDevice> devices;     ///< device { vendor ... product ... }

    bool empty() const {
        return devnodes.empty() && wwids.empty() && properties.empty() && protocols.empty() &&
               devices.empty();
    }
    bool operator==(const Blacklist &) const = default;
};

} // namespace mpath::config
