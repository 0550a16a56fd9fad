#include "mpath/discovery/vpd.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

namespace mpath::discovery::vpd {

namespace {

constexpr uint8_t kPage80 = 0x80;
constexpr uint8_t kPage83 = 0x83;

// NAA field values (first nibble of an NAA designator).
constexpr uint8_t kNaaIeeeExtended = 0x2;
constexpr uint8_t kNaaLocal = 0x3;
constexpr uint8_t kNaaIeeeRegistered = 0x5;
constexpr uint8_t kNaaIeeeRegisteredExtended = 0x6;

constexpr char kHex[] = "0123456789abcdef";

bool isBlank(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

size_t pageLength(std::span<const uint8_t> page) {
    size_t declared = (static_cast<size_t>(page[2]) << 8 | page[3]) + 4;
    return std::min(declared, page.size());
}

// Length of the valid UTF-8 multi-byte sequence at text[i], 0 if none.
size_t utf8SequenceLength(std::string_view text, size_t i) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t len;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4;
    else
        return 0;
    if (i + len > text.size())
        return 0;
    for (size_t k = 1; k < len; ++k)
        if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80)
            return 0;
    return len;
}

// One step of a search order: designator type, required NAA field (-1
// for any, -2 for any but those named before), code set.
struct SearchStep {
    Designator::Type type;
    int naa;
    Designator::CodeSet codeSet;
};

using T = Designator::Type;
using C = Designator::CodeSet;

constexpr SearchStep kScsiIdOrder[] = {
    {T::Naa, kNaaIeeeRegisteredExtended, C::Binary},
    {T::Naa, kNaaIeeeRegisteredExtended, C::Ascii},
    {T::Naa, kNaaIeeeRegistered, C::Binary},
    {T::Naa, kNaaIeeeRegistered, C::Ascii},
    {T::Naa, -1, C::Binary},
    {T::Naa, -1, C::Ascii},
    {T::Eui64, -1, C::Binary},
    {T::Eui64, -1, C::Ascii},
    {T::T10VendorId, -1, C::Binary},
    {T::T10VendorId, -1, C::Ascii},
    {T::VendorSpecific, -1, C::Binary},
    {T::VendorSpecific, -1, C::Ascii},
};

constexpr SearchStep kUdevOrder[] = {
    {T::Naa, kNaaIeeeRegisteredExtended, C::Binary},
    {T::Naa, kNaaIeeeRegistered, C::Binary},
    {T::Naa, kNaaIeeeExtended, C::Binary},
    {T::Eui64, -1, C::Binary},
    {T::ScsiName, -1, C::Utf8},
    {T::ScsiName, -1, C::Ascii},
    {T::T10VendorId, -1, C::Ascii},
    {T::T10VendorId, -1, C::Binary},
    {T::Naa, kNaaLocal, C::Binary},
    {T::VendorSpecific, -1, C::Binary},
    {T::VendorSpecific, -1, C::Ascii},
};

std::string padded(std::string_view s, size_t width) {
    std::string out(s.substr(0, width));
    out.resize(width, ' ');
    return out;
}

} // namespace

Result<std::vector<Designator>> parsePage83(std::span<const uint8_t> page) {
    if (page.size() < 4 || page[1] != kPage83)
        return Error{EINVAL, "not VPD page 0x83"};
    size_t end = pageLength(page);
    std::vector<Designator> out;
    size_t off = 4;
    while (off + 4 <= end) {
        const uint8_t *d = page.data() + off;
        size_t len = d[3];
        if (off + 4 + len > end)
            return Error{EINVAL, "VPD page 0x83: a designator runs past the end of the page"};
        Designator v;
        v.protocolId = d[0] >> 4;
        v.codeSet = d[0] & 0x0f;
        v.piv = (d[1] & 0x80) != 0;
        v.association = (d[1] >> 4) & 0x3;
        v.type = d[1] & 0x0f;
        v.value.assign(d + 4, d + 4 + len);
        out.push_back(std::move(v));
        off += 4 + len;
    }
    return out;
}

Result<std::string> parsePage80(std::span<const uint8_t> page) {
    if (page.size() < 4 || page[1] != kPage80)
        return Error{EINVAL, "not VPD page 0x80"};
    size_t end = pageLength(page);
    std::string_view text(reinterpret_cast<const char *>(page.data()) + 4, end - 4);
    while (!text.empty() && (isBlank(text.front()) || text.front() == '\0'))
        text.remove_prefix(1);
    while (!text.empty() && (isBlank(text.back()) || text.back() == '\0'))
        text.remove_suffix(1);
    if (text.empty())
        return Error{ENODATA, "VPD page 0x80: empty serial number"};
    return std::string(text);
}

