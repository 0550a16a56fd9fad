#pragma once

#include <string>
#include <vector>

namespace mpathctl {

/// `mpathctl debug ...`: hidden commands that drive one library part
/// directly, for the VM lab and for debugging:
///   debug dm list | info NAME | table NAME | status NAME
///   debug dm create NAME UUID 'START LEN TARGET PARAMS'
///   debug dm reload NAME 'START LEN TARGET PARAMS'
///   debug dm message NAME SECTOR TEXT...
///   debug dm remove NAME [--deferred] | rename NAME NEWNAME
///   debug check CHECKER DEVNODE [--timeout MS]
///   debug udev list SUBSYSTEM | properties NAME
///   debug udev monitor SECONDS [SUBSYSTEM...]
class DebugCommand {
public:
    static int run(const std::vector<std::string> &args);
};

} // namespace mpathctl
