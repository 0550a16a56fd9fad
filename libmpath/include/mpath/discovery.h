#pragma once

#include "mpath/config.h"
#include "mpath/path.h"
#include "mpath/sysfs.h"
#include "mpath/udev_properties.h"
#include "mpath/vpd.h"
#include "mpath/wwid.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mpath {

/// Knobs for Discovery.
struct DiscoveryOptions {
    /// The uid attribute (udev property holding the WWID) for a path whose
    /// inquiry data (vendor, product, revision, transport) is known, e.g.
    /// from Config::effective(). Returning "" (or leaving this empty) uses
    /// Wwid::defaultUidAttribute(): ID_SERIAL for SCSI, ID_WWN for NVMe.
    std::function<std::string(const Path &)> uidAttribute;
    /// Derive the WWID from sysfs (VPD page 0x83, NVMe wwid/nguid/eui)
    /// when the uid attribute is missing.
    bool sysfsFallback{true};
    /// Which page 0x83 designator the SCSI fallback takes: the one udev
    /// names ID_SERIAL with sg3-utils' rules (the usual setup for
    /// multipath) or the one scsi_id alone picks.
    Vpd::Order page83Order{Vpd::Order::Udev};

    /// Options whose uid attribute comes from \a config (overrides {},
    /// devices {} and the built-in device table, defaults {}); the
    /// built-in default is left to Wwid::defaultUidAttribute() so that
    /// NVMe namespaces use ID_WWN. The options keep a copy of \a config.
    static DiscoveryOptions fromConfig(const Config &config);
};

/// A block device discovery could not describe, and why.
struct DiscoveryIssue {
    std::string kernelName;
    int error{0};     ///< negative errno
    std::string what; ///< "no dev attribute", ...

    bool operator==(const DiscoveryIssue &) const = default;
};

/// Builds Path values from sysfs and udev properties.
///
/// Reads, below the sysfs root: block/<name>/{dev,size} and, for NVMe,
/// {wwid,uuid,nguid,eui}; the device link (SCSI device: vendor, model, rev,
/// state, vpd_pg80, vpd_pg83; NVMe controller: model, serial,
/// firmware_rev, transport, state, subsysnqn); class/fc_host,
/// class/fc_transport, class/iscsi_session, class/sas_host and
/// class/sas_device for transport identities. It never opens device nodes.
class Discovery {
public:
    explicit Discovery(Sysfs sysfs, DiscoveryOptions options = {});

    /// Describes block device \a kernelName ("sdb", "nvme0n1").
    /// A path without WWID is still returned (wwid empty); the caller
    /// decides (multipath-tools ignores such paths).
    /// \param source receives where the WWID came from; may be null
    /// \return 0 on success, -ENOENT when the device does not exist, or
    ///         another negative error code
    [[nodiscard]] int discover(const std::string &kernelName, const UdevProperties &udev,
                               Path &path, Wwid::Source *source = nullptr) const;

    /// Describes every block device that could be a path: whole disks
    /// under block/, except device-mapper, loop, ram, zram, md and hidden
    /// NVMe multipath devices (blacklisting the rest is policy, not
    /// discovery). Devices that fail are reported in \a issues.
    std::vector<Path> discoverAll(const UdevProperties &udev,
                                  std::vector<DiscoveryIssue> *issues = nullptr) const;

    /// The block device names discoverAll() looks at, sorted.
    /// \return 0 on success or a negative error code
    [[nodiscard]] int candidates(std::vector<std::string> &names) const;

    const Sysfs &sysfs() const { return sysfs_; }

private:
    /// Transport class lookups shared by the paths of one discoverAll().
    struct HostCache;

    int discoverOne(const std::string &kernelName, const UdevProperties &udev, Path &path,
                    Wwid::Source *source, HostCache *cache) const;
    int discoverScsi(const std::string &deviceDir, const UdevPropertyMap &props, Path &path,
                     std::vector<uint8_t> &page83, HostCache *cache) const;
    int discoverNvme(const std::string &blockDir, const std::string &deviceDir, Path &path) const;
    void scsiTransport(const std::string &deviceDir, Path &path, HostCache *cache) const;

    Sysfs sysfs_;
    DiscoveryOptions options_;
};

} // namespace mpath
