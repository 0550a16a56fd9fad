#pragma once

#include "mpath/config/resolved.h"
#include "mpath/config/source_location.h"
#include "mpath/config/values.h"

#include <string>
#include <vector>

namespace mpath::config {

/// One line of a "show config"-style listing.
struct EffectiveEntry {
    std::string keyword; ///< multipath.conf keyword, "path_grouping_policy"
    std::string value;   ///< as it would be written in the file
    Origin origin{Origin::Builtin};
    SourceLocation where;

    bool operator==(const EffectiveEntry &) const = default;
};

/// Every per-map/per-path setting for one path (and the WWID of its map),
/// after multipath-tools' precedence, keyword by keyword: multipaths >
/// overrides > devices (file entries, newest first, then the built-in
/// table) > defaults > built-in defaults, each layer counting only when
/// its section accepts the keyword (docs/configuration.md).
struct EffectiveSettings {
    Resolved<std::string> alias; ///< from multipaths {}, "" when none
    Resolved<GroupingPolicy> pathGroupingPolicy;
    Resolved<PathSelector> pathSelector;
    Resolved<std::string> pathChecker;
    Resolved<std::string> prio;
    Resolved<std::string> prioArgs;
    Resolved<Failback> failback;
    Resolved<NoPathRetry> noPathRetry;
    Resolved<std::vector<std::string>> features;
    Resolved<HardwareHandler> hardwareHandler;
    Resolved<RrWeight> rrWeight;
    Resolved<unsigned> rrMinIo;
    Resolved<unsigned> rrMinIoRq;
    Resolved<bool> userFriendlyNames;
    Resolved<std::string> aliasPrefix;
    Resolved<std::string> uidAttribute;
    Resolved<OffOrNumber> fastIoFailTmo;
    Resolved<DevLossTmo> devLossTmo;
    Resolved<OffOrNumber> ehDeadline;
    Resolved<bool> retainAttachedHwHandler;
    Resolved<bool> detectPrio;
    Resolved<bool> detectChecker;
    Resolved<unsigned> pgInitRetries;
    Resolved<OffOrNumber> pgInitDelayMsecs;
    Resolved<QueueMode> queueMode;
    Resolved<bool> flushOnLastDel;
    Resolved<bool> skipKpartx;
    Resolved<bool> recheckWwid;
    Resolved<bool> deferredRemove;
    Resolved<bool> allTgPt;
    Resolved<OffOrNumber> maxSectorsKb;
    Resolved<OffOrNumber> ghostDelay;
    Resolved<OffOrNumber> marginalPathErrSampleTime;
    Resolved<OffOrNumber> marginalPathErrRateThreshold;
    Resolved<OffOrNumber> marginalPathErrRecheckGapTime;
    Resolved<OffOrNumber> marginalPathDoubleFailedTime;
    Resolved<OffOrNumber> sanPathErrThreshold;
    Resolved<OffOrNumber> sanPathErrForgetRate;
    Resolved<OffOrNumber> sanPathErrRecoveryTime;
    Resolved<OffOrNumber> delayWatchChecks;
    Resolved<OffOrNumber> delayWaitChecks;

    /// Every setting in force as keyword/value/origin: alias first, then
    /// the keywords in the order of the keyword table, less the refused
    /// ones (the built-in device table may still hold a value of them).
    std::vector<EffectiveEntry> entries() const;
};

} // namespace mpath::config
