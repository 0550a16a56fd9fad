#include "mpath/sys/device_io.h"

#include "mpath/sys/unique_fd.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
#include <memory>
#include <scsi/sg.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace mpath::sys {

namespace {

Result<UniqueFd> openDevice(const std::string &devnode, int flags) {
    UniqueFd fd(::open(devnode.c_str(), flags | O_CLOEXEC));
    if (!fd)
        return Error::fromErrno(errno, "open " + devnode);
    return fd;
}

} // namespace

bool ScsiCompletion::good() const {
    return (status & 0x7e) == 0 && hostStatus == 0 && (driverStatus & 0x0f) == 0;
}

namespace {

Result<ScsiCompletion> sgIoAny(int fd, std::span<const uint8_t> cdb, int direction, void *data,
                               size_t length, std::chrono::milliseconds timeout) {
    std::vector<uint8_t> command(cdb.begin(), cdb.end());
    uint8_t sense[64] = {};
    sg_io_hdr_t io{};
    io.interface_id = 'S';
    io.cmd_len = static_cast<unsigned char>(command.size());
    io.cmdp = command.data();
    io.dxfer_direction = length == 0 ? SG_DXFER_NONE : direction;
    io.dxfer_len = static_cast<unsigned>(length);
    io.dxferp = length == 0 ? nullptr : data;
    io.mx_sb_len = sizeof(sense);
    io.sbp = sense;
    io.timeout = static_cast<unsigned>(std::max<int64_t>(1, timeout.count()));
    if (::ioctl(fd, SG_IO, &io) < 0)
        return Error::fromErrno(errno, "SG_IO");
    ScsiCompletion c;
    c.status = io.status;
    c.hostStatus = io.host_status;
    c.driverStatus = io.driver_status;
    c.sense.assign(sense, sense + std::min<size_t>(io.sb_len_wr, sizeof(sense)));
    if (direction == SG_DXFER_FROM_DEV) {
        c.received = length;
        if (io.resid > 0 && static_cast<size_t>(io.resid) <= length)
            c.received -= static_cast<size_t>(io.resid);
    }
    return c;
}

} // namespace

Result<ScsiCompletion> sgIo(int fd, std::span<const uint8_t> cdb, std::span<uint8_t> dataIn,
                            std::chrono::milliseconds timeout) {
    return sgIoAny(fd, cdb, SG_DXFER_FROM_DEV, dataIn.data(), dataIn.size(), timeout);
}

Result<ScsiCompletion> sgIoOut(int fd, std::span<const uint8_t> cdb,
                               std::span<const uint8_t> dataOut,
                               std::chrono::milliseconds timeout) {
    // SG_IO does not write to the buffer of a data-out command.
    return sgIoAny(fd, cdb, SG_DXFER_TO_DEV, const_cast<uint8_t *>(dataOut.data()), dataOut.size(),
                   timeout);
}

Result<ScsiCompletion> scsiCommand(const std::string &devnode, std::span<const uint8_t> cdb,
                                   std::span<uint8_t> dataIn, std::chrono::milliseconds timeout) {
    auto fd = openDevice(devnode, O_RDONLY | O_NONBLOCK);
    if (!fd)
        return fd.error();
    auto r = sgIo(fd->get(), cdb, dataIn, timeout);
    if (!r)
        return r.error().context(devnode);
    return r;
}

Result<std::vector<uint8_t>> nvmeAnaLog(const std::string &devnode,
                                        std::chrono::milliseconds timeout) {
    auto fd = openDevice(devnode, O_RDONLY | O_NONBLOCK);
    if (!fd)
        return fd.error();
    constexpr uint32_t kLength = 4096;
    std::vector<uint8_t> log(kLength, 0);
    nvme_admin_cmd cmd{};
    cmd.opcode = 0x02; // Get Log Page
    cmd.nsid = 0xffffffff;
    cmd.addr = reinterpret_cast<uintptr_t>(log.data());
    cmd.data_len = kLength;
    const uint32_t numd = kLength / 4 - 1;
    cmd.cdw10 = (numd & 0xffff) << 16 | 0x0c; // ANA log
    cmd.cdw11 = numd >> 16;
    cmd.timeout_ms = static_cast<uint32_t>(timeout.count());
    int r = ::ioctl(fd->get(), NVME_IOCTL_ADMIN_CMD, &cmd);
    if (r < 0)
        return Error::fromErrno(errno, devnode + ": Get Log Page");
    // Invalid Field in Command, Invalid Log Page: a controller without ANA.
    if (const int code = r & 0x7ff; r > 0 && (code == 0x002 || code == 0x109))
        return Error{EOPNOTSUPP, devnode + ": the controller has no ANA log (NVMe status " +
                                     std::to_string(r) + ")"};
    if (r > 0)
        return Error{EIO, devnode + ": Get Log Page: NVMe status " + std::to_string(r)};
    return log;
}

Result<std::chrono::nanoseconds> directRead(const std::string &devnode) {
    auto fd = openDevice(devnode, O_RDONLY | O_DIRECT);
    if (!fd)
        return fd.error();
    // One logical block, aligned as O_DIRECT wants; regular files (tests)
    // have no block size, 4 KiB suits them.
    int blockSize = 0;
    if (::ioctl(fd->get(), BLKSSZGET, &blockSize) < 0 || blockSize <= 0)
        blockSize = 4096;
    void *raw = nullptr;
    if (::posix_memalign(&raw, 4096, static_cast<size_t>(blockSize)) != 0)
        return Error{ENOMEM, devnode + ": no memory for a read buffer"};
    std::unique_ptr<void, decltype(&std::free)> buf(raw, &std::free);
    const auto start = std::chrono::steady_clock::now();
    ssize_t n = ::pread(fd->get(), buf.get(), static_cast<size_t>(blockSize), 0);
    const auto stop = std::chrono::steady_clock::now();
    if (n < 0)
        return Error::fromErrno(errno, "read " + devnode);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start);
}

} // namespace mpath::sys
