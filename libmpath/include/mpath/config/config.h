#pragma once

#include "mpath/config/regex.h"
#include "mpath/model/path.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// Configuration in multipath.conf syntax: its values, sections, files,
/// and how a path's effective settings are resolved from them.
namespace mpath::config {

// ---------------------------------------------------------------------------
// Typed values of configuration keywords
// ---------------------------------------------------------------------------

/// find_multipaths: which devices become multipath maps.
enum class FindMultipaths {
    Strict, ///< only WWIDs already in the wwids file or in multipaths {}
    Off,    ///< "off"/"no": every non-blacklisted device
    On,     ///< "on"/"yes": devices with at least two paths, or known WWIDs
    Greedy, ///< every non-blacklisted device, even with one path
    Smart,  ///< like On, and wait find_multipaths_timeout for a second path
};

/// path_grouping_policy: how paths of one map are split into groups.
enum class GroupingPolicy {
    Failover,        ///< one path per group
    Multibus,        ///< all paths in one group
    GroupBySerial,   ///< one group per target serial number
    GroupByPrio,     ///< one group per priority value
    GroupByNodeName, ///< one group per target node name
    GroupByTpg,      ///< one group per ALUA target port group
};

/// failback: what to do when a higher priority group becomes usable.
struct Failback {
    enum class Kind {
        Immediate,  ///< switch at once
        Manual,     ///< never switch on our own
        Followover, ///< switch only when the first path of a group comes back
        Seconds,    ///< switch after `seconds` (the daemon's timer)
    };
    Kind kind{Kind::Manual};
    unsigned seconds{0}; ///< only for Kind::Seconds

    static Failback immediate() { return {Kind::Immediate, 0}; }
    static Failback manual() { return {Kind::Manual, 0}; }
    static Failback followover() { return {Kind::Followover, 0}; }
    static Failback after(unsigned s) { return {Kind::Seconds, s}; }

    bool operator==(const Failback &) const = default;
};

/// no_path_retry: what happens to I/O when the last path fails.
struct NoPathRetry {
    enum class Kind {
        Fail,    ///< fail I/O at once ("fail", "0")
        Queue,   ///< queue forever ("queue")
        Retries, ///< queue for `retries` checker intervals, then fail
    };
    Kind kind{Kind::Fail};
    unsigned retries{0}; ///< only for Kind::Retries, never 0

    static NoPathRetry fail() { return {Kind::Fail, 0}; }
    static NoPathRetry queue() { return {Kind::Queue, 0}; }
    static NoPathRetry times(unsigned n) { return {Kind::Retries, n}; }

    bool operator==(const NoPathRetry &) const = default;
};

/// A number that can also be switched off ("off" / "no"); used where the
/// absence of a value means "not used" or "leave the kernel's default".
struct OffOrNumber {
    bool off{true};
    unsigned value{0}; ///< only when !off

    static OffOrNumber disabled() { return {true, 0}; }
    static OffOrNumber number(unsigned v) { return {false, v}; }

    bool operator==(const OffOrNumber &) const = default;
};

/// dev_loss_tmo: seconds, or "infinity".
struct DevLossTmo {
    bool infinity{false};
    unsigned seconds{0}; ///< only when !infinity

    static DevLossTmo infinite() { return {true, 0}; }
    static DevLossTmo after(unsigned s) { return {false, s}; }

    bool operator==(const DevLossTmo &) const = default;
};

/// path_selector: a selector name and its group-wide arguments, e.g.
/// "service-time 0" gives {"service-time", {}} (the leading number is the
/// argument count and is not stored).
struct PathSelector {
    std::string name{"service-time"};
    std::vector<std::string> args;

    bool operator==(const PathSelector &) const = default;
};

/// hardware_handler: "" for none, else a scsi_dh name ("alua", "rdac",
/// "emc", "hp_sw") and its arguments, without the count.
struct HardwareHandler {
    std::string name;
    std::vector<std::string> args;

    bool operator==(const HardwareHandler &) const = default;
};

enum class RrWeight { Uniform, Priorities };
enum class QueueMode { Bio, Rq, Mq };
enum class MarginalPathgroups { Off, On, Fpin };
/// Which device-mapper target our maps use. Only mpathd.conf may choose;
/// multipath.conf has no such keyword.
enum class DmTarget { Lmpath, Multipath };

// ---------------------------------------------------------------------------
// Where a value comes from
// ---------------------------------------------------------------------------

/// A place in a configuration file. Empty file: built in.
struct SourceLocation {
    std::string file;
    unsigned line{0};

