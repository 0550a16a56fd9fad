#pragma once

#include "mpath/error.h"

#include <cstdint>
#include <span>
#include <string_view>

/// Prioritizers: how good is a path, a number per path that orders path
/// groups. This header has the decoding and the priority scales behind
/// them, usable on their own (status displays, tests).
namespace mpath::prio {

/// ALUA asymmetric access states (SPC-4 table 166).
enum AluaState : uint8_t {
    AluaOptimized = 0x0,
    AluaNonOptimized = 0x1,
    AluaStandby = 0x2,
    AluaUnavailable = 0x3,
    AluaLbaDependent = 0x4,
    AluaOffline = 0xe,
    AluaTransitioning = 0xf,
};

/// NVMe ANA states.
enum AnaState : uint8_t {
    AnaOptimized = 0x1,
    AnaNonOptimized = 0x2,
    AnaInaccessible = 0x3,
    AnaPersistentLoss = 0x4,
    AnaChange = 0xf,
};

/// Priority of an ALUA state: 50 optimized, 10 non-optimized, 5 LBA
/// dependent, 1 standby, 0 otherwise; +80 for the preferred port unless it
/// is optimized and \a exclusivePreferred is false.
int fromAluaState(uint8_t state, bool preferred, bool exclusivePreferred);

/// The ALUA state named by sysfs access_state ("active/optimized",
/// "active/non-optimized", "standby", "unavailable", "lba-dependent",
/// "offline", "transitioning").
/// \return the state, or EINVAL for another text
Result<AluaState> aluaStateFromText(std::string_view accessState);

/// The state and preferred bit of one target port group in a REPORT
/// TARGET PORT GROUPS reply.
struct PortGroupState {
    uint8_t state{0};
    bool preferred{false};
};

/// The entry of target port group \a group in a REPORT TARGET PORT GROUPS
/// reply (length header and descriptors; basic and extended header).
/// \return the entry, ENOENT when the group is not listed, EINVAL for a
///         malformed reply
Result<PortGroupState> parseRtpg(std::span<const uint8_t> reply, unsigned group);

/// Priority of an ANA state: 50 optimized, 10 non-optimized, 5
/// inaccessible, 1 persistent loss, 0 change or unknown.
int fromAnaState(uint8_t state);

/// The ANA state named by sysfs ana_state ("optimized", ...).
/// \return the state, or EINVAL for another text
Result<AnaState> anaStateFromText(std::string_view anaState);

/// The ANA state of namespace \a nsid in an ANA log page; a namespace not
/// listed takes the state of group \a groupId when that is not 0.
/// \return the state, ENOENT when neither is found, EINVAL for a malformed
///         log
Result<uint8_t> parseAnaLog(std::span<const uint8_t> log, uint32_t nsid, uint32_t groupId = 0);

/// path_latency's scale: floor(log_base(1e8 us) - log_base(latency)), at
/// least 1. 100 us gives 6 with base 10.
int fromLatency(double averageMicroseconds, double base);

} // namespace mpath::prio
