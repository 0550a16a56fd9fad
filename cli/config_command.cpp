#include "config_command.h"

#include "arguments.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mpath/config/loader.h>
#include <mpath/config/parser.h>
#include <sstream>

namespace mpathctl {

const char *ConfigCommand::usage() {
    return "usage: mpathctl config check [FILE]\n"
           "  Validate FILE (or the files mpathd would read) and print file:line\n"
           "  diagnostics. Exit status 1 when there are errors.\n";
}

int ConfigCommand::run(const std::vector<std::string> &words) {
    if (words.empty() || words[0] == "--help" || words[0] == "-h") {
        std::cout << usage();
        return words.empty() ? ExitUsage : ExitOk;
    }
    if (words[0] != "check") {
        std::cerr << "mpathctl config: unknown subcommand '" << words[0] << "'\n" << usage();
        return ExitUsage;
    }
    Arguments args({words.begin() + 1, words.end()}, {}, {"--help"});
    if (!args.error().empty()) {
        std::cerr << "mpathctl config check: " << args.error() << "\n" << usage();
        return ExitUsage;
    }
    if (args.flag("--help")) {
        std::cout << usage();
        return ExitOk;
    }
    if (args.positional().size() > 1) {
        std::cerr << "mpathctl config check: one FILE at most, got '" << args.positional()[1]
                  << "' too\n"
                  << usage();
        return ExitUsage;
    }

    mpath::config::ConfigResult result;
    if (args.positional().empty()) {
        result = mpath::config::Loader("/").load();
    } else {
        const std::string &file = args.positional()[0];
        std::ifstream in(file);
        if (!in) {
            std::cerr << file << ": cannot read: " << strerror(errno) << "\n";
            return ExitFailure;
        }
        std::stringstream text;
        text << in.rdbuf();
        const bool own =
            file.size() >= 11 && file.compare(file.size() - 11, 11, "mpathd.conf") == 0;
        result = mpath::config::parseString(text.str(), file, own);
    }

    unsigned errors = 0, warnings = 0;
    for (const auto &d : result.diagnostics) {
        const bool error = d.severity == mpath::config::Diagnostic::Severity::Error;
        (error ? errors : warnings)++;
        // Compiler style, so editors can jump to the line.
        std::cout << d.file;
        if (d.line)
            std::cout << ":" << d.line;
        std::cout << (error ? ": error: " : ": warning: ") << d.message << "\n";
    }
    std::string files;
    for (const auto &f : result.config.files)
        files += (files.empty() ? "" : ", ") + f;
    std::cout << (files.empty() ? "no configuration file; built-in defaults" : files) << ": "
              << errors << (errors == 1 ? " error, " : " errors, ") << warnings
              << (warnings == 1 ? " warning\n" : " warnings\n");
    return errors ? ExitFailure : ExitOk;
}

} // namespace mpathctl
