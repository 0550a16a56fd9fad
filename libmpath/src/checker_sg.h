#pragma once

#include "mpath/checker_scsi.h"

#include <cstddef>
#include <cstdint>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace mpath {

/// Closes a file descriptor at scope exit.
class UniqueFd {
public:
    explicit UniqueFd(int fd) : fd_(fd) {}
    ~UniqueFd() {
        if (fd_ >= 0)
            ::close(fd_);
    }
    UniqueFd(const UniqueFd &) = delete;
    UniqueFd &operator=(const UniqueFd &) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

/// Sends one SCSI command through SG_IO and reports how it ended.
/// \return 0 when the kernel ran the command (see \p out), or -errno
int sgIo(int fd, const uint8_t *cdb, size_t cdbLen, void *buf, size_t len, unsigned timeoutMs,
         ScsiCompletion &out);

/// Opens \p devnode and runs \p cdb (reading \p transferLen bytes),
/// retrying what decodeScsiCompletion() calls transient, up to three
/// times. Runs on a checker's worker thread.
CheckOutcome runScsiCheck(const std::string &devnode, const uint8_t *cdb, size_t cdbLen,
                          size_t transferLen, unsigned timeoutMs);

} // namespace mpath
