// mpath-udev: the two decisions udev's rules ask for on every event, in a
// program of their own. It runs mpathctl's is-path and is-ready commands
// (the same code, the same answers) but links neither sd-bus nor the rest
// of mpathctl, and carries its own copy of the C++ runtime: udev starts it
// for each disk and each map event, and what a process costs to start is
// most of what it costs (see docs/boot.md).

#include "exit_code.h"
#include "is_path_command.h"

#include <CLI/CLI.hpp>
#include <iostream>

int main(int argc, char **argv) {
    using namespace mpathctl;
    CLI::App app{"mpath-udev: whether a disk is a multipath path and whether a map is ready, "
                 "for udev's rules (mpathctl is-path and is-ready)",
                 "mpath-udev"};
    app.require_subcommand(1);
    IsPathCommand isPath(app);
    IsReadyCommand isReady(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        std::cerr << "mpath-udev: " << e.what() << "\n";
        return ExitUsage;
    }
    try {
        return isPath.given() ? isPath.run() : isReady.run();
    } catch (const std::exception &e) {
        std::cerr << "mpath-udev: " << e.what() << "\n";
        return ExitFailure;
    }
}
