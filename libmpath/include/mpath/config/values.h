#pragma once

#include "mpath/enum_names.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

/// The typed values of configuration keywords. Each enum has one name
/// table: the parser reads a word through it, the writer and the listings
/// print the value through it, and a rejection lists its names.
namespace mpath::config {

/// find_multipaths: which devices become multipath maps.
enum class FindMultipaths {
    Strict, ///< only WWIDs already in the wwids file or in multipaths {}
    Off,    ///< "off"/"no": every non-blacklisted device
    On,     ///< "on"/"yes": devices with at least two paths, or known WWIDs
    Greedy, ///< every non-blacklisted device, even with one path
    Smart,  ///< like On, and wait find_multipaths_timeout for a second path
};

inline constexpr std::array<EnumName<FindMultipaths>, 7> kFindMultipathsNames{{
    {FindMultipaths::Strict, "strict"},
    {FindMultipaths::Off, "off"},
    {FindMultipaths::On, "on"},
    {FindMultipaths::Greedy, "greedy"},
    {FindMultipaths::Smart, "smart"},
    {FindMultipaths::On, "yes"},
    {FindMultipaths::Off, "no"},
}};

/// path_grouping_policy: how paths of one map are split into groups.
enum class GroupingPolicy {
    Failover,        ///< one path per group
    Multibus,        ///< all paths in one group
    GroupBySerial,   ///< one group per target serial number
    GroupByPrio,     ///< one group per priority value
    GroupByNodeName, ///< one group per target node name
    GroupByTpg,      ///< one group per ALUA target port group
};

inline constexpr std::array<EnumName<GroupingPolicy>, 6> kGroupingPolicyNames{{
    {GroupingPolicy::Failover, "failover"},
    {GroupingPolicy::Multibus, "multibus"},
    {GroupingPolicy::GroupBySerial, "group_by_serial"},
    {GroupingPolicy::GroupByPrio, "group_by_prio"},
    {GroupingPolicy::GroupByNodeName, "group_by_node_name"},
    {GroupingPolicy::GroupByTpg, "group_by_tpg"},
}};

/// rr_weight: whether a path's repeat count grows with its priority.
enum class RrWeight { Uniform, Priorities };

inline constexpr std::array<EnumName<RrWeight>, 2> kRrWeightNames{{
    {RrWeight::Uniform, "uniform"},
    {RrWeight::Priorities, "priorities"},
}};

/// queue_mode: how device-mapper queues the map's I/O.
enum class QueueMode { Bio, Rq, Mq };

inline constexpr std::array<EnumName<QueueMode>, 3> kQueueModeNames{{
    {QueueMode::Bio, "bio"},
    {QueueMode::Rq, "rq"},
    {QueueMode::Mq, "mq"},
}};

/// marginal_pathgroups: where paths found marginal go.
enum class MarginalPathgroups { Off, On, Fpin };

inline constexpr std::array<EnumName<MarginalPathgroups>, 5> kMarginalPathgroupsNames{{
    {MarginalPathgroups::Off, "off"},
    {MarginalPathgroups::On, "on"},
    {MarginalPathgroups::Fpin, "fpin"},
    {MarginalPathgroups::Off, "no"},
    {MarginalPathgroups::On, "yes"},
}};

/// Which device-mapper target our maps use. Only mpathd.conf may choose;
/// multipath.conf has no such keyword.
enum class DmTarget { Lmpath, Multipath };

inline constexpr std::array<EnumName<DmTarget>, 2> kDmTargetNames{{
    {DmTarget::Lmpath, "lmpath"},
    {DmTarget::Multipath, "multipath"},
}};

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

/// The kinds of failback that are written as a word; Seconds is a number.
inline constexpr std::array<EnumName<Failback::Kind>, 3> kFailbackKindNames{{
    {Failback::Kind::Immediate, "immediate"},
    {Failback::Kind::Manual, "manual"},
    {Failback::Kind::Followover, "followover"},
}};

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

/// The kinds of no_path_retry that are written as a word; Retries is a
/// number.
inline constexpr std::array<EnumName<NoPathRetry::Kind>, 2> kNoPathRetryKindNames{{
    {NoPathRetry::Kind::Fail, "fail"},
    {NoPathRetry::Kind::Queue, "queue"},
}};

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

/// max_fds: a number of open files, or "max": the system's limit
/// (/proc/sys/fs/nr_open).
struct MaxFds {
    bool max{true};
    unsigned value{0}; ///< only when !max

    static MaxFds systemLimit() { return {true, 0}; }
    static MaxFds number(unsigned v) { return {false, v}; }

    bool operator==(const MaxFds &) const = default;
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

constexpr std::string_view toString(FindMultipaths v) {
    return nameOf(kFindMultipathsNames, v);
}
constexpr std::string_view toString(GroupingPolicy v) {
    return nameOf(kGroupingPolicyNames, v);
}
constexpr std::string_view toString(RrWeight v) {
    return nameOf(kRrWeightNames, v);
}
constexpr std::string_view toString(QueueMode v) {
    return nameOf(kQueueModeNames, v);
}
constexpr std::string_view toString(MarginalPathgroups v) {
    return nameOf(kMarginalPathgroupsNames, v);
}
constexpr std::string_view toString(DmTarget v) {
    return nameOf(kDmTargetNames, v);
}

/// "immediate", "manual", "followover" or the number of seconds.
std::string toString(const Failback &v);
/// "fail", "queue" or the number of retries.
std::string toString(const NoPathRetry &v);
/// "off" or the number.
std::string toString(const OffOrNumber &v);
/// "infinity" or the number of seconds.
std::string toString(const DevLossTmo &v);
/// "max" or the number.
std::string toString(const MaxFds &v);
/// "service-time 0" style: name and argument count.
std::string toString(const PathSelector &v);
/// "0" or "1 alua" style: count and words.
std::string toString(const HardwareHandler &v);
/// "0" or "1 queue_if_no_path" style: count and words.
std::string featuresToString(const std::vector<std::string> &words);

} // namespace mpath::config
