#pragma once

#include <string>
#include <vector>

namespace mpathctl {

/// `mpathctl plan [--config FILE] [--json]`: the maps, groups and exact
/// tables the present devices would get, without touching device-mapper.
/// Hidden option `--sysfs-root DIR` reads a captured or generated tree
/// (udev properties from DIR/../udev) and does no device I/O.
class PlanCommand {
public:
    static int run(const std::vector<std::string> &args);
    static const char *usage();
};

} // namespace mpathctl
