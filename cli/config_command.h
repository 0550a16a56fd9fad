#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

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
    /// Adds the `config` subcommand to \p app, which must outlive this.
    explicit ConfigCommand(CLI::App &app);

    /// Whether the command line named `config`.
    bool given() const;
    /// \return the exit code
    int run() const;

private:
    int check() const;
    int show() const;

    CLI::App *command_;
    CLI::App *check_;
    CLI::App *show_;
    std::string checkFile_;
    std::string showFile_;
    std::vector<std::string> device_;
    std::string wwid_;
    bool json_{false};
};

} // namespace mpathctl
