#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mpath::config::detail {

/// A word of a configuration line.
struct Token {
    std::string text;
    bool quoted{false};

    /// True for the unquoted word \a s ("{" in quotes is a value, not a brace).
    bool is(std::string_view s) const { return !quoted && text == s; }
};

/// Splits one line like multipath-tools does: words, double-quoted strings
/// (with "" as an escaped quote), and '{' / '}' as words of their own.
/// '#' and '!' outside quotes end the line.
/// \return false when a quoted string is not terminated
bool tokenize(std::string_view line, std::vector<Token> &out);

} // namespace mpath::config::detail
