#include "mpath/scsi/persistent_reservation.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace mpath::scsi {

namespace {

uint32_t be32(std::span<const uint8_t> d, size_t at) {
    if (at + 4 > d.size())
        return 0;
    return uint32_t(d[at]) << 24 | uint32_t(d[at + 1]) << 16 | uint32_t(d[at + 2]) << 8 | d[at + 3];
}

uint64_t be64(std::span<const uint8_t> d, size_t at) {
    return uint64_t(be32(d, at)) << 32 | be32(d, at + 4);
}

uint8_t byteAt(std::span<const uint8_t> d, size_t at) {
    return at < d.size() ? d[at] : 0;
}

void putBe64(uint8_t *out, uint64_t v) {
    for (int i = 7; i >= 0; --i, v >>= 8)
        out[i] = static_cast<uint8_t>(v);
}

template <typename... Args>
void append(std::string &out, const char *format, Args... args) {
    char buf[512];
    const int n = std::snprintf(buf, sizeof(buf), format, args...);
    if (n > 0)
        out.append(buf, std::min<size_t>(size_t(n), sizeof(buf) - 1));
}

/// mpathpersist's hex dump: from column 8, three columns a byte, one more
/// after the eighth; a full row of 16 ends without a new line (as 0.9.4
/// prints it), the last partial row with one.
void hexDump(std::string &out, std::span<const uint8_t> bytes) {
    std::string line(80, ' ');
    size_t col = 8;
    size_t inRow = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
        if (inRow == 8)
            ++col;
        char hex[3];
        std::snprintf(hex, sizeof(hex), "%.2x", bytes[i]);
        line[col] = hex[0];
        line[col + 1] = hex[1];
        col += 3;
        if (++inRow == 16) {
            out += line.substr(0, 76);
            line.assign(80, ' ');
            col = 8;
            inRow = 0;
        }
    }
    if (inRow > 0) {
        out += line.substr(0, col - 1);
        out += '\n';
    }
}

} // namespace

uint16_t defaultAllocationLength(PrIn sa) {
    switch (sa) {
    case PrIn::ReadReservation:
        return 24;
    case PrIn::ReportCapabilities:
        return 8;
    case PrIn::ReadKeys:
    case PrIn::ReadFullStatus:
        break;
    }
    return 8192;
}

std::array<uint8_t, 10> prInCdb(PrIn sa, uint16_t allocationLength) {
    return {0x5e,
            static_cast<uint8_t>(uint8_t(sa) & 0x1f),
            0,
            0,
            0,
            0,
            0,
            static_cast<uint8_t>(allocationLength >> 8),
            static_cast<uint8_t>(allocationLength),
            0};
}

std::array<uint8_t, 10> prOutCdb(PrOut sa, uint8_t type, uint16_t parameterLength) {
    return {0x5f,
            static_cast<uint8_t>(uint8_t(sa) & 0x1f),
            static_cast<uint8_t>(type & 0x0f), // LU scope (0) in the high nibble
            0,
            0,
            0,
            0,
            static_cast<uint8_t>(parameterLength >> 8),
            static_cast<uint8_t>(parameterLength),
            0};
}

std::array<uint8_t, 24> encode(const PrOutParameters &p) {
    std::array<uint8_t, 24> out{};
    putBe64(out.data(), p.key);
    putBe64(out.data() + 8, p.serviceActionKey);
    out[20] = static_cast<uint8_t>((p.allTargetPorts ? 0x04 : 0) | (p.aptpl ? 0x01 : 0));
    return out;
}

PrStatus prStatus(const sys::ScsiCompletion &c) {
    const uint8_t status = c.status & 0x7e;
    if (status == 0 && c.hostStatus == 0 && c.driverStatus == 0)
        return PrSuccess;
    if (status == 0x18)
        return PrReservationConflict;
    if (status == 0x02) {
        // Fixed-format sense as multipath-tools reads it; descriptor
        // format (0x72/0x73) keeps the key in byte 1.
        const bool descriptor = !c.sense.empty() && (c.sense[0] & 0x7f) >= 0x72;
        const uint8_t key = byteAt(c.sense, descriptor ? 1 : 2) & 0x0f;
        switch (key) {
        case 0x0:
            return PrNoSense;
        case 0x1:
            return PrSuccess; // RECOVERED ERROR
        case 0x2:
            return PrNotReady;
        case 0x3:
            return PrMediumError;
        case 0x4:
            return PrHardwareError;
        case 0x5:
            return PrIllegalRequest;
        case 0x6:
            return PrUnitAttention;
        case 0xb:
            return PrAbortedCommand;
        default:
            return PrOther;
        }
    }
    return PrOther; // BUSY, TASK SET FULL, a host or driver condition
}

