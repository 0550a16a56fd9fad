#pragma once

#include "mpath/error.h"

#include <memory>
#include <string>
#include <string_view>

namespace mpath::config {

/// A regular expression from the configuration, with multipath-tools'
/// semantics: POSIX extended syntax, unanchored search ("sd" matches
/// "xsdy"; write "^sd" to anchor).
///
/// Copies share the compiled expression; matching is thread-safe.
class Regex {
public:
    /// An empty expression: matches every text.
    Regex() = default;

    /// Compile \a pattern. An empty pattern gives an empty expression.
    /// \return the expression, or EINVAL with the compiler's message
    static Result<Regex> compile(std::string_view pattern);

    /// A pattern of the program's own (the built-in hardware table and
    /// blacklist), known to compile: it is compiled when it is first
    /// matched, so a short-lived process (udev's helper) does not compile
    /// the dozens of patterns it never uses.
    static Regex builtin(std::string_view pattern);

    /// True for a default-constructed expression (matches everything).
    bool empty() const { return pattern_.empty(); }
    const std::string &pattern() const { return pattern_; }

    /// True when the expression matches somewhere in \a text.
    bool matches(std::string_view text) const;

    bool operator==(const Regex &other) const { return pattern_ == other.pattern_; }

private:
    struct Compiled;
    std::string pattern_;
    std::shared_ptr<const Compiled> compiled_;
};

} // namespace mpath::config
