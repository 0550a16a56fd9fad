#pragma once

#include "mpath/error.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

/// SCSI Vital Product Data pages as the kernel exposes them in sysfs
/// (vpd_pg80, vpd_pg83) or an INQUIRY returns them.
namespace mpath::discovery::vpd {

/// One identification descriptor of page 0x83 (SPC-4 7.8.6).
struct Designator {
    enum class CodeSet : uint8_t { Binary = 1, Ascii = 2, Utf8 = 3 };
    enum class Association : uint8_t { LogicalUnit = 0, TargetPort = 1, TargetDevice = 2 };
    enum class Type : uint8_t {
        VendorSpecific = 0x0,
        T10VendorId = 0x1,
        Eui64 = 0x2,
        Naa = 0x3,
        RelativeTargetPort = 0x4,
        TargetPortGroup = 0x5,
        LogicalUnitGroup = 0x6,
        Md5 = 0x7,
        ScsiName = 0x8,
        ProtocolSpecificPort = 0x9,
        Uuid = 0xa,
    };

    uint8_t protocolId{0};
    uint8_t codeSet{0};     ///< raw value; compare with CodeSet
    uint8_t association{0}; ///< raw value; compare with Association
    uint8_t type{0};        ///< raw value; compare with Type
    bool piv{false};
    std::vector<uint8_t> value;

    bool is(Type t) const { return type == static_cast<uint8_t>(t); }
    bool is(Association a) const { return association == static_cast<uint8_t>(a); }
    bool is(CodeSet c) const { return codeSet == static_cast<uint8_t>(c); }

    bool operator==(const Designator &) const = default;
};

/// Splits page 0x83 into its designators.
/// \return the designators, or EINVAL when the page is not 0x83 or a
///         descriptor runs past the end of the page
Result<std::vector<Designator>> parsePage83(std::span<const uint8_t> page);

/// The unit serial number of page 0x80, surrounding blanks removed.
/// \return the serial, EINVAL for a malformed page, ENODATA when it is
///         empty
Result<std::string> parsePage80(std::span<const uint8_t> page);

/// Which designator of page 0x83 names the logical unit, and so which
/// ID_SERIAL udev gives the device.
enum class Order {
    /// udev with sg3-utils' 55-scsi-sg3_id.rules (which set ID_SERIAL
    /// before scsi_id runs; multipath-tools' own sysfs fallback agrees):
    /// NAA IEEE Registered Extended, NAA IEEE Registered, NAA IEEE
    /// Extended, EUI-64, SCSI name string, T10 vendor ID, NAA locally
    /// assigned, vendor specific.
    Udev,
    /// udev's scsi_id alone: NAA Registered Extended, NAA Registered, any
    /// other NAA (locally assigned included), EUI-64, T10 vendor ID,
    /// vendor specific; no SCSI name string. SCSI-2 style pages (byte 6
    /// non-zero, EMC Symmetrix) give '3' and the hex of the identifier.
    ScsiId,
};

/// The WWID udev derives from page 0x83 as ID_SERIAL, which multipath-tools
/// uses for SCSI devices: a type digit ('3' NAA, '2' EUI-64, '8' SCSI name
/// string, '1' T10 vendor ID, '0' vendor specific) and the designator,
/// binary ones as lower-case hex, text ones with runs of blanks turned into
/// one '_' (udevSanitize()). Only logical unit designators count; binary
/// before ASCII within a type.
/// \param vendor, model the INQUIRY vendor and model, needed only for
///        vendor specific designators
/// \return the WWID, ENODATA when the page has no usable designator,
///         EINVAL when it is malformed
Result<std::string> wwidFromPage83(std::span<const uint8_t> page, Order order = Order::Udev,
                                   std::string_view vendor = {}, std::string_view model = {});

/// The ALUA target port group of the port the page was read through.
/// \return the group (0..65535), ENODATA or EINVAL
Result<int> targetPortGroupFromPage83(std::span<const uint8_t> page);

/// The TPGS field of standard INQUIRY data (byte 5, bits 5:4): 0 when the
/// device does not support ALUA, 1 implicit, 2 explicit, 3 both.
/// \return the field, or EINVAL when the data is shorter than 6 bytes
Result<int> targetPortGroupSupport(std::span<const uint8_t> inquiry);

/// What udev does to an identifier before storing it (scsi_id --export):
/// leading and trailing blanks removed, each run of blanks replaced by one
/// '_', other characters outside [0-9A-Za-z#+-.:=@_/] replaced by '_'
/// unless they are part of a valid UTF-8 sequence or a backslash-x escape.
std::string udevSanitize(std::string_view text);

} // namespace mpath::discovery::vpd
