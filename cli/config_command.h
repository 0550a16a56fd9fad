#pragma once

#include <string>
#include <vector>

namespace mpathctl {

/// `mpathctl config check [FILE]`: reads a configuration (FILE, or the
/// files the daemon would read) and prints its diagnostics as
/// file:line: severity: message. Exit 1 when there are errors.
class ConfigCommand {
public:
    static int run(const std::vector<std::string> &args);
    static const char *usage();
};

} // namespace mpathctl
