// mpathctl: the multipath command line.

#include "arguments.h"
#include "config_command.h"
#include "debug_command.h"
#include "plan_command.h"

#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

const char *usage = "usage: mpathctl [--help] [--version] COMMAND [ARGS]\n"
                    "\n"
                    "Commands that work without the daemon:\n"
                    "  plan [--config FILE] [--json]  maps, groups and tables the devices\n"
                    "                                 present would get (touches nothing)\n"
                    "  config check [FILE]            validate a configuration\n"
                    "  config show [--config FILE] [--device VENDOR PRODUCT [REV]]\n"
                    "              [--wwid WWID] [--json]\n"
                    "                                 the configuration as it applies, or\n"
                    "                                 one device's settings and their origin\n"
                    "\n"
                    "Exit status: 0 success, 1 failure, 2 usage error.\n";

} // namespace

int main(int argc, char **argv) {
    using namespace mpathctl;
    std::vector<std::string> words(argv + 1, argv + argc);
    if (words.empty()) {
        std::cerr << usage;
        return ExitUsage;
    }
    const std::string cmd = words[0];
    std::vector<std::string> rest(words.begin() + 1, words.end());
    try {
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::cout << usage;
            return ExitOk;
        }
        if (cmd == "--version") {
            std::cout << "mpathctl " MPATHCTL_VERSION "\n";
            return ExitOk;
        }
        if (cmd == "plan")
            return PlanCommand::run(rest);
        if (cmd == "config")
            return ConfigCommand::run(rest);
        if (cmd == "debug")
            return DebugCommand::run(rest);
    } catch (const std::exception &e) {
        std::cerr << "mpathctl " << cmd << ": " << e.what() << "\n";
        return ExitFailure;
    }
    if (cmd.rfind("-", 0) == 0)
        std::cerr << "mpathctl: unknown option " << cmd << "\n" << usage;
    else
        std::cerr << "mpathctl: unknown command '" << cmd << "'\n" << usage;
    return ExitUsage;
}
