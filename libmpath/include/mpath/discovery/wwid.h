#pragma once

#include "mpath/enum_names.h"
#include "mpath/error.h"

#include <string>
#include <string_view>

/// How a path's WWID is derived when udev does not provide it, and which
/// udev property provides it by default.
namespace mpath::discovery::wwid {

/// Where the WWID of a discovered path came from.
enum class Source {
    None,         ///< no WWID found
    UdevProperty, ///< the uid attribute (ID_SERIAL, ID_WWN, ...)
    VpdPage83,    ///< parsed from sysfs vpd_pg83 (SCSI)
    NvmeSysfs,    ///< the namespace's wwid / uuid / nguid / eui attribute
};

inline constexpr std::array<EnumName<Source>, 4> kSourceNames{{
    {Source::None, "none"},
    {Source::UdevProperty, "udev"},
    {Source::VpdPage83, "vpd_pg83"},
    {Source::NvmeSysfs, "nvme-sysfs"},
}};

constexpr std::string_view toString(Source s) {
    return nameOf(kSourceNames, s);
}

/// multipath-tools' default uid attribute for a block device name:
/// "ID_SERIAL" for SCSI disks (sd*), "ID_WWN" for NVMe namespaces,
/// "ID_UID" for DASDs, "" for anything else.
std::string defaultUidAttribute(std::string_view kernelName);

/// The WWID the kernel's nvme wwid attribute shows for these identifiers:
/// "uuid.<uuid>" when the UUID is set, else "eui.<nguid hex>", else
/// "eui.<eui64 hex>". Inputs are in their sysfs text forms (uuid/nguid
/// with dashes, eui64 as hex bytes separated by blanks); all-zero values
/// count as unset.
/// \return the WWID, "" when every identifier is unset
std::string fromNvmeIdentifiers(std::string_view uuid, std::string_view nguid,
                                std::string_view eui);

} // namespace mpath::discovery::wwid
