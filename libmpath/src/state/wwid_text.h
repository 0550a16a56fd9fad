#pragma once

#include <cstddef>
#include <string_view>

// What the bindings and wwids files allow in their lines.

namespace mpath::state {

/// A blank inside a line: space, tab, CR, VT, FF (not the newline).
constexpr bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// \a s without blanks and newlines around it.
constexpr std::string_view trim(std::string_view s) {
    while (!s.empty() && (isBlank(s.front()) || s.front() == '\n'))
        s.remove_prefix(1);
    while (!s.empty() && (isBlank(s.back()) || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

/// Whether \a wwid can stand in a state file whose lines use \a separator
/// ('#' starts a comment in bindings, '/' closes an entry in wwids). Inner
/// blanks are allowed: SCSI serials read by old getuid callouts have them
/// ("1ATA     VBOX HARDDISK    VB..."), and files still carry them.
constexpr bool validWwid(std::string_view wwid, char separator) {
    return !wwid.empty() && trim(wwid) == wwid && wwid.find('\n') == std::string_view::npos &&
           wwid.find(separator) == std::string_view::npos;
}

/// Calls \a fn(line, number) for each line of \a text, numbered from 1,
/// without its newline.
template <typename Fn>
void forEachLine(std::string_view text, Fn &&fn) {
    unsigned no = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        fn(text.substr(pos, end - pos), ++no);
        pos = end + 1;
    }
}

} // namespace mpath::state
