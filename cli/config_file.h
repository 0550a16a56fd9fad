#pragma once

#include <mpath/config/config_result.h>
#include <optional>
#include <string>

namespace mpathctl {

/// Reads \p file (mpathd.conf syntax when it is named so), or the files
/// mpathd would read when there is none.
/// \return 0, or -errno when \p file cannot be read (said on stderr)
int loadConfig(const std::optional<std::string> &file, mpath::config::ConfigResult &result);

} // namespace mpathctl
