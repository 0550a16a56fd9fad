#include "mpath/wwid.h"

#include "mpath/sysfs.h"
#include "mpath/vpd.h"

#include <cctype>
#include <cerrno>

namespace mpath {

namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// Hex digits of \a text in lower case, separators dropped; "" when the
// value is all zeros or has no digits.
std::string hexDigits(std::string_view text) {
    std::string out;
    bool nonZero = false;
    for (char c : text) {
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            continue;
        char lc = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        nonZero = nonZero || lc != '0';
        out += lc;
    }
    return nonZero ? out : std::string{};
}

} // namespace

std::string Wwid::defaultUidAttribute(std::string_view kernelName) {
    if (startsWith(kernelName, "sd"))
        return "ID_SERIAL";
    if (startsWith(kernelName, "nvme"))
        return "ID_WWN";
    if (startsWith(kernelName, "dasd"))
        return "ID_UID";
    return {};
}

std::string Wwid::nvmeFromIdentifiers(std::string_view uuid, std::string_view nguid,
                                      std::string_view eui) {
    if (!hexDigits(uuid).empty()) {
        std::string lower;
        for (char c : uuid)
            lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return "uuid." + lower;
    }
    if (std::string h = hexDigits(nguid); !h.empty())
        return "eui." + h;
    if (std::string h = hexDigits(eui); !h.empty())
        return "eui." + h;
    return {};
}

int Wwid::fromNvmeSysfs(const Sysfs &sysfs, std::string_view blockDir, std::string &wwid) {
    std::string dir(blockDir);
    std::string value;
    if (sysfs.readAttribute(dir + "/wwid", value) == 0 && !value.empty()) {
        wwid = value;
        return 0;
    }
    std::string uuid, nguid, eui;
    (void)sysfs.readAttribute(dir + "/uuid", uuid);
    (void)sysfs.readAttribute(dir + "/nguid", nguid);
    (void)sysfs.readAttribute(dir + "/eui", eui);
    std::string out = nvmeFromIdentifiers(uuid, nguid, eui);
    if (out.empty())
        return -ENODATA;
    wwid = std::move(out);
    return 0;
}

int Wwid::fromScsiSysfs(const Sysfs &sysfs, std::string_view deviceDir, std::string_view vendor,
                        std::string_view model, std::string &wwid) {
    std::vector<uint8_t> page;
    int r = sysfs.readBinary(std::string(deviceDir) + "/vpd_pg83", page);
    if (r < 0)
        return r;
    return Vpd::wwidFromPage83(page, wwid, Vpd::Order::Udev, vendor, model);
}

const char *toString(Wwid::Source s) {
    switch (s) {
    case Wwid::Source::None:
        return "none";
    case Wwid::Source::UdevProperty:
        return "udev";
    case Wwid::Source::VpdPage83:
        return "vpd_pg83";
    case Wwid::Source::NvmeSysfs:
        return "nvme-sysfs";
    }
    return "unknown";
}

} // namespace mpath
