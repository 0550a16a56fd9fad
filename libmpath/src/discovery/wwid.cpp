#include "mpath/discovery/wwid.h"

#include <cctype>

namespace mpath::discovery::wwid {

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

std::string defaultUidAttribute(std::string_view kernelName) {
    if (startsWith(kernelName, "sd"))
        return "ID_SERIAL";
    if (startsWith(kernelName, "nvme"))
        return "ID_WWN";
    if (startsWith(kernelName, "dasd"))
        return "ID_UID";
    return {};
}

std::string fromNvmeIdentifiers(std::string_view uuid, std::string_view nguid,
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

} // namespace mpath::discovery::wwid