Result<std::string> wwidFromPage83(std::span<const uint8_t> page, Order order,
                                   std::string_view vendor, std::string_view model) {
    if (page.size() < 4 || page[1] != kPage83)
        return Error{EINVAL, "not VPD page 0x83"};

    // SCSI-2 style reply of some EMC Symmetrix models: no descriptors, the
    // identifier follows the header directly (scsi_id's pre-SPC3 case).
    if (order == Order::ScsiId && page.size() > 6 && page[6] != 0) {
        std::string out = "3";
        size_t end = std::min<size_t>(page.size(), 4 + page[3]);
        for (size_t i = 4; i < end; ++i) {
            out += kHex[page[i] >> 4];
            out += kHex[page[i] & 0xf];
        }
        return out;
    }

    auto parsed = parsePage83(page);
    if (!parsed)
        return parsed.error();
    const std::vector<Designator> &ds = *parsed;

    auto format = [&](const Designator &d) {
        std::string raw(1, kHex[d.type]);
        if (d.is(T::VendorSpecific)) {
            if (order == Order::Udev) {
                raw += udevSanitize(vendor) + "_" + udevSanitize(model) + "_";
            } else {
                raw += padded(vendor, 8);
                raw += padded(model, 16);
            }
        }
        if (d.is(C::Binary)) {
            for (uint8_t b : d.value) {
                raw += kHex[b >> 4];
                raw += kHex[b & 0xf];
            }
        } else {
            raw.append(d.value.begin(), d.value.end());
        }
        // Text designators may be NUL padded.
        raw.resize(std::strlen(raw.c_str()));
        return udevSanitize(raw);
    };

    std::span<const SearchStep> steps = order == Order::Udev
                                            ? std::span<const SearchStep>(kUdevOrder)
                                            : std::span<const SearchStep>(kScsiIdOrder);
    for (const SearchStep &step : steps) {
        for (const Designator &d : ds) {
            if (!d.is(Designator::Association::LogicalUnit) || !d.is(step.type) ||
                !d.is(step.codeSet) || d.value.empty())
                continue;
            if (step.naa >= 0 && (d.value[0] >> 4) != step.naa)
                continue;
            if (step.type == T::VendorSpecific && (vendor.empty() || model.empty()))
                continue;
            std::string id = format(d);
            if (id.size() <= 1)
                continue;
            return id;
        }
    }
    return Error{ENODATA, "VPD page 0x83 has no logical unit designator to name the device by"};
}

Result<int> targetPortGroupFromPage83(std::span<const uint8_t> page) {
    auto ds = parsePage83(page);
    if (!ds)
        return ds.error();
    for (const Designator &d : *ds) {
        if (d.is(T::TargetPortGroup) && d.is(Designator::Association::TargetPort) &&
            d.value.size() >= 4)
            return d.value[2] << 8 | d.value[3];
    }
    return Error{ENODATA, "VPD page 0x83 names no target port group"};
}

Result<int> targetPortGroupSupport(std::span<const uint8_t> inquiry) {
    if (inquiry.size() < 6)
        return Error{EINVAL, "INQUIRY data shorter than 6 bytes"};
    return (inquiry[5] >> 4) & 0x3;
}

std::string udevSanitize(std::string_view text) {
    while (!text.empty() && isBlank(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isBlank(text.back()))
        text.remove_suffix(1);

    std::string collapsed;
    collapsed.reserve(text.size());
    bool inBlank = false;
    for (char c : text) {
        if (isBlank(static_cast<unsigned char>(c))) {
            inBlank = true;
            continue;
        }
        if (inBlank)
            collapsed += '_';
        inBlank = false;
        collapsed += c;
    }

    std::string out;
    out.reserve(collapsed.size());
    for (size_t i = 0; i < collapsed.size();) {
        auto c = static_cast<unsigned char>(collapsed[i]);
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c != 0 && std::strchr("#+-.:=@_/", c) != nullptr)) {
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        if (c == '\\' && i + 1 < collapsed.size() && collapsed[i + 1] == 'x') {
            out += "\\x";
            i += 2;
            continue;
        }
        if (size_t n = utf8SequenceLength(collapsed, i); n > 1) {
            out.append(collapsed, i, n);
            i += n;
            continue;
        }
        out += '_';
        ++i;
    }
    return out;
}

} // namespace mpath::discovery::vpd
