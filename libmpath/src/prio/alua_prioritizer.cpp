#include "prio/alua_prioritizer.h"

#include "mpath/prio/states.h"
#include "prio/sysfs_prioritizer.h"

#include <array>

namespace mpath::prio {

namespace {

constexpr uint32_t kReplyLength = 4096;

} // namespace

std::function<Result<int>()> AluaPrioritizer::job(const model::Path &path) const {
    return [path, send = context_.scsiCommand, timeout = context_.commandTimeout,
            exclusive = exclusivePreferred_]() -> Result<int> {
        // Like multipath-tools, ask only a device that claims ALUA support;
        // others have no port group states to report. Without the inquiry
        // data support is unknown and the device is asked.
        if (path.tpgs == 0)
            return Error{EOPNOTSUPP, "the device reports no ALUA support"};
        Error rtpgError{ENODATA, "the device reports no target port group"};
        if (path.ids.targetPortGroup >= 0 && send) {
            // MAINTENANCE IN / REPORT TARGET PORT GROUPS, basic header format.
            const std::array<uint8_t, 12> cdb{0xa3,
                                              0x0a,
                                              0,
                                              0,
                                              0,
                                              0,
                                              uint8_t(kReplyLength >> 24),
                                              uint8_t(kReplyLength >> 16),
                                              uint8_t(kReplyLength >> 8),
                                              uint8_t(kReplyLength),
                                              0,
                                              0};
            auto reply = send(path.kernelName, cdb, kReplyLength, timeout);
            if (reply) {
                auto group = parseRtpg(*reply, static_cast<unsigned>(path.ids.targetPortGroup));
                if (group)
                    return fromAluaState(group->state, group->preferred, exclusive);
                rtpgError = group.error();
            } else {
                rtpgError = reply.error();
            }
        }
        auto fromSysfs = SysfsPrioritizer::fromPath(path, exclusive);
        if (fromSysfs)
            return fromSysfs;
        return rtpgError.context("REPORT TARGET PORT GROUPS");
    };
}

} // namespace mpath::prio
