#pragma once

#include "mpath/config/source_location.h"
#include "mpath/config/values.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpath::config {

/// The line each keyword of a section was read from, by keyword.
using KeywordLines = std::map<std::string, SourceLocation, std::less<>>;

/// Settings that can be given per map or per path: in defaults {}, in a
/// devices {} entry, in a multipaths {} entry or in overrides {}. Which
/// section accepts which keyword follows multipath-tools; an unset field
/// leaves the decision to the layer below.
struct Settings {
    std::optional<GroupingPolicy> pathGroupingPolicy; ///< path_grouping_policy
    std::optional<PathSelector> pathSelector;         ///< path_selector
    std::optional<std::string> pathChecker;           ///< path_checker (tur, directio, ...)
    std::optional<std::string> prio;                  ///< prio (const, alua, ontap, ...)
    std::optional<std::string> prioArgs;              ///< prio_args, the rest of the line
    std::optional<Failback> failback;                 ///< failback
    std::optional<NoPathRetry> noPathRetry;           ///< no_path_retry
    /// features, without the leading count: {"queue_if_no_path"}.
    std::optional<std::vector<std::string>> features;
    std::optional<HardwareHandler> hardwareHandler;       ///< hardware_handler
    std::optional<RrWeight> rrWeight;                     ///< rr_weight
    std::optional<unsigned> rrMinIo;                      ///< rr_min_io (bio-based maps)
    std::optional<unsigned> rrMinIoRq;                    ///< rr_min_io_rq
    std::optional<bool> userFriendlyNames;                ///< user_friendly_names
    std::optional<std::string> aliasPrefix;               ///< alias_prefix
    std::optional<std::string> uidAttribute;              ///< uid_attribute (udev property)
    std::optional<OffOrNumber> fastIoFailTmo;             ///< fast_io_fail_tmo
    std::optional<DevLossTmo> devLossTmo;                 ///< dev_loss_tmo
    std::optional<OffOrNumber> ehDeadline;                ///< eh_deadline
    std::optional<bool> retainAttachedHwHandler;          ///< retain_attached_hw_handler
    std::optional<bool> detectPrio;                       ///< detect_prio
    std::optional<bool> detectChecker;                    ///< detect_checker
    std::optional<unsigned> pgInitRetries;                ///< pg_init_retries, 0 = kernel default
    std::optional<OffOrNumber> pgInitDelayMsecs;          ///< pg_init_delay_msecs
    std::optional<QueueMode> queueMode;                   ///< queue_mode
    std::optional<bool> flushOnLastDel;                   ///< flush_on_last_del
    std::optional<bool> skipKpartx;                       ///< skip_kpartx
    std::optional<bool> recheckWwid;                      ///< recheck_wwid
    std::optional<bool> deferredRemove;                   ///< deferred_remove
    std::optional<bool> allTgPt;                          ///< all_tg_pt
    std::optional<OffOrNumber> maxSectorsKb;              ///< max_sectors_kb
    std::optional<OffOrNumber> ghostDelay;                ///< ghost_delay
    std::optional<OffOrNumber> marginalPathErrSampleTime; ///< marginal_path_err_sample_time
    std::optional<OffOrNumber> marginalPathErrRateThreshold; ///< marginal_path_err_rate_threshold
    std::optional<OffOrNumber>
        marginalPathErrRecheckGapTime;                       ///< marginal_path_err_recheck_gap_time
    std::optional<OffOrNumber> marginalPathDoubleFailedTime; ///< marginal_path_double_failed_time
    std::optional<OffOrNumber> sanPathErrThreshold;          ///< san_path_err_threshold
    std::optional<OffOrNumber> sanPathErrForgetRate;         ///< san_path_err_forget_rate
    std::optional<OffOrNumber> sanPathErrRecoveryTime;       ///< san_path_err_recovery_time
    std::optional<OffOrNumber> delayWatchChecks;             ///< delay_watch_checks
    std::optional<OffOrNumber> delayWaitChecks;              ///< delay_wait_checks

    /// Where each keyword set above was read; empty for settings built in
    /// code (the built-in device table, tests).
    KeywordLines where;

    bool operator==(const Settings &) const = default;
};

/// Keywords that only defaults {} accepts: they are daemon-wide.
struct GlobalSettings {
    std::optional<unsigned> verbosity;                    ///< verbosity 0..6
    std::optional<FindMultipaths> findMultipaths;         ///< find_multipaths
    std::optional<int> findMultipathsTimeout;             ///< find_multipaths_timeout, seconds
    std::optional<unsigned> pollingInterval;              ///< polling_interval, seconds
    std::optional<unsigned> maxPollingInterval;           ///< max_polling_interval, seconds
    std::optional<unsigned> checkerTimeout;               ///< checker_timeout, 0 = from sysfs
    std::optional<std::string> bindingsFile;              ///< bindings_file
    std::optional<std::string> wwidsFile;                 ///< wwids_file
    std::optional<std::string> configDir;                 ///< config_dir
    std::optional<bool> queueWithoutDaemon;               ///< queue_without_daemon
    std::optional<MarginalPathgroups> marginalPathgroups; ///< marginal_pathgroups
    std::optional<MaxFds> maxFds;                         ///< max_fds
    std::optional<DmTarget> dmTarget;                     ///< dm_target (mpathd.conf only)

    /// Where each keyword set above was read.
    KeywordLines where;

    bool operator==(const GlobalSettings &) const = default;
};

} // namespace mpath::config
