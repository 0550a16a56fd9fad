#pragma once

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace mpath::dm {

/// Reads the whitespace-separated words of a device-mapper table or status
/// line, and turns a short read or a bad number into a sentence.
class TableTokens {
public:
    explicit TableTokens(std::string_view text) : text_(text) {}

    bool atEnd() {
        skipSpace();
        return pos_ >= text_.size();
    }

    /// Offset just past the word last read.
    size_t offset() const { return pos_; }

    /// Index (1-based) of the word last read, for error messages.
    unsigned wordIndex() const { return index_; }

    [[nodiscard]] int word(std::string_view &out, const char *what) {
        skipSpace();
        if (pos_ >= text_.size())
            return fail(std::string("missing ") + what);
        size_t end = pos_;
        while (end < text_.size() && !isSpace(text_[end]))
            ++end;
        out = text_.substr(pos_, end - pos_);
        pos_ = end;
        ++index_;
        return 0;
    }

    [[nodiscard]] int number(uint64_t &out, const char *what, uint64_t max = UINT64_MAX) {
        std::string_view w;
        if (int r = word(w, what); r < 0)
            return r;
        uint64_t v = 0;
        auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
        if (ec != std::errc() || p != w.data() + w.size())
            return fail(std::string(what) + " is not a number: '" + std::string(w) + "'");
        if (v > max)
            return fail(std::string(what) + " " + std::string(w) + " is above the limit of " +
                        std::to_string(max));
        out = v;
        return 0;
    }

    [[nodiscard]] int number(unsigned &out, const char *what, unsigned max = UINT32_MAX) {
        uint64_t v = 0;
        if (int r = number(v, what, max); r < 0)
            return r;
        out = static_cast<unsigned>(v);
        return 0;
    }

    /// Records \p message (with the word position) and returns -EINVAL.
    [[nodiscard]] int fail(const std::string &message) {
        error_ = "word " + std::to_string(index_ + 1) + ": " + message;
        return -EINVAL;
    }

    const std::string &error() const { return error_; }

private:
    static bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
    void skipSpace() {
        while (pos_ < text_.size() && isSpace(text_[pos_]))
            ++pos_;
    }

    std::string_view text_;
    size_t pos_{0};
    unsigned index_{0};
    std::string error_;
};

} // namespace mpath::dm
