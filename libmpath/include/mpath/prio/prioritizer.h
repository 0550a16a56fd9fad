#pragma once

#include "mpath/error.h"
#include "mpath/model/path.h"
#include "mpath/sys/executor.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mpath::prio {

/// How prioritizers reach devices. The seams default to the real device
/// I/O on devDirectory/<kernel name> (see system()); tests replace them.
struct Context {
    std::string devDirectory{"/dev"};
    /// The command timeout the kernel gets with each SCSI or NVMe command;
    /// the caller's deadline on the loop bounds the whole computation.
    std::chrono::milliseconds commandTimeout{std::chrono::seconds(30)};

    /// Sends a SCSI command that reads up to \a length bytes (REPORT TARGET
    /// PORT GROUPS). \return the data that arrived; EIO when the command
    /// did not end with GOOD status
    std::function<Result<std::vector<uint8_t>>(const std::string &kernelName,
                                               std::span<const uint8_t> cdb, size_t length,
                                               std::chrono::milliseconds timeout)>
        scsiCommand;

    /// Reads the NVMe ANA log page through the namespace's block device.
    std::function<Result<std::vector<uint8_t>>(const std::string &kernelName,
                                               std::chrono::milliseconds timeout)>
        nvmeAnaLog;

    /// Times one direct read of the device's first block.
    std::function<Result<std::chrono::nanoseconds>(const std::string &kernelName)> readLatency;

    /// Seams that do the real device I/O on \a devDirectory.
    static Context system(std::string devDirectory = "/dev");
    /// Seams that refuse every command with ENODEV: for planning from a
    /// sysfs tree that does not describe this machine's devices.
    static Context noDevices();
};

/// Computes a path's priority (multipath.conf "prio"). Higher is better;
/// grouping orders path groups by it. Like checkers, a prioritizer does no
/// I/O of its own: job() is the work, which the caller runs inline when
/// needsIo() is false, else on the Executor (startPriority()).
class Prioritizer {
public:
    virtual ~Prioritizer() = default;

    /// The multipath.conf name ("alua").
    virtual std::string_view name() const = 0;

    /// True when job() may send commands to the device; false when it
    /// only looks at what discovery found, and may run on the loop.
    virtual bool needsIo() const = 0;

    /// The computation for \a path. It owns what it uses.
    /// \return a function giving the priority (>= 0) or why there is none
    virtual std::function<Result<int>()> job(const model::Path &path) const = 0;

    /// The device node of \a path the I/O goes to: the executor's key for
    /// the job, the same as its checker's.
    std::string devnode(const model::Path &path) const {
        return devDirectory_ + "/" + path.kernelName;
    }

    /// Creates prioritizer \a name with its prio_args:
    /// - const: always 1;
    /// - sysfs ["exclusive_pref_bit"]: the ALUA state the kernel's handler
    ///   shows in access_state (50 active/optimized, 10 active/non-optimized,
    ///   5 lba-dependent, 1 standby, 0 otherwise), +80 when preferred_path is
    ///   set and the path is not optimized (or always, with
    ///   exclusive_pref_bit);
    /// - alua ["exclusive_pref_bit"]: the same values from REPORT TARGET PORT
    ///   GROUPS, falling back to access_state; EOPNOTSUPP, without asking,
    ///   when the device's INQUIRY data says it does not support ALUA;
    /// - ana: the NVMe ANA state (50 optimized, 10 non-optimized, 5
    ///   inaccessible, 1 persistent loss, 0 change) from ana_state, else
    ///   from the ANA log page;
    /// - path_latency ["io_num=N base_num=B"]: N timed direct reads (2..200,
    ///   default 20), priority on a logarithmic scale of base B (1.1..100,
    ///   default 10): lower average latency, higher priority, at least 1;
    /// - weightedpath "hbtl|devname|serial|wwn REGEX PRIO ...": the PRIO of
    ///   the first REGEX that matches the path's SCSI address, kernel name,
    ///   serial or "hostWwnn:hostWwpn:targetWwnn:targetWwpn", else 0.
    /// \return the prioritizer, or EINVAL for an unknown name (ENOTSUP for
    ///         one of multipath-tools' that is not implemented here) or bad
    ///         arguments
    static Result<std::unique_ptr<Prioritizer>> create(std::string_view name, std::string_view args,
                                                       Context context);

    /// create(\a name), whose job falls back to prioritizer \a fallback
    /// when the device does not support \a name's method (EOPNOTSUPP): what
    /// detect_prio asks for, a method the device may lack, over the
    /// configured one. No fallback when \a fallback is "".
    static Result<std::unique_ptr<Prioritizer>> create(std::string_view name, std::string_view args,
                                                       std::string_view fallback,
                                                       std::string_view fallbackArgs,
                                                       Context context);

private:
    std::string devDirectory_{"/dev"};
};

/// Computes \a path's priority with \a prioritizer on \a executor, then
/// calls \a done on the loop's thread; ETIMEDOUT (or EBUSY / EAGAIN, see
/// Executor) when \a deadline passes first. The path's device node is the
/// job's key, shared with its checks.
sys::Executor::JobId startPriority(sys::Executor &executor, const Prioritizer &prioritizer,
                                   const model::Path &path, std::chrono::milliseconds deadline,
                                   std::function<void(Result<int>)> done);

} // namespace mpath::prio
