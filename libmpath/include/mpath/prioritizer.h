#pragma once

#include "mpath/path.h"
#include "mpath/sysfs.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mpath {

/// What prioritizers read and how they reach devices. The I/O seams
/// default to the real thing (SG_IO, NVMe admin commands, O_DIRECT reads
/// on devDirectory/<kernel name>); tests replace them.
struct PrioritizerContext {
    Sysfs sysfs;
    std::string devDirectory{"/dev"};
    /// Bound on the device I/O of one priority() call. A call that needs
    /// longer returns -ETIMEDOUT; the I/O is left to finish on a worker
    /// thread so the caller's loop never waits for a hung device.
    std::chrono::milliseconds timeout{std::chrono::seconds(5)};

    /// Sends a SCSI command that reads data, e.g. REPORT TARGET PORT GROUPS.
    /// \return 0 with \a data resized to what arrived, or a negative error code
    std::function<int(const std::string &kernelName, std::span<const uint8_t> cdb,
                      std::vector<uint8_t> &data, std::chrono::milliseconds timeout)>
        scsiCommand;

    /// Reads the NVMe ANA log page (log identifier 0x0c) through the
    /// namespace's block device.
    /// \return 0 with \a log filled, or a negative error code
    std::function<int(const std::string &kernelName, std::vector<uint8_t> &log,
                      std::chrono::milliseconds timeout)>
        nvmeAnaLog;

    /// Times one direct read of the device's first 4 KiB.
    /// \return 0 with \a latency set, or a negative error code
    std::function<int(const std::string &kernelName, std::chrono::nanoseconds &latency)>
        readLatency;

    /// A context whose seams do the real device I/O on \a devDirectory
    /// (what Prioritizer::create() fills in for seams left empty); useful to
    /// wrap one seam and keep the others real.
    static PrioritizerContext system(Sysfs sysfs = Sysfs(), std::string devDirectory = "/dev");
};

/// Computes a path's priority (multipath.conf "prio"). Higher is better;
/// Grouping orders path groups by it.
class Prioritizer {
public:
    virtual ~Prioritizer() = default;

    /// The multipath.conf name ("alua").
    virtual std::string name() const = 0;

    /// \return the priority (>= 0) or a negative error code
    [[nodiscard]] virtual int priority(const Path &path) const = 0;

    /// Creates prioritizer \a name with its prio_args:
    /// - const: always 1;
    /// - sysfs ["exclusive_pref_bit"]: the SCSI device's ALUA access_state
    ///   (50 active/optimized, 10 active/non-optimized, 5 lba-dependent,
    ///   1 standby, 0 otherwise), +80 when preferred_path is set and the
    ///   path is not optimized (or always, with exclusive_pref_bit);
    /// - alua ["exclusive_pref_bit"]: the same values from REPORT TARGET
    ///   PORT GROUPS sent with SG_IO, falling back to sysfs access_state;
    ///   -EOPNOTSUPP, without asking, when the device's INQUIRY data (sysfs
    ///   inquiry) says it does not support ALUA (TPGS 0);
    /// - ana: NVMe ANA state (50 optimized, 10 non-optimized, 5
    ///   inaccessible, 1 persistent loss, 0 change) from the ana_state
    ///   attribute, else from the ANA log page;
    /// - path_latency ["io_num=N base_num=B"]: N timed direct reads (2..200,
    ///   default 20), priority on a logarithmic scale of base B (1.1..100,
    ///   default 10): lower average latency, higher priority, at least 1;
    /// - weightedpath "hbtl|devname|serial|wwn REGEX PRIO ...": the PRIO of
    ///   the first REGEX that matches the path's SCSI address, kernel name,
    ///   serial or "hostWwnn:hostWwpn:targetWwnn:targetWwpn", else 0.
    /// \return the prioritizer, or null with \a error set for an unknown
    ///         name or bad arguments
    static std::unique_ptr<Prioritizer> create(std::string_view name, std::string_view args,
                                               PrioritizerContext context,
                                               std::string *error = nullptr);
};

} // namespace mpath
