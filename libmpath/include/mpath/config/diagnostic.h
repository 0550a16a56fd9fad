#pragma once

#include "mpath/enum_names.h"

#include <array>
#include <string>
#include <string_view>

namespace mpath::config {

/// A problem found while reading configuration.
struct Diagnostic {
    enum class Severity { Warning, Error };

    std::string file;
    unsigned line{0}; ///< 0 when the problem is about the whole file
    Severity severity{Severity::Warning};
    std::string message; ///< e.g. "invalid value 'x' for failback; accepted: ..."

    /// "file:line: message" (or "file: message" without a line).
    std::string toString() const;

    bool operator==(const Diagnostic &) const = default;
};

inline constexpr std::array<EnumName<Diagnostic::Severity>, 2> kSeverityNames{{
    {Diagnostic::Severity::Warning, "warning"},
    {Diagnostic::Severity::Error, "error"},
}};

/// "warning" or "error".
constexpr std::string_view toString(Diagnostic::Severity v) {
    return nameOf(kSeverityNames, v);
}

} // namespace mpath::config
