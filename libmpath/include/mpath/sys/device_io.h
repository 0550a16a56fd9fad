#pragma once

#include "mpath/error.h"

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mpath::sys {

/// How a SCSI command ended, as SG_IO reports it.
struct ScsiCompletion {
    uint8_t status{0};        ///< SCSI status byte: 0 GOOD, 2 CHECK CONDITION, ...
    uint16_t hostStatus{0};   ///< DID_* of the host adapter
    uint16_t driverStatus{0}; ///< DRIVER_* (0x08 DRIVER_SENSE, 0x06 DRIVER_TIMEOUT)
    std::vector<uint8_t> sense;
    size_t received{0}; ///< bytes of data that arrived

    /// GOOD status and no host or driver condition.
    bool good() const;
};

/// The device I/O of checkers and prioritizers. Every call blocks as long
/// as the device takes: run them on the Executor, never on the loop.

/// Sends \a cdb through SG_IO on the open block device \a fd, reading up
/// to dataIn.size() bytes into \a dataIn; \a timeout is the kernel's
/// command timeout.
/// \return how the command ended, or the error of the ioctl itself
Result<ScsiCompletion> sgIo(int fd, std::span<const uint8_t> cdb, std::span<uint8_t> dataIn,
                            std::chrono::milliseconds timeout);

/// As sgIo(), for a command that sends \a dataOut to the device.
Result<ScsiCompletion> sgIoOut(int fd, std::span<const uint8_t> cdb,
                               std::span<const uint8_t> dataOut, std::chrono::milliseconds timeout);

/// Opens \a devnode (read-only, non-blocking) and runs sgIo().
Result<ScsiCompletion> scsiCommand(const std::string &devnode, std::span<const uint8_t> cdb,
                                   std::span<uint8_t> dataIn, std::chrono::milliseconds timeout);

/// Reads the NVMe ANA log page (Get Log Page, identifier 0x0c) through the
/// namespace block device \a devnode.
Result<std::vector<uint8_t>> nvmeAnaLog(const std::string &devnode,
                                        std::chrono::milliseconds timeout);

/// Reads the first logical block of \a devnode with O_DIRECT (no page
/// cache) and says how long the read took.
Result<std::chrono::nanoseconds> directRead(const std::string &devnode);

} // namespace mpath::sys
