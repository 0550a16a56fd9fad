#include "mpath/map.h"

#include <sys/sysmacros.h>

namespace mpath {

std::string Path::devtString() const {
    return std::to_string(major(devt)) + ":" + std::to_string(minor(devt));
}

const char *toString(CheckerState s) {
    switch (s) {
    case CheckerState::Unchecked:
        return "unchecked";
    case CheckerState::Up:
        return "up";
    case CheckerState::Down:
        return "down";
    case CheckerState::Ghost:
        return "ghost";
    case CheckerState::Pending:
        return "pending";
    case CheckerState::Timeout:
        return "timeout";
    }
    return "unknown";
}

const char *toString(DmPathState s) {
    switch (s) {
    case DmPathState::Unknown:
        return "unknown";
    case DmPathState::Active:
        return "active";
    case DmPathState::Failed:
        return "failed";
    }
    return "unknown";
}

const char *toString(DeviceState s) {
    switch (s) {
    case DeviceState::Unknown:
        return "unknown";
    case DeviceState::Running:
        return "running";
    case DeviceState::Offline:
        return "offline";
    case DeviceState::Blocked:
        return "blocked";
    case DeviceState::Removed:
        return "removed";
    }
    return "unknown";
}

const char *toString(Transport t) {
    switch (t) {
    case Transport::Unknown:
        return "unknown";
    case Transport::Scsi:
        return "scsi";
    case Transport::Iscsi:
        return "iscsi";
    case Transport::FibreChannel:
        return "fc";
    case Transport::Sas:
        return "sas";
    case Transport::Nvme:
        return "nvme";
    case Transport::Virtio:
        return "virtio";
    case Transport::NullBlk:
        return "null_blk";
    }
    return "unknown";
}

const char *toString(GroupState s) {
    switch (s) {
    case GroupState::Unknown:
        return "unknown";
    case GroupState::Active:
        return "active";
    case GroupState::Enabled:
        return "enabled";
    case GroupState::Disabled:
        return "disabled";
    }
    return "unknown";
}

} // namespace mpath
