#pragma once

#include "mpath/sys/device_io.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>

/// SCSI-3 persistent reservations (SPC-4 PERSISTENT RESERVE IN/OUT): the
/// commands, the statuses mpathpersist reports, and its output.
namespace mpath::scsi {

/// PERSISTENT RESERVE IN service actions.
enum class PrIn : uint8_t {
    ReadKeys = 0,
    ReadReservation = 1,
    ReportCapabilities = 2,
    ReadFullStatus = 3,
};

/// PERSISTENT RESERVE OUT service actions.
enum class PrOut : uint8_t {
    Register = 0,
    Reserve = 1,
    Release = 2,
    Clear = 3,
    Preempt = 4,
    PreemptAbort = 5,
    RegisterIgnore = 6,
};

/// multipath-tools' MPATH_PR_* statuses: mpathpersist's exit codes.
enum PrStatus : int {
    PrSuccess = 0,
    PrSyntaxError = 1,
    PrNotReady = 2,
    PrMediumError = 3,
    PrHardwareError = 4,
    PrIllegalRequest = 5,
    PrUnitAttention = 6,
    PrInvalidOp = 7,
    PrAbortedCommand = 8,
    PrNoSense = 9,
    PrMalformed = 10,
    PrReservationConflict = 11,
    PrFileError = 12,
    PrDmError = 13,
    PrThreadError = 14,
    PrOther = 15,
};

/// The allocation length mpathpersist asks with, per service action.
uint16_t defaultAllocationLength(PrIn sa);

/// PERSISTENT RESERVE IN's CDB.
std::array<uint8_t, 10> prInCdb(PrIn sa, uint16_t allocationLength);

/// PERSISTENT RESERVE OUT's CDB, LU scope; \a type in the low nibble.
std::array<uint8_t, 10> prOutCdb(PrOut sa, uint8_t type, uint16_t parameterLength);

/// PERSISTENT RESERVE OUT's basic parameter list (24 bytes).
struct PrOutParameters {
    uint64_t key{0};              ///< RESERVATION KEY
    uint64_t serviceActionKey{0}; ///< SERVICE ACTION RESERVATION KEY
    bool allTargetPorts{false};   ///< ALL_TG_PT
    bool aptpl{false};            ///< activate persist through power loss
};
std::array<uint8_t, 24> encode(const PrOutParameters &p);

/// What a command's completion means, as mpathpersist reports it.
PrStatus prStatus(const sys::ScsiCompletion &c);

/// Whether mpathpersist sends the command again on the same path: a unit
/// attention, or NOT READY "in process of becoming ready" (04/07).
bool retryOnSamePath(const sys::ScsiCompletion &c);

/// The keys of a READ KEYS answer.
struct RegisteredKeys {
    uint32_t generation{0};
    std::vector<uint64_t> keys;
};
RegisteredKeys parseKeys(std::span<const uint8_t> data);

/// The answer to \a sa, printed as multipath-tools 0.9.4's mpathpersist
/// prints it on stdout (its layout, its names, and its quirks, which
/// scripts that parse it expect).
std::string formatPrIn(PrIn sa, std::span<const uint8_t> data);

/// The name mpathpersist gives reservation type \a type (0..15).
std::string_view reservationTypeName(uint8_t type);

} // namespace mpath::scsi
