#pragma once

#include "mpath/checker.h"

#include <cstdint>
#include <vector>

namespace mpath {

/// How a SCSI command ended, as SG_IO reports it.
struct ScsiCompletion {
    uint8_t status{0};        ///< SCSI status byte: 0 GOOD, 2 CHECK CONDITION, ...
    uint16_t hostStatus{0};   ///< DID_* of the host adapter
    uint16_t driverStatus{0}; ///< DRIVER_* (0x08 DRIVER_SENSE, 0x06 DRIVER_TIMEOUT)
    std::vector<uint8_t> sense;
};

/// Sense key and additional sense code of fixed or descriptor sense data.
struct ScsiSense {
    bool valid{false};
    uint8_t key{0};
    uint8_t asc{0};
    uint8_t ascq{0};

    /// Reads fixed (0x70/0x71) or descriptor (0x72/0x73) sense data.
    static ScsiSense parse(const std::vector<uint8_t> &sense);
};

/// Turns the completion of a TEST UNIT READY (or a READ of a path
/// checker) into a path state:
/// - GOOD, NO SENSE, RECOVERED ERROR: up;
/// - NOT READY with ALUA "asymmetric access state transition" (04/0a) or
///   "target port in standby state" (04/0b): ghost: the port answers but
///   must not be preferred;
/// - UNIT ATTENTION, a busy target or a transient host condition: \p retry
///   is set and the state is down should retries run out;
/// - anything else, including "target port unavailable" (04/0c): down.
CheckOutcome decodeScsiCompletion(const ScsiCompletion &c, bool &retry);

} // namespace mpath
