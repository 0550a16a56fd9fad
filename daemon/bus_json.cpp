#include "bus_json.h"

#include <charconv>
#include <utility>

namespace mpathd {

namespace {

/// The length of the UTF-8 sequence at \a s, 0 when it is not one.
size_t utf8Length(std::string_view s) {
    const auto c = static_cast<unsigned char>(s[0]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (s.size() < n)
        return 0;
    for (size_t i = 1; i < n; ++i) {
        const auto d = static_cast<unsigned char>(s[i]);
        if ((d & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (d & 0x3f);
    }
    // Overlong forms, surrogates and what lies past U+10FFFF are no UTF-8.
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

} // namespace

void BusJson::next() {
    if (levels_.empty() || !levels_.back().array)
        return; // the key placed it
    if (!levels_.back().empty)
        out_ += ',';
    levels_.back().empty = false;
    newline(levels_.size());
}

void BusJson::newline(size_t depth) {
    out_ += '\n';
    out_.append(2 * depth, ' ');
}

void BusJson::beginObject() {
    next();
    out_ += '{';
    levels_.push_back({false, true});
}

void BusJson::endObject() {
    end('}');
}

void BusJson::beginArray() {
    next();
    out_ += '[';
    levels_.push_back({true, true});
}

void BusJson::endArray() {
    end(']');
}

void BusJson::end(char closing) {
    const bool empty = levels_.back().empty;
    levels_.pop_back();
    if (!empty)
        newline(levels_.size());
    out_ += closing;
}

void BusJson::key(std::string_view name) {
    if (!levels_.back().empty)
        out_ += ',';
    levels_.back().empty = false;
    newline(levels_.size());
    string(name);
    out_ += ": ";
}

void BusJson::value(std::string_view s) {
    next();
    string(s);
}

void BusJson::value(bool b) {
    next();
    out_ += b ? "true" : "false";
}

void BusJson::value(uint64_t n) {
    next();
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), n);
    out_.append(buf, end);
}

void BusJson::value(int64_t n) {
    next();
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), n);
    out_.append(buf, end);
}

void BusJson::null() {
    next();
    out_ += "null";
}

void BusJson::string(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out_ += '"';
    size_t plain = 0; // bytes that go out as they are, from here
    auto flush = [&](size_t i) { out_.append(s.data() + plain, i - plain); };
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            ++i;
            continue;
        }
        if (c >= 0x80) {
            if (size_t n = utf8Length(s.substr(i))) {
                i += n;
                continue;
            }
            flush(i);
            out_ += "\xef\xbf\xbd";
            plain = ++i;
            continue;
        }
        flush(i);
        switch (c) {
        case '"':
            out_ += "\\\"";
            break;
        case '\\':
            out_ += "\\\\";
            break;
        case '\b':
            out_ += "\\b";
            break;
        case '\f':
            out_ += "\\f";
            break;
        case '\n':
            out_ += "\\n";
            break;
        case '\r':
            out_ += "\\r";
            break;
        case '\t':
            out_ += "\\t";
            break;
        default:
            out_ += "\\u00";
            out_ += kHex[c >> 4];
            out_ += kHex[c & 0xf];
        }
        plain = ++i;
    }
    flush(s.size());
    out_ += '"';
}

std::string BusJson::take() {
    levels_.clear();
    return std::exchange(out_, {});
}

} // namespace mpathd