    bool operator==(const SourceLocation &) const = default;
};

/// Which layer of the configuration decided an effective value.
enum class Origin {
    Builtin,    ///< compiled-in default
    Defaults,   ///< defaults {} section
    Hwtable,    ///< built-in device table entry
    Devices,    ///< devices {} entry of a configuration file
    Multipaths, ///< multipaths {} entry for the WWID
    Overrides,  ///< overrides {} section
};

/// A problem found while reading configuration.
struct Diagnostic {
    enum class Severity { Warning, Error };

    std::string file;
    unsigned line{0}; ///< 0 when the problem is about the whole file
    Severity severity{Severity::Warning};
    std::string message; ///< e.g. "invalid value 'x' for failback; accepted: ..."

    /// "file:line: message" (or "file: message" without a line).
    std::string toString() const;

    bool operator==(const Diagnostic &) const = default;
};

// ---------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------

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
    std::optional<std::string> getuid;                    ///< getuid_callout (deprecated)
    std::optional<OffOrNumber> fastIoFailTmo;             ///< fast_io_fail_tmo
    std::optional<DevLossTmo> devLossTmo;                 ///< dev_loss_tmo
    std::optional<bool> retainAttachedHwHandler;          ///< retain_attached_hw_handler
    std::optional<bool> detectPrio;                       ///< detect_prio
    std::optional<bool> detectChecker;                    ///< detect_checker
    std::optional<unsigned> pgInitRetries;                ///< pg_init_retries, 0 = kernel default
    std::optional<OffOrNumber> pgInitDelayMsecs;          ///< pg_init_delay_msecs
    std::optional<QueueMode> queueMode;                   ///< queue_mode
    std::optional<bool> flushOnLastDel;                   ///< flush_on_last_del
    std::optional<bool> skipKpartx;                       ///< skip_kpartx
    std::optional<bool> deferredRemove;                   ///< deferred_remove
    std::optional<bool> allTgPt;                          ///< all_tg_pt
    std::optional<OffOrNumber> maxSectorsKb;              ///< max_sectors_kb
    std::optional<OffOrNumber> ghostDelay;                ///< ghost_delay
    std::optional<OffOrNumber> marginalPathErrSampleTime; ///< marginal_path_err_sample_time
    std::optional<OffOrNumber> marginalPathErrRateThreshold; ///< marginal_path_err_rate_threshold
    std::optional<OffOrNumber>
        marginalPathErrRecheckGapTime;                       ///< marginal_path_err_recheck_gap_time
    std::optional<OffOrNumber> marginalPathDoubleFailedTime; ///< marginal_path_double_failed_time

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
    std::optional<DmTarget> dmTarget;                     ///< dm_target (mpathd.conf only)

    bool operator==(const GlobalSettings &) const = default;
};

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

/// A devices {} entry (or a built-in table entry): which paths it matches
/// and what it sets for them.
struct DeviceEntry {
    Regex vendor;           ///< required in a file
    Regex product;          ///< required in a file
    Regex revision;         ///< empty: any revision
    Regex productBlacklist; ///< product_blacklist, empty: none
    Settings settings;
    SourceLocation where;

    /// True when vendor, product and revision match the path's inquiry data.
    bool matches(std::string_view vendorText, std::string_view productText,
                 std::string_view revisionText) const;

    bool operator==(const DeviceEntry &) const = default;
};

/// A multipaths {} entry: settings for one WWID.
struct MultipathEntry {
    std::string wwid;  ///< exact WWID, required
    std::string alias; ///< map name, "" for none
    Settings settings;
    SourceLocation where;

    bool operator==(const MultipathEntry &) const = default;
};

// ---------------------------------------------------------------------------
// Effective values
// ---------------------------------------------------------------------------

/// An effective value and the layer that decided it.
template <typename T>
struct Resolved {
    T value{};
    Origin origin{Origin::Builtin};
    SourceLocation where; ///< empty for Builtin and Hwtable

    bool operator==(const Resolved &) const = default;
};

/// One line of a "show config"-style listing.
struct EffectiveEntry {
    std::string keyword; ///< multipath.conf keyword, "path_grouping_policy"
    std::string value;   ///< as it would be written in the file
    Origin origin{Origin::Builtin};
    SourceLocation where;

