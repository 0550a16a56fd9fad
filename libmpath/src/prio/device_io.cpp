#include "prio/device_io.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <scsi/sg.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace mpath {

namespace {

struct Fd {
    int fd;
    explicit Fd(int f) : fd(f) {}
    ~Fd() {
        if (fd >= 0)
            ::close(fd);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
};

} // namespace

int DeviceIo::scsiCommand(const std::string &devnode, std::span<const uint8_t> cdb,
                          std::vector<uint8_t> &data, std::chrono::milliseconds timeout) {
    Fd fd(::open(devnode.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.fd < 0)
        return -errno;
    std::vector<uint8_t> command(cdb.begin(), cdb.end());
    uint8_t sense[32] = {};
    sg_io_hdr_t io{};
    io.interface_id = 'S';
    io.cmd_len = static_cast<unsigned char>(command.size());
    io.cmdp = command.data();
    io.dxfer_direction = SG_DXFER_FROM_DEV;
    io.dxfer_len = static_cast<unsigned>(data.size());
    io.dxferp = data.data();
    io.mx_sb_len = sizeof(sense);
    io.sbp = sense;
    io.timeout = static_cast<unsigned>(timeout.count());
    if (::ioctl(fd.fd, SG_IO, &io) < 0)
        return -errno;
    if (io.host_status == 0x03 /* DID_TIME_OUT */ || io.driver_status == 0x06 /* DRIVER_TIMEOUT */)
        return -ETIMEDOUT;
    if ((io.status & 0x7e) != 0 || io.host_status != 0 || (io.driver_status & 0x0f) != 0)
        return -EIO;
    if (io.resid > 0 && static_cast<size_t>(io.resid) <= data.size())
        data.resize(data.size() - static_cast<size_t>(io.resid));
    return 0;
}

int DeviceIo::nvmeAnaLog(const std::string &devnode, std::vector<uint8_t> &log,
                         std::chrono::milliseconds timeout) {
    Fd fd(::open(devnode.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.fd < 0)
        return -errno;
    constexpr uint32_t kLength = 4096;
    log.assign(kLength, 0);
    nvme_admin_cmd cmd{};
    cmd.opcode = 0x02; // Get Log Page
    cmd.nsid = 0xffffffff;
    cmd.addr = reinterpret_cast<uintptr_t>(log.data());
    cmd.data_len = kLength;
    uint32_t numd = kLength / 4 - 1;
    cmd.cdw10 = (numd & 0xffff) << 16 | 0x0c; // ANA log
    cmd.cdw11 = numd >> 16;
    cmd.timeout_ms = static_cast<uint32_t>(timeout.count());
    int r = ::ioctl(fd.fd, NVME_IOCTL_ADMIN_CMD, &cmd);
    if (r < 0)
        return -errno;
    if (r > 0)
        return -EIO; // NVMe status code
    return 0;
}

int DeviceIo::timedRead(const std::string &devnode, std::chrono::nanoseconds &latency) {
    Fd fd(::open(devnode.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC));
    if (fd.fd < 0)
        return -errno;
    constexpr size_t kSize = 4096;
    void *buf = nullptr;
    if (::posix_memalign(&buf, kSize, kSize) != 0)
        return -ENOMEM;
    auto start = std::chrono::steady_clock::now();
    ssize_t n = ::pread(fd.fd, buf, kSize, 0);
    auto stop = std::chrono::steady_clock::now();
    int err = errno;
    std::free(buf);
    if (n < 0)
        return -err;
    latency = std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start);
    return 0;
}

} // namespace mpath
