#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mpath {

/// The real device I/O behind PrioritizerContext's seams. Each call may
/// block as long as the device does; callers bound them with runBounded().
class DeviceIo {
public:
    /// SG_IO with a data-in transfer of data.size() bytes.
    [[nodiscard]] static int scsiCommand(const std::string &devnode, std::span<const uint8_t> cdb,
                                         std::vector<uint8_t> &data,
                                         std::chrono::milliseconds timeout);
    /// NVMe Get Log Page, ANA log (0x0c), for all namespaces, 4 KiB.
    [[nodiscard]] static int nvmeAnaLog(const std::string &devnode, std::vector<uint8_t> &log,
                                        std::chrono::milliseconds timeout);
    /// One O_DIRECT read of the first 4 KiB, timed.
    [[nodiscard]] static int timedRead(const std::string &devnode,
                                       std::chrono::nanoseconds &latency);
};

} // namespace mpath
