#pragma once

#include <string>
#include <string_view>

// Editing multipath.conf text in place, as an administrator would: what
// mpathconf changes (a defaults {} keyword, the "every device" blacklist
// line), every other line, comment and blank kept as it was.

namespace mpath::config {

/// \a text with \a keyword of the top-level defaults {} section set to
/// \a value: the last line that sets it there is replaced (same
/// indentation and comment; a line with a brace is never rewritten), else a
/// line is added before the closing brace of the last
/// defaults {} section, else a defaults {} section is added at the end.
/// \a value is written as quote() writes it.
std::string setDefault(std::string_view text, std::string_view keyword, std::string_view value);

/// The line that blacklists every device, `devnode ".*"` (what mpathconf
/// --disable adds, and --enable takes away).
inline constexpr std::string_view kBlacklistAll = "devnode \".*\"";

/// \a text with every top-level blacklist {} line that names every device
/// node (`devnode ".*"`, `devnode "*"`) taken away, as Red Hat's mpathconf
/// --enable does (a `wwid ".*"` line, the allowlist form, stays).
/// \param removed set to whether one was
std::string allowAllDevices(std::string_view text, bool &removed);

/// \a text with kBlacklistAll in its last top-level blacklist {} section,
/// or in a blacklist {} section added at the end; unchanged when a line
/// already names every device.
std::string blacklistAllDevices(std::string_view text);

} // namespace mpath::config
