#pragma once

#include <string>
#include <vector>

namespace mpathctl {

/// `mpathctl config check [FILE]`: reads a configuration (FILE, or the
/// files the daemon would read) and prints its diagnostics as
/// file:line: severity: message. Exit 1 when there are errors.
///
/// `mpathctl config show [--config FILE] [--device VENDOR PRODUCT [REV]]
/// [--wwid WWID] [--json]`: the whole configuration as it applies, in
/// multipath.conf syntax, or the settings of one device/WWID with where
/// each came from. Exit 0 ok, 1 failure (unreadable file, errors in the
/// configuration), 2 usage.
class ConfigCommand {
public:
    static int run(const std::vector<std::string> &args);
    static const char *usage();
};

} // namespace mpathctl