    bool operator==(const EffectiveEntry &) const = default;
};

/// Every per-map/per-path setting for one path (and the WWID of its map),
/// after precedence: overrides > multipaths > devices (file entries over
/// the built-in table entry) > defaults > built-in defaults.
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
    Resolved<std::string> getuid; ///< "" when none
    Resolved<OffOrNumber> fastIoFailTmo;
    Resolved<DevLossTmo> devLossTmo;
    Resolved<bool> retainAttachedHwHandler;
    Resolved<bool> detectPrio;
    Resolved<bool> detectChecker;
    Resolved<unsigned> pgInitRetries;
    Resolved<OffOrNumber> pgInitDelayMsecs;
    Resolved<QueueMode> queueMode;
    Resolved<bool> flushOnLastDel;
    Resolved<bool> skipKpartx;
    Resolved<bool> deferredRemove;
    Resolved<bool> allTgPt;
    Resolved<OffOrNumber> maxSectorsKb;
    Resolved<OffOrNumber> ghostDelay;
    Resolved<OffOrNumber> marginalPathErrSampleTime;
    Resolved<OffOrNumber> marginalPathErrRateThreshold;
    Resolved<OffOrNumber> marginalPathErrRecheckGapTime;
    Resolved<OffOrNumber> marginalPathDoubleFailedTime;

    /// Every setting as keyword/value/origin, in a stable order.
    std::vector<EffectiveEntry> entries() const;
};

/// Daemon-wide settings after defaults {} over built-in defaults.
struct EffectiveGlobals {
    Resolved<unsigned> verbosity;
    Resolved<FindMultipaths> findMultipaths;
    Resolved<int> findMultipathsTimeout;
    Resolved<unsigned> pollingInterval;
    Resolved<unsigned> maxPollingInterval;
    Resolved<unsigned> checkerTimeout;
    Resolved<std::string> bindingsFile;
    Resolved<std::string> wwidsFile;
    Resolved<std::string> configDir;
    Resolved<bool> queueWithoutDaemon;
    Resolved<MarginalPathgroups> marginalPathgroups;
    Resolved<DmTarget> dmTarget;

    std::vector<EffectiveEntry> entries() const;
};

// ---------------------------------------------------------------------------
// The whole configuration
// ---------------------------------------------------------------------------

/// A parsed configuration: every section of every file read, in order.
/// Built by ConfigParser / ConfigLoader; a value type.
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
    /// map of \a wwid, using the built-in hardware table.
    EffectiveSettings effective(std::string_view vendor, std::string_view product,
                                std::string_view revision, std::string_view wwid) const;
    /// Same, taking vendor/product/revision/wwid from \a path.
    EffectiveSettings effective(const model::Path &path) const;

    /// Daemon-wide settings.
    EffectiveGlobals effectiveGlobals() const;

    /// The last multipaths {} entry for \a wwid, or null.
    const MultipathEntry *multipathFor(std::string_view wwid) const;

    bool operator==(const Config &) const = default;
};

/// Result of reading configuration: a usable Config even when some lines
/// were bad (they are ignored), and what was wrong.
struct ConfigResult {
    Config config;
    std::vector<Diagnostic> diagnostics;

    /// True when at least one diagnostic is an error (the caller decides
    /// whether to refuse the configuration).
    bool hasErrors() const;
};

const char *toString(FindMultipaths v);
const char *toString(GroupingPolicy v);
const char *toString(RrWeight v);
const char *toString(QueueMode v);
const char *toString(MarginalPathgroups v);
const char *toString(DmTarget v);
const char *toString(Origin v);
const char *toString(Diagnostic::Severity v);
/// "immediate", "manual", "followover" or the number of seconds.
std::string toString(const Failback &v);
/// "fail", "queue" or the number of retries.
std::string toString(const NoPathRetry &v);
/// "off" or the number.
std::string toString(const OffOrNumber &v);
/// "infinity" or the number of seconds.
std::string toString(const DevLossTmo &v);
/// "service-time 0" style: name and argument count.
std::string toString(const PathSelector &v);
/// "0" or "1 alua" style: count and words.
std::string toString(const HardwareHandler &v);
/// "0" or "1 queue_if_no_path" style: count and words.
std::string featuresToString(const std::vector<std::string> &words);

} // namespace mpath::config
