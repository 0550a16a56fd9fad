#include "mpath/prio/states.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <string>

namespace mpath::prio {

namespace {

uint32_t le32(const uint8_t *p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

uint16_t le16(const uint8_t *p) {
    return static_cast<uint16_t>(p[0] | p[1] << 8);
}

} // namespace

int fromAluaState(uint8_t state, bool preferred, bool exclusivePreferred) {
    int prio;
    switch (state) {
    case AluaOptimized:
        prio = 50;
        break;
    case AluaNonOptimized:
        prio = 10;
        break;
    case AluaLbaDependent:
        prio = 5;
        break;
    case AluaStandby:
        prio = 1;
        break;
    default:
        prio = 0;
        break;
    }
    if (preferred && (state != AluaOptimized || exclusivePreferred))
        prio += 80;
    return prio;
}

Result<AluaState> aluaStateFromText(std::string_view s) {
    if (s == "active/optimized")
        return AluaOptimized;
    if (s == "active/non-optimized")
        return AluaNonOptimized;
    if (s == "standby")
        return AluaStandby;
    if (s == "unavailable")
        return AluaUnavailable;
    if (s == "lba-dependent")
        return AluaLbaDependent;
    if (s == "offline")
        return AluaOffline;
    if (s == "transitioning")
        return AluaTransitioning;
    return Error{EINVAL, "unknown ALUA access state '" + std::string(s) + "'"};
}

Result<PortGroupState> parseRtpg(std::span<const uint8_t> reply, unsigned group) {
    if (reply.size() < 4)
        return Error{EINVAL, "REPORT TARGET PORT GROUPS reply shorter than its header"};
    size_t end = 4 + (size_t(reply[0]) << 24 | size_t(reply[1]) << 16 | size_t(reply[2]) << 8 |
                      size_t(reply[3]));
    if (end > reply.size())
        end = reply.size(); // a truncated reply: use the descriptors that arrived
    size_t off = 4;
    // Extended header: format type 001b in byte 4, four more header bytes.
    if (reply.size() >= 8 && (reply[4] & 0x70) == 0x10)
        off = 8;
    while (off + 8 <= end) {
        const uint8_t *d = reply.data() + off;
        unsigned tpg = unsigned(d[2]) << 8 | d[3];
        size_t next = off + 8 + 4 * size_t(d[7]);
        if (next > end)
            return Error{EINVAL, "REPORT TARGET PORT GROUPS descriptor runs past the reply"};
        if (tpg == group)
            return PortGroupState{static_cast<uint8_t>(d[0] & 0x0f), (d[0] & 0x80) != 0};
        off = next;
    }
    return Error{ENOENT, "target port group " + std::to_string(group) +
                             " is not in the REPORT TARGET PORT GROUPS reply"};
}

int fromAnaState(uint8_t state) {
    switch (state) {
    case AnaOptimized:
        return 50;
    case AnaNonOptimized:
        return 10;
    case AnaInaccessible:
        return 5;
    case AnaPersistentLoss:
        return 1;
    default:
        return 0;
    }
}

Result<AnaState> anaStateFromText(std::string_view s) {
    if (s == "optimized")
        return AnaOptimized;
    if (s == "non-optimized")
        return AnaNonOptimized;
    if (s == "inaccessible")
        return AnaInaccessible;
    if (s == "persistent-loss")
        return AnaPersistentLoss;
    if (s == "change")
        return AnaChange;
    return Error{EINVAL, "unknown ANA state '" + std::string(s) + "'"};
}

Result<uint8_t> parseAnaLog(std::span<const uint8_t> log, uint32_t nsid, uint32_t groupId) {
    constexpr size_t kHeader = 16;
    constexpr size_t kDescriptor = 32;
    const Error malformed{EINVAL, "malformed ANA log page"};
    if (log.size() < kHeader)
        return malformed;
    unsigned groups = le16(log.data() + 8);
    size_t off = kHeader;
    int groupState = -1;
    for (unsigned g = 0; g < groups; ++g) {
        if (off + kDescriptor > log.size())
            return malformed;
        const uint8_t *d = log.data() + off;
        uint32_t grpid = le32(d);
        uint32_t count = le32(d + 4);
        uint8_t state = d[16] & 0x0f;
        off += kDescriptor;
        if (count > (log.size() - off) / 4)
            return malformed;
        for (uint32_t i = 0; i < count; ++i)
            if (le32(log.data() + off + 4 * i) == nsid)
                return state;
        if (groupId != 0 && grpid == groupId)
            groupState = state;
        off += 4 * size_t(count);
    }
    if (groupState < 0)
        return Error{ENOENT, "namespace " + std::to_string(nsid) + " is not in the ANA log"};
    return static_cast<uint8_t>(groupState);
}

int fromLatency(double averageMicroseconds, double base) {
    constexpr double kMaxLatencyUs = 1e8;
    if (base <= 1.0)
        return 1;
    double top = std::log(kMaxLatencyUs) / std::log(base);
    double lat = std::max(averageMicroseconds, 1.0);
    double v = top - std::log(lat) / std::log(base);
    int prio = static_cast<int>(std::floor(v + 1e-9));
    return std::clamp(prio, 1, static_cast<int>(std::floor(top + 1e-9)));
}

} // namespace mpath::prio
