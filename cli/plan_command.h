#pragma once

#include <string>

namespace CLI {
class App;
}

namespace mpathctl {

/// `mpathctl plan [--config FILE] [--json]`: the maps, groups and exact
/// tables the present devices would get, without touching device-mapper.
/// Hidden option `--sysfs-root DIR` reads a captured or generated tree
/// (udev properties from DIR/../udev) and does no device I/O.
class PlanCommand {
public:
    /// Adds the `plan` subcommand to \p app, which must outlive this.
    explicit PlanCommand(CLI::App &app);

    /// Whether the command line named `plan`.
    bool given() const;
    /// \return the exit code
    int run() const;

private:
    CLI::App *command_;
    std::string config_;
    std::string sysfsRoot_;
    bool json_{false};
};

} // namespace mpathctl
