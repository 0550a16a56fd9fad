#pragma once

#include <string>
#include <string_view>

namespace mpath {

class Sysfs;

/// How a path's WWID is derived when udev does not provide it, and which
/// udev property provides it by default.
class Wwid {
public:
    /// Where the WWID of a discovered path came from.
    enum class Source {
        None,         ///< no WWID found
        UdevProperty, ///< the uid attribute (ID_SERIAL, ID_WWN, ...)
        VpdPage83,    ///< parsed from sysfs vpd_pg83 (SCSI)
        NvmeSysfs,    ///< the namespace's wwid / uuid / nguid / eui attribute
    };

    /// multipath-tools' default uid attribute for a block device name:
    /// "ID_SERIAL" for SCSI disks (sd*), "ID_WWN" for NVMe namespaces,
    /// "ID_UID" for DASDs, "" for anything else.
    static std::string defaultUidAttribute(std::string_view kernelName);

    /// The WWID the kernel's nvme wwid attribute shows for these
    /// identifiers: "uuid.<uuid>" when the UUID is set, else
    /// "eui.<nguid hex>", else "eui.<eui64 hex>". Inputs are in their
    /// sysfs text forms (uuid/nguid with dashes, eui64 as hex bytes
    /// separated by blanks); all-zero values count as unset.
    /// \return the WWID, "" when every identifier is unset
    static std::string nvmeFromIdentifiers(std::string_view uuid, std::string_view nguid,
                                           std::string_view eui);

    /// The WWID of an NVMe namespace from its sysfs directory \a blockDir
    /// ("block/nvme0n1"): the wwid attribute, else uuid/nguid/eui.
    /// \return 0 on success, -ENODATA when the namespace has no identifier
    [[nodiscard]] static int fromNvmeSysfs(const Sysfs &sysfs, std::string_view blockDir,
                                           std::string &wwid);

    /// The scsi_id form of a SCSI device's page 0x83 read from
    /// \a deviceDir/vpd_pg83 (see Vpd::wwidFromPage83, udev order).
    /// \return 0 on success or a negative error code
    [[nodiscard]] static int fromScsiSysfs(const Sysfs &sysfs, std::string_view deviceDir,
                                           std::string_view vendor, std::string_view model,
                                           std::string &wwid);
};

const char *toString(Wwid::Source s);

} // namespace mpath