bool retryOnSamePath(const sys::ScsiCompletion &c) {
    if ((c.status & 0x7e) != 0x02 || c.sense.empty())
        return false;
    const bool descriptor = (c.sense[0] & 0x7f) >= 0x72;
    const uint8_t key = byteAt(c.sense, descriptor ? 1 : 2) & 0x0f;
    const uint8_t asc = byteAt(c.sense, descriptor ? 2 : 12);
    const uint8_t ascq = byteAt(c.sense, descriptor ? 3 : 13);
    return key == 0x6 || (key == 0x2 && asc == 0x04 && ascq == 0x07);
}

RegisteredKeys parseKeys(std::span<const uint8_t> data) {
    RegisteredKeys r;
    r.generation = be32(data, 0);
    // As many as the device says, but no more than the answer holds (a
    // broken length must not cost gigabytes).
    const size_t count =
        std::min<size_t>(be32(data, 4) / 8, data.size() > 8 ? (data.size() - 8) / 8 : 0);
    for (size_t i = 0; i < count; ++i)
        r.keys.push_back(be64(data, 8 + i * 8));
    return r;
}

std::string_view reservationTypeName(uint8_t type) {
    static constexpr std::array<std::string_view, 16> names{
        "obsolete [0]",
        "Write Exclusive",
        "obsolete [2]",
        "Exclusive Access",
        "obsolete [4]",
        "Write Exclusive, registrants only",
        "Exclusive Access, registrants only",
        "Write Exclusive, all registrants",
        "Exclusive Access, all registrants",
        "obsolete [9]",
        "obsolete [0xa]",
        "obsolete [0xb]",
        "obsolete [0xc]",
        "obsolete [0xd]",
        "obsolete [0xe]",
        "obsolete [0xf]",
    };
    return names[type & 0x0f];
}

