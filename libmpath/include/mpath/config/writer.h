#pragma once

#include "mpath/config/config.h"

#include <string>
#include <utility>
#include <vector>

// Writing a configuration back in multipath.conf syntax: what `config
// show` prints, and what parse() reads back into an equal configuration
// (source locations aside).

namespace mpath::config {

/// Every section that has content, every keyword that is set; values are
/// quoted where the syntax needs it.
std::string write(const Config &config);

/// The keywords \a settings sets and their values as write() writes them
/// (without quotes), in the order of the keyword table.
std::vector<std::pair<std::string, std::string>> settingValues(const Settings &settings);

/// The same for the daemon-wide keywords of defaults {}.
std::vector<std::pair<std::string, std::string>> globalValues(const GlobalSettings &globals);

/// \a value as one token: bare when it can be, else double-quoted with
/// inner quotes doubled.
std::string quote(const std::string &value);

} // namespace mpath::config
