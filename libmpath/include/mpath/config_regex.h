#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace mpath {

/// A regular expression from the configuration, with multipath-tools'
/// semantics: POSIX extended syntax, unanchored search ("sd" matches
/// "xsdy"; write "^sd" to anchor).
///
/// Copies share the compiled expression; matching is thread-safe.
class ConfigRegex {
public:
    /// An empty expression: matches every text.
    ConfigRegex() = default;

    /// Compile \a pattern. An empty pattern gives an empty expression.
    /// \param error receives the compiler's message on failure, may be null
    /// \return the expression; valid() is false when \a pattern does not
    ///         compile, and such an expression matches nothing
    static ConfigRegex compile(std::string_view pattern, std::string *error = nullptr);

    /// True unless compile() failed.
    bool valid() const { return valid_; }
    /// True for a default-constructed expression (matches everything).
    bool empty() const { return pattern_.empty(); }
    const std::string &pattern() const { return pattern_; }

    /// True when the expression matches somewhere in \a text.
    bool matches(std::string_view text) const;

    bool operator==(const ConfigRegex &other) const { return pattern_ == other.pattern_; }

private:
    struct Compiled;
    std::string pattern_;
    std::shared_ptr<const Compiled> compiled_;
    bool valid_{true};
};

} // namespace mpath
