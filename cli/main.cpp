// mpathctl: the multipath command line.

#include "config_command.h"
#include "daemon_commands.h"
#include "debug_command.h"
#include "exit_code.h"
#include "is_path_command.h"
#include "plan_command.h"

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace mpathctl;

const char *footer = "Exit status:\n"
                     "  0  success\n"
                     "  1  the operation failed (mpathd refused it, a file cannot be read)\n"
                     "  2  usage error\n"
                     "  3  mpathd is not running (neither the system bus nor its socket answers)\n"
                     "\n"
                     "Run 'mpathctl COMMAND --help' for a command's options; see mpathctl(8).";

/// The subcommands the command line named, outermost first, after \p app.
std::vector<const CLI::App *> parsedChain(const CLI::App &app) {
    std::vector<const CLI::App *> chain{&app};
    for (;;) {
        const auto subs = chain.back()->get_subcommands();
        if (subs.empty())
            return chain;
        chain.push_back(subs.front());
    }
}

/// "mpathctl config show": the command a usage error is about.
std::string commandName(const std::vector<const CLI::App *> &chain) {
    std::string name = "mpathctl";
    for (size_t i = 1; i < chain.size(); ++i)
        name += " " + chain[i]->get_name();
    return name;
}

/// A parse error as a sentence that names the bad word. CLI11's own
/// wording is kept where it already does ("--bus: x not in {...}").
std::string describe(const CLI::App &app, const CLI::ParseError &e) {
    const auto chain = parsedChain(app);
    // A word nothing took is the most precise thing to say, whatever the
    // error: "frobnicate" is why no command was found.
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const std::vector<std::string> left = (*it)->remaining(false);
        if (left.empty())
            continue;
        const std::string &w = left.front();
        if (w.size() > 1 && w[0] == '-')
            return "unknown option " + w.substr(0, w.find('='));
        if (chain.size() == 1)
            return "unknown command '" + w + "'";
        return "unexpected argument '" + w + "'";
    }
    const std::string what = e.what();
    if (dynamic_cast<const CLI::ArgumentMismatch *>(&e)) {
        const std::string name = what.substr(0, what.find(':'));
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            const CLI::Option *opt = (*it)->get_option_no_throw(name);
            if (!opt)
                continue;
            if (opt->get_items_expected_min() > 1)
                return "option " + name + " needs " + opt->get_type_name();
            return "option " + name + " needs a value (" + opt->get_type_name() + ")";
        }
    }
    if (dynamic_cast<const CLI::RequiredError *>(&e) &&
        what.find("subcommand") != std::string::npos) {
        std::string names;
        for (const CLI::App *sub : chain.back()->get_subcommands({})) {
            if (sub->get_group().empty())
                continue;
            names += (names.empty() ? "" : ", ") + sub->get_name();
        }
        return "a command is needed: " + names;
    }
    return what;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{"mpathctl: the multipath command line, offline and as mpathd's D-Bus client",
                 "mpathctl"};
    app.get_formatter()->label("Usage", "usage");
    app.get_formatter()->column_width(34);
    app.footer(footer);
    app.set_version_flag("--version", std::string("mpathctl ") + MPATHCTL_VERSION);
    app.require_subcommand(1);
    // Global options are also taken after the command words.
    app.fallthrough();

    // udev runs is-path for every disk that appears: it gets a command
    // line with nothing else to build.
    IsPathCommand isPath(app);
    IsReadyCommand isReady(app);
    std::optional<PlanCommand> plan;
    std::optional<ConfigCommand> config;
    std::optional<DaemonCommands> daemon;
    std::optional<DebugCommand> debug;
    if (!wantsIsPath(argc, argv)) {
        plan.emplace(app);
        config.emplace(app);
        daemon.emplace(app);
        debug.emplace(app);
    }

    if (argc < 2) {
        std::cerr << app.help();
        return ExitUsage;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        const auto chain = parsedChain(app);
        const std::string name = commandName(chain);
        std::cerr << name << ": " << describe(app, e) << "\n"
                  << "Try '" << name << " --help' for more information.\n";
        return ExitUsage;
    }

    try {
        if (isPath.given())
            return isPath.run();
        if (isReady.given())
            return isReady.run();
        if (plan->given())
            return plan->run();
        if (config->given())
            return config->run();
        if (debug->given())
            return debug->run();
        return daemon->run();
    } catch (const std::exception &e) {
        std::cerr << commandName(parsedChain(app)) << ": " << e.what() << "\n";
        return ExitFailure;
    }
}
