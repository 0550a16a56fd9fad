#pragma once

#include "mpath/checkers/checker.h"
#include "mpath/sys/device_io.h"

#include <cstdint>
#include <vector>

namespace mpath::checkers {

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
/// - UNIT ATTENTION, a busy target or a transient host condition: \a retry
///   is set and the state is down should retries run out;
/// - anything else, including "target port unavailable" (04/0c): down.
CheckOutcome decodeScsiCompletion(const sys::ScsiCompletion &c, bool &retry);

/// Opens \a devnode and runs \a cdb (reading \a transferLength bytes),
/// retrying what decodeScsiCompletion() calls transient, up to three
/// times: the I/O of the SCSI checkers.
CheckOutcome runScsiCheck(const std::string &devnode, std::span<const uint8_t> cdb,
                          size_t transferLength, std::chrono::milliseconds timeout);

/// runScsiCheck() through \a io (the device's sg node): no thread waits
/// for the device. \a done gets the outcome on the loop's thread. The
/// kernel gives the command \a commandTimeout if longer than \a timeout.
void startScsiCheck(sys::PathIo &io, const std::string &devnode, std::vector<uint8_t> cdb,
                    size_t transferLength, std::chrono::milliseconds timeout,
                    std::function<void(CheckOutcome)> done,
                    std::chrono::milliseconds commandTimeout = {});

/// Starts a SCSI checker's check: through the sg node with \a io.pathIo
/// when the device has one, else \a checker's job() on the executor.
void startScsiOrJob(CheckIo io, const Checker &checker, std::vector<uint8_t> cdb,
                    size_t transferLength, std::chrono::milliseconds timeout,
                    std::function<void(CheckOutcome)> done);

} // namespace mpath::checkers
