#pragma once

#include "mpath/enum_names.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

/// The values the multipath stack reasons about: paths, path groups and
/// maps, with one state enum per concern.
namespace mpath::model {

/// Result of the most recent path check, one value per concern.
enum class CheckerState {
    Unchecked, ///< no check has completed yet
    Up,        ///< the path serves I/O
    Down,      ///< the path does not serve I/O
    Ghost,     ///< reachable but in standby (ALUA standby/unavailable)
    Pending,   ///< a check is running
    Timeout,   ///< the last check did not finish in time
};

/// What device-mapper reports for the path inside its map.
enum class DmPathState {
    Unknown, ///< not in a map, or the map's status was not read
    Active,  ///< 'A' in the status line
    Failed,  ///< 'F' in the status line
};

/// What the kernel reports for the block device itself.
enum class DeviceState {
    Unknown,
    Running, ///< SCSI 'running', NVMe 'live', or a device without a state
    Offline,
    Blocked,
    Removed,
};

enum class Transport { Unknown, Scsi, Iscsi, FibreChannel, Sas, Nvme, Virtio, NullBlk };

inline constexpr std::array<EnumName<CheckerState>, 6> kCheckerStateNames{{
    {CheckerState::Unchecked, "unchecked"},
    {CheckerState::Up, "up"},
    {CheckerState::Down, "down"},
    {CheckerState::Ghost, "ghost"},
    {CheckerState::Pending, "pending"},
    {CheckerState::Timeout, "timeout"},
}};
inline constexpr std::array<EnumName<DmPathState>, 3> kDmPathStateNames{{
    {DmPathState::Unknown, "unknown"},
    {DmPathState::Active, "active"},
    {DmPathState::Failed, "failed"},
}};
inline constexpr std::array<EnumName<DeviceState>, 5> kDeviceStateNames{{
    {DeviceState::Unknown, "unknown"},
    {DeviceState::Running, "running"},
    {DeviceState::Offline, "offline"},
    {DeviceState::Blocked, "blocked"},
    {DeviceState::Removed, "removed"},
}};
inline constexpr std::array<EnumName<Transport>, 8> kTransportNames{{
    {Transport::Unknown, "unknown"},
    {Transport::Scsi, "scsi"},
    {Transport::Iscsi, "iscsi"},
    {Transport::FibreChannel, "fc"},
    {Transport::Sas, "sas"},
    {Transport::Nvme, "nvme"},
    {Transport::Virtio, "virtio"},
    {Transport::NullBlk, "null_blk"},
}};

constexpr std::string_view toString(CheckerState s) {
    return nameOf(kCheckerStateNames, s);
}
constexpr std::string_view toString(DmPathState s) {
    return nameOf(kDmPathStateNames, s);
}
constexpr std::string_view toString(DeviceState s) {
    return nameOf(kDeviceStateNames, s);
}
constexpr std::string_view toString(Transport t) {
    return nameOf(kTransportNames, t);
}

/// Transport identity of a path: which host port reaches which target port.
struct TransportIds {
    std::string hostWwnn;
    std::string hostWwpn;
    std::string targetWwnn;
    std::string targetWwpn;
    std::string nodeName;    ///< target node name (FC WWNN, iSCSI IQN, NVMe subsystem NQN)
    int targetPortGroup{-1}; ///< ALUA target port group, -1 when unknown
    std::string scsiHost;    ///< the SCSI host of a SCSI path, "host3"; "" otherwise
    /// The transport's own device of the port that reaches the target, in
    /// its sysfs class: "rport-3:0-1" (fc_remote_ports), "session2"
    /// (iscsi_session), "end_device-3:1" (sas_end_device), "nvme3" (nvme:
    /// the controller of an NVMe over fabrics path); "" when none.
    std::string transportPort;

    bool operator==(const TransportIds &) const = default;
};

/// One block device that leads to a multipathed LUN or namespace.
struct Path {
    std::string kernelName; ///< "sdb", "nvme0n1"
    dev_t devt{0};
    std::string wwid;
    std::string vendor;
    std::string product;
    std::string revision;
    std::string serial;
    uint64_t sizeSectors{0}; ///< size in 512-byte sectors
    Transport transport{Transport::Unknown};
    /// multipath-tools' protocol name, what blacklist "protocol" entries
    /// match: "scsi:fcp", "scsi:iscsi", "scsi:sas", "scsi:unspec",
    /// "nvme:pcie", "nvme:tcp", "nvme:loop", ..., or "undef".
    std::string protocol;
    std::string scsiAddress; ///< "host:channel:target:lun" of a SCSI path, "" otherwise
    TransportIds ids;
    /// TPGS of the SCSI device's standard INQUIRY data (sysfs inquiry): 0
    /// no ALUA, 1 implicit, 2 explicit, 3 both; -1 unknown or not SCSI.
    int tpgs{-1};
    /// The SCSI device handler the kernel has attached (sysfs dh_state:
    /// "alua", "rdac", "emc", "hp_sw"); "" when none or not SCSI. A
    /// multipath map over the path keeps it whatever its table says.
    std::string attachedHandler;
    /// Held as shaky (san_path_err_*) with marginal_pathgroups on: grouped
    /// apart from the other paths, after them.
    bool marginal{false};
    /// The ALUA state the kernel's device handler shows in sysfs
    /// access_state ("active/optimized", "standby", ...); "" when none.
    std::string accessState;
    bool preferred{false}; ///< sysfs preferred_path: the array prefers this port
    /// NVMe: the namespace's ANA state in sysfs ana_state ("optimized",
    /// ...); "" when none (no native NVMe multipath).
    std::string anaState;
    uint32_t nsid{0};       ///< NVMe namespace id, 0 when not NVMe
    uint32_t anaGroupId{0}; ///< NVMe ANA group id, 0 when unknown
    /// NVMe: the controller's keep-alive timeout in seconds (sysfs kato),
    /// 0 when none or unknown. An admin command it does not answer within
    /// this time is one the kernel would also have reset it for.
    unsigned keepAliveTimeout{0};
    int priority{-1}; ///< prioritizer result, -1 when not computed
    /// This path's selector arguments in its group's table, when they
    /// differ from PathGroup::pathArgs (service-time relative throughput,
    /// repeat counts weighted by priority); empty: the group's apply.
    std::vector<std::string> pathArgs;

    CheckerState checkerState{CheckerState::Unchecked};
    DmPathState dmState{DmPathState::Unknown};
    DeviceState deviceState{DeviceState::Unknown};
    unsigned failCount{0}; ///< kernel fail count from the status line

    /// "major:minor" as device-mapper tables name devices.
    std::string devtString() const;

    bool operator==(const Path &) const = default;
};

} // namespace mpath::model
