#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace mpathctl {

class BusClient;

/// The commands that ask mpathd over D-Bus: show, set, fail, reinstate,
/// switch-group, reconfigure, flush, reload, suspend, resume, add,
/// remove and watch, and the options that say how to reach it (--bus,
/// --socket) and how to print (--color).
class DaemonCommands {
public:
    /// Adds the commands and the global options to \p app, which must
    /// outlive this.
    explicit DaemonCommands(CLI::App &app);

    /// Runs the command the command line named.
    /// \return the exit code
    int run() const;

private:
    /// The subcommands that take a map's or path's name.
    struct Target {
        CLI::App *command{nullptr};
        std::string name;
    };

    int dispatch(BusClient &client) const;
    int show(BusClient &client) const;
    int set(BusClient &client) const;
    int reconfigure(BusClient &client) const;
    int watch(BusClient &client) const;
    bool colour() const;

    CLI::App *app_;
    std::string bus_{"auto"};
    std::string socket_;
    std::string color_{"auto"};
    bool json_{false};
    bool persist_{false};

    CLI::App *show_;
    CLI::App *showTopology_;
    CLI::App *showMaps_;
    CLI::App *showPaths_;
    CLI::App *showConfig_;
    Target showMap_;
    Target showPath_;

    Target setMap_;
    std::string setting_;
    std::vector<std::string> values_;

    Target failPath_;
    Target reinstatePath_;
    Target addPath_;
    Target removePath_;
    Target switchGroup_;
    std::string group_;
    Target flush_;
    Target reload_;
    Target suspend_;
    Target resume_;
    CLI::App *reconfigure_;
    CLI::App *watch_;
};

} // namespace mpathctl
