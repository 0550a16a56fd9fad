#include "config_command.h"

#include "arguments.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mpath/config/loader.h>
#include <mpath/config/parser.h>
#include <optional>
#include <sstream>

namespace mpathctl {

namespace {

namespace config = mpath::config;
using config::Diagnostic;

/// Reads FILE, or the files the daemon would read when there is none.
/// \return false when FILE cannot be read (said on stderr)
bool readConfig(const std::string &command, const std::optional<std::string> &file,
                config::ConfigResult &result) {
    if (!file) {
        result = config::Loader("/").load();
        return true;
    }
    std::ifstream in(*file);
    if (!in) {
        std::cerr << "mpathctl config " << command << ": " << *file
                  << ": cannot read: " << strerror(errno) << "\n";
        return false;
    }
    std::stringstream text;
    text << in.rdbuf();
    const bool own = file->size() >= 11 && file->compare(file->size() - 11, 11, "mpathd.conf") == 0;
    result = config::parseString(text.str(), *file, own);
    return true;
}

// Compiler style, so editors can jump to the line.
std::string describe(const Diagnostic &d) {
    std::string s = d.file;
    if (d.line)
        s += ":" + std::to_string(d.line);
    return s + ": " + std::string(config::toString(d.severity)) + ": " + d.message;
}

std::string plural(unsigned n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

int check(const std::vector<std::string> &words) {
    Arguments args(words, {}, {"--help"});
    if (!args.error().empty()) {
        std::cerr << "mpathctl config check: " << args.error() << "\n" << ConfigCommand::usage();
        return ExitUsage;
    }
    if (args.flag("--help")) {
        std::cout << ConfigCommand::usage();
        return ExitOk;
    }
    if (args.positional().size() > 1) {
        std::cerr << "mpathctl config check: one FILE at most, got '" << args.positional()[1]
                  << "' too\n"
                  << ConfigCommand::usage();
        return ExitUsage;
    }
    std::optional<std::string> file;
    if (!args.positional().empty())
        file = args.positional()[0];
    config::ConfigResult result;
    if (!readConfig("check", file, result))
        return ExitFailure;

    unsigned errors = 0, warnings = 0, notes = 0;
    for (const auto &d : result.diagnostics) {
        switch (d.severity) {
        case Diagnostic::Severity::Error:
            ++errors;
            break;
        case Diagnostic::Severity::Warning:
            ++warnings;
            break;
        case Diagnostic::Severity::Info:
            ++notes;
            break;
        }
        std::cout << describe(d) << "\n";
    }
    std::string files;
    for (const auto &f : result.config.files)
        files += (files.empty() ? "" : ", ") + f;
    std::cout << (files.empty() ? "no configuration file; built-in defaults" : files) << ": "
              << plural(errors, "error", "errors") << ", "
              << plural(warnings, "warning", "warnings")
              << (notes ? ", " + plural(notes, "note", "notes") : std::string()) << "\n";
    return errors ? ExitFailure : ExitOk;
}

} // namespace

const char *ConfigCommand::usage() {
    return "usage: mpathctl config check [FILE]\n"
           "  Validate FILE (or the files mpathd would read) and print file:line\n"
           "  diagnostics. Exit status 1 only for errors: what multipath-tools would\n"
           "  refuse too.\n";
}

int ConfigCommand::run(const std::vector<std::string> &words) {
    if (words.empty() || words[0] == "--help" || words[0] == "-h") {
        std::cout << usage();
        return words.empty() ? ExitUsage : ExitOk;
    }
    const std::vector<std::string> rest(words.begin() + 1, words.end());
    if (words[0] == "check")
        return check(rest);
    std::cerr << "mpathctl config: unknown subcommand '" << words[0] << "'\n" << usage();
    return ExitUsage;
}

} // namespace mpathctl
