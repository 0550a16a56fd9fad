#pragma once

#include "mpath/enum_names.h"

#include <array>
#include <string>
#include <string_view>

namespace mpath::config {

/// A problem, or a remark, about a line of configuration.
///
/// The severities follow what multipath-tools does with the same text: an
/// Error is what makes it refuse the file (an invalid blacklist pattern,
/// a file that cannot be read), a Warning what it reports and then ignores
/// (the line, the value or the entry), an Info a remark that asks for no
/// change (a keyword accepted that has no effect here).
struct Diagnostic {
    enum class Severity { Warning, Error, Info };

    std::string file;
    unsigned line{0}; ///< 0 when the problem is about the whole file
    Severity severity{Severity::Warning};
    std::string message; ///< e.g. "invalid value 'x' for failback; accepted: ..."

    /// "file:line: message" (or "file: message" without a line).
    std::string toString() const;

    bool operator==(const Diagnostic &) const = default;
};

inline constexpr std::array<EnumName<Diagnostic::Severity>, 3> kSeverityNames{{
    {Diagnostic::Severity::Warning, "warning"},
    {Diagnostic::Severity::Error, "error"},
    {Diagnostic::Severity::Info, "note"},
}};

/// "warning", "error" or "note".
constexpr std::string_view toString(Diagnostic::Severity v) {
    return nameOf(kSeverityNames, v);
}

} // namespace mpath::config
