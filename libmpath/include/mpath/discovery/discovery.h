#pragma once

#include "mpath/config/config.h"
#include "mpath/discovery/sysfs.h"
#include "mpath/discovery/udev_properties.h"
#include "mpath/discovery/vpd.h"
#include "mpath/discovery/wwid.h"
#include "mpath/error.h"
#include "mpath/model/path.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mpath::discovery {

/// Knobs for Discovery.
struct Options {
    /// The uid attribute (udev property holding the WWID) for a path whose
    /// inquiry data (vendor, product, revision, transport) is known, e.g.
    /// from Config::effective(). Returning "" (or leaving this empty) uses
    /// wwid::defaultUidAttribute(): ID_SERIAL for SCSI, ID_WWN for NVMe.
    std::function<std::string(const model::Path &)> uidAttribute;
    /// Derive the WWID from sysfs (VPD page 0x83, NVMe wwid/nguid/eui)
    /// when the uid attribute is missing.
    bool sysfsFallback{true};
    /// Which page 0x83 designator the SCSI fallback takes: the one udev
    /// names ID_SERIAL with sg3-utils' rules (the usual setup for
    /// multipath) or the one scsi_id alone picks.
    vpd::Order page83Order{vpd::Order::Udev};

    /// Options whose uid attribute comes from \a config (overrides {},
    /// devices {} and the built-in device table, defaults {}); the built-in
    /// default is left to wwid::defaultUidAttribute() so that NVMe
    /// namespaces use ID_WWN. The options keep a copy of \a config.
    static Options fromConfig(const config::Config &config);
};

/// A block device discovery could not describe, and why.
struct Issue {
    std::string kernelName;
    Error error;

    bool operator==(const Issue &) const = default;
};

/// A described path and where its WWID came from.
struct Found {
    model::Path path;
    wwid::Source wwidSource{wwid::Source::None};
};

/// Builds Path values from sysfs and udev properties.
///
/// Reads, below the sysfs root: block/<name>/{dev,size} and, for NVMe,
/// {wwid,uuid,nguid,eui,nsid,ana_state,ana_grpid}; the device link (SCSI
/// device: vendor, model, rev, state, vpd_pg80, vpd_pg83, inquiry,
/// dh_state, access_state, preferred_path; NVMe controller: model, serial,
/// firmware_rev, transport, state, subsysnqn); class/fc_host,
/// class/fc_transport, class/iscsi_session, class/sas_host and
/// class/sas_device for transport identities. It never opens device
/// nodes: each read is a sysfs attribute, answered by the kernel at once.
class Discovery {
public:
    explicit Discovery(Sysfs sysfs, Options options = {});

    /// Describes block device \a kernelName ("sdb", "nvme0n1"). A path
    /// without WWID is still described (wwid empty); the caller decides
    /// (multipath-tools ignores such paths).
    /// \return the path, ENOENT when the device does not exist, or another
    ///         error
    Result<Found> discover(const std::string &kernelName, const UdevProperties &udev) const;

    /// Describes every block device that could be a path: whole disks
    /// under block/, except device-mapper, loop, ram, zram, md and hidden
    /// NVMe multipath devices (blacklisting the rest is policy, not
    /// discovery). Devices that fail are reported in \a issues.
    std::vector<model::Path> discoverAll(const UdevProperties &udev,
                                         std::vector<Issue> *issues = nullptr) const;

    /// Reads again what a path's port says of its state, which changes
    /// without a uevent: ALUA access_state and preferred_path (SCSI),
    /// ana_state (NVMe).
    /// \return true when any of them changed, or an error when the device
    ///         is gone
    Result<bool> refreshPortState(model::Path &path) const;

    /// The sysfs "state" of the path's device (SCSI device, NVMe
    /// controller) as the kernel shows it now: "running", "live",
    /// "transport-offline"...; "" when it has none (a virtio disk).
    Result<std::string> deviceStateText(const model::Path &path) const;

    /// The block device names discoverAll() looks at, sorted.
    Result<std::vector<std::string>> candidates() const;

    const Sysfs &sysfs() const { return sysfs_; }

private:
    /// Transport class lookups shared by the paths of one discoverAll().
    struct HostCache;

    Result<Found> discoverOne(const std::string &kernelName, const UdevProperties &udev,
                              HostCache *cache) const;
    void discoverScsi(const std::string &deviceDir, const UdevPropertyMap &props, model::Path &path,
                      std::vector<uint8_t> &page83, HostCache *cache) const;
    void discoverNvme(const std::string &blockDir, const std::string &deviceDir,
                      model::Path &path) const;
    void scsiTransport(const std::string &deviceDir, model::Path &path, HostCache *cache) const;

    Sysfs sysfs_;
    Options options_;
};

} // namespace mpath::discovery
