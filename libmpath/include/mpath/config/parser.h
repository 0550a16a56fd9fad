#pragma once

#include "mpath/config/config.h"
#include "mpath/config/config_result.h"

#include <string>
#include <string_view>
#include <vector>

// Reading multipath.conf syntax.
//
// Sections: defaults, blacklist, blacklist_exceptions, devices (device {}
// entries), multipaths (multipath {} entries), overrides. Values may be
// double-quoted ("" inside quotes is a literal quote); '#' and '!' start a
// comment outside quotes. features, path_selector, prio_args and
// hardware_handler take the rest of the line. The keywords, their sections
// and their values are those of docs/configuration.md.
//
// Never fails as a whole, and keeps what multipath-tools keeps: what it
// reports and ignores (an unknown keyword, an invalid value, a device
// entry without product, a section never closed) is a warning, the line or
// entry is ignored and parsing goes on; what makes it refuse the file (a
// blacklist pattern that does not compile) is an error. Deprecated
// keywords get multipath-tools' notice; keywords accepted without an
// effect here get an Info note.

namespace mpath::config {

/// Parses \a text, the contents of \a fileName, over \a config: scalars it
/// sets replace earlier ones, entries it adds (devices, multipaths,
/// blacklist patterns) are appended. \a fileName is appended to
/// config.files.
/// \param ownFile true for mpathd.conf and its conf.d: accepts our own
///        keywords (dm_target)
void parse(std::string_view text, const std::string &fileName, Config &config,
           std::vector<Diagnostic> &diagnostics, bool ownFile = false);

/// Reports what no single line shows but the whole configuration gets
/// wrong: the same alias for two WWIDs in multipaths {} (an error at the
/// later entry). Loader and parseString() call it once all files are read.
void checkConsistency(const Config &config, std::vector<Diagnostic> &diagnostics);

/// Parses one text into a fresh configuration, then checkConsistency().
ConfigResult parseString(std::string_view text, const std::string &fileName = "<config>",
                         bool ownFile = false);

} // namespace mpath::config
