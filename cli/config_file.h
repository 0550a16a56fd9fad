#pragma once

#include <memory>
#include <mpath/config/config_result.h>
#include <mpath/discovery/udev_properties.h>
#include <optional>
#include <string>

namespace mpathctl {

/// Reads \p file (mpathd.conf syntax when it is named so), or the files
/// mpathd would read when there is none.
/// \return 0, or -errno when \p file cannot be read (said on stderr)
int loadConfig(const std::optional<std::string> &file, mpath::config::ConfigResult &result);

/// The udev properties a command reads: udev's database on this machine,
/// or, for a captured tree (\p sysfsRoot), the files in the udev/
/// directory beside it.
/// \return null when udev's database cannot be opened (said on stderr
/// after \p command, e.g. "mpathctl plan")
std::unique_ptr<mpath::discovery::UdevProperties>
openUdevProperties(const std::optional<std::string> &sysfsRoot, const char *command);

} // namespace mpathctl