namespace {

std::string formatKeys(std::span<const uint8_t> data) {
    const RegisteredKeys k = parseKeys(data);
    std::string out;
    append(out, "  PR generation=0x%x, ", k.generation);
    if (k.keys.empty())
        out += "\t0 registered reservation key.\n";
    else if (k.keys.size() == 1)
        out += "\t1 registered reservation key follows:\n";
    else
        append(out, "\t%d registered reservation keys follow:\n", int(k.keys.size()));
    for (uint64_t key : k.keys)
        append(out, "    0x%" PRIx64 "\n", key);
    return out;
}

std::string formatReservation(std::span<const uint8_t> data) {
    std::string out;
    const uint32_t generation = be32(data, 0);
    if (be32(data, 4) / 8 == 0) {
        append(out, "  PR generation=0x%x, there is NO reservation held \n", generation);
        return out;
    }
    append(out, "  PR generation=0x%x, Reservation follows:\n", generation);
    append(out, "   Key = 0x%" PRIx64 "\n", be64(data, 8));
    const uint8_t scope = byteAt(data, 21) >> 4;
    const std::string type(reservationTypeName(byteAt(data, 21) & 0x0f));
    if (scope == 0)
        append(out, "  scope = LU_SCOPE, type = %s", type.c_str());
    else
        append(out, "  scope = %d, type = %s", int(scope), type.c_str());
    out += '\n';
    return out;
}

std::string formatCapabilities(std::span<const uint8_t> data) {
    std::string out;
    const unsigned length = unsigned(byteAt(data, 0)) << 8 | byteAt(data, 1);
    if (length <= 2)
        return out; // 0.9.4 says so on stderr only
    const uint8_t f0 = byteAt(data, 2), f1 = byteAt(data, 3);
    out += "Report capabilities response:\n";
    append(out, "  Compatible Reservation Handling(CRH): %d\n", !!(f0 & 0x10));
    append(out, "  Specify Initiator Ports Capable(SIP_C): %d\n", !!(f0 & 0x08));
    append(out, "  All Target Ports Capable(ATP_C): %d\n", !!(f0 & 0x04));
    // 0.9.4 tests the whole byte here, and the type mask as one 16-bit
    // number: reproduced, since scripts compare this output.
    append(out, "  Persist Through Power Loss Capable(PTPL_C): %d\n", !!f0);
    append(out, "  Type Mask Valid(TMV): %d\n", !!(f1 & 0x80));
    append(out, "  Allow Commands: %d\n", !!((f1 >> 4) & 0x07));
    append(out, "  Persist Through Power Loss Active(PTPL_A): %d\n", !!(f1 & 0x01));
    if (f1 & 0x80) {
        const unsigned mask = unsigned(byteAt(data, 4)) << 8 | byteAt(data, 5);
        out += "    Support indicated in Type mask:\n";
        append(out, "      %s: %d\n", "Write Exclusive, all registrants", int(mask & 0x80));
        append(out, "      %s: %d\n", "Exclusive Access, registrants only", int(mask & 0x40));
        append(out, "      %s: %d\n", "Write Exclusive, registrants only", int(mask & 0x20));
        append(out, "      %s: %d\n", "Exclusive Access", int(mask & 0x8));
        append(out, "      %s: %d\n", "Write Exclusive", int(mask & 0x2));
        append(out, "      %s: %d\n", "Exclusive Access, all registrants", int(mask & 0x100));
    }
    return out;
}

std::string formatFullStatus(std::span<const uint8_t> data) {
    std::string out;
    append(out, "  PR generation=0x%x \n", be32(data, 0));
    const size_t end = std::min<size_t>(data.size(), 8 + size_t(be32(data, 4)));
    for (size_t at = 8; at + 24 <= end;) {
        const size_t extra = be32(data, at + 20);
        const size_t next = std::min(end, at + 24 + extra);
        append(out, "   Key = 0x%" PRIx64 "\n", be64(data, at));
        const uint8_t flags = data[at + 12];
        if (flags & 0x02) {
            out += "      All target ports bit set\n";
        } else {
            out += "      All target ports bit clear\n";
            append(out, "      Relative port address: 0x%x\n",
                   unsigned(data[at + 18]) << 8 | data[at + 19]);
        }
        if (flags & 0x01) {
            out += "      << Reservation holder >>\n";
            const uint8_t scope = data[at + 13] >> 4;
            if (scope == 0)
                out += "      scope: LU_SCOPE, ";
            else
                append(out, "      scope: %d ", int(scope));
            append(out, " type: %s\n",
                   std::string(reservationTypeName(data[at + 13] & 0x0f)).c_str());
        } else {
            out += "      not reservation holder\n";
        }
        // The TransportID; a descriptor without one reads as FC, zeroes.
        std::array<uint8_t, 264> tid{};
        if (next > at + 24)
            std::copy(data.begin() + long(at + 24),
                      data.begin() + long(std::min(next, at + 24 + tid.size())), tid.begin());
        const uint8_t protocol = tid[0] & 0x0f, format = (tid[0] >> 6) & 0x03;
        if (protocol == 0) {
            out += "   FCP-2 ";
            if (format != 0)
                append(out, " [Unexpected format code: %d]\n", int(format));
            hexDump(out, std::span<const uint8_t>(tid.data() + 8, 8));
        } else if (protocol == 5) {
            out += "   iSCSI ";
            const int length = std::min(256, int(tid[2]) << 8 | tid[3]);
            const std::string name(
                reinterpret_cast<const char *>(tid.data() + 4),
                strnlen(reinterpret_cast<const char *>(tid.data() + 4), size_t(length)));
            if (format == 0)
                append(out, "name: %s\n", name.c_str());
            else if (format == 1)
                append(out, "world wide unique port id: %s\n", name.c_str());
            else {
                append(out, "  [Unexpected format code: %d]\n", int(format));
                hexDump(out, std::span<const uint8_t>(tid.data() + 4, 256));
            }
        } else if (protocol == 6) {
            out += "   SAS ";
            if (format != 0)
                append(out, " [Unexpected format code: %d]\n", int(format));
            hexDump(out, std::span<const uint8_t>(tid.data() + 4, 8));
        }
        at = next;
    }
    return out;
}

} // namespace

std::string formatPrIn(PrIn sa, std::span<const uint8_t> data) {
    switch (sa) {
    case PrIn::ReadKeys:
        return formatKeys(data);
    case PrIn::ReadReservation:
        return formatReservation(data);
    case PrIn::ReportCapabilities:
        return formatCapabilities(data);
    case PrIn::ReadFullStatus:
        return formatFullStatus(data);
    }
    return {};
}

} // namespace mpath::scsi
