#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

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
    /// Adds the hidden `debug` subcommand to \p app, which must outlive this.
    explicit DebugCommand(CLI::App &app);

    /// Whether the command line named `debug`.
    bool given() const;
    /// \return the exit code
    int run() const;

private:
    CLI::App *command_;
    CLI::App *dm_;
    CLI::App *check_;
    CLI::App *udev_;
    std::vector<std::string> dmWords_;
    std::vector<std::string> checkWords_;
    std::vector<std::string> udevWords_;
    std::string timeout_;
    bool deferred_{false};
};

} // namespace mpathctl
