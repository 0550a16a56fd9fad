#include "config_command.h"

#include "exit_code.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mpath/config/loader.h>
#include <mpath/config/parser.h>
#include <mpath/config/resolve.h>
#include <mpath/config/writer.h>
#include <mpath/policy/blacklist.h>
#include <nlohmann/json.hpp>
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

/// Counts and prints the diagnostics of \p result. \return the exit code
int checkResult(const config::ConfigResult &result) {
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

// ---------------------------------------------------------------------------
// config show
// ---------------------------------------------------------------------------

/// Where a value came from: file:line, or the layer's name when no line
/// applies ("built-in", "built-in device table").
std::string source(const config::EffectiveEntry &e) {
    if (!e.where.empty())
        return e.where.toString();
    return std::string(config::toString(e.origin));
}

nlohmann::json sourceJson(const config::EffectiveEntry &e) {
    nlohmann::json j{{"keyword", e.keyword},
                     {"value", e.value},
                     {"origin", std::string(config::toString(e.origin))}};
    if (!e.where.empty()) {
        j["file"] = e.where.file;
        j["line"] = e.where.line;
    }
    return j;
}

nlohmann::json settingsJson(const config::Settings &s) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto &[keyword, value] : config::settingValues(s))
        j[keyword] = value;
    return j;
}

nlohmann::json blacklistJson(const config::Blacklist &b) {
    auto patterns = [](const std::vector<config::BlacklistPattern> &list) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto &p : list)
            j.push_back(p.regex.pattern());
        return j;
    };
    nlohmann::json devices = nlohmann::json::array();
    for (const auto &d : b.devices)
        devices.push_back({{"vendor", d.vendor.pattern()}, {"product", d.product.pattern()}});
    return {{"devnode", patterns(b.devnodes)},
            {"wwid", patterns(b.wwids)},
            {"property", patterns(b.properties)},
            {"protocol", patterns(b.protocols)},
            {"device", devices}};
}

nlohmann::json configJson(const config::Config &c) {
    nlohmann::json defaults = nlohmann::json::object();
    for (const auto &[keyword, value] : config::globalValues(c.globals))
        defaults[keyword] = value;
    for (const auto &[keyword, value] : config::settingValues(c.defaults))
        defaults[keyword] = value;
    nlohmann::json devices = nlohmann::json::array();
    for (const auto &d : c.devices) {
        nlohmann::json e{{"vendor", d.vendor.pattern()},
                         {"product", d.product.pattern()},
                         {"settings", settingsJson(d.settings)}};
        if (!d.revision.empty())
            e["revision"] = d.revision.pattern();
        if (!d.productBlacklist.empty())
            e["product_blacklist"] = d.productBlacklist.pattern();
        if (!d.where.empty()) {
            e["file"] = d.where.file;
            e["line"] = d.where.line;
        }
        devices.push_back(std::move(e));
    }
    nlohmann::json multipaths = nlohmann::json::array();
    for (const auto &m : c.multipaths) {
        nlohmann::json e{{"wwid", m.wwid}, {"settings", settingsJson(m.settings)}};
        if (!m.alias.empty())
            e["alias"] = m.alias;
        e["file"] = m.where.file;
        e["line"] = m.where.line;
        multipaths.push_back(std::move(e));
    }
    return {{"version", 1},
            {"files", c.files},
            {"defaults", defaults},
            {"blacklist", blacklistJson(c.blacklist)},
            {"blacklist_exceptions", blacklistJson(c.blacklistExceptions)},
            {"devices", devices},
            {"multipaths", multipaths},
            {"overrides", settingsJson(c.overrides)}};
}

} // namespace

int ConfigCommand::show() const {
    struct {
        std::optional<std::string> file, vendor, product, revision, wwid;
        bool json;
    } o{};
    if (show_->count("--config"))
        o.file = showFile_;
    if (!device_.empty()) {
        o.vendor = device_[0];
        o.product = device_.at(1);
        if (device_.size() > 2)
            o.revision = device_[2];
    }
    if (show_->count("--wwid"))
        o.wwid = wwid_;
    o.json = json_;
    config::ConfigResult result;
    if (!readConfig("show", o.file, result))
        return ExitFailure;
    for (const auto &d : result.diagnostics)
        if (d.severity != Diagnostic::Severity::Info)
            std::cerr << describe(d) << "\n";
    if (result.hasErrors()) {
        std::cerr << "mpathctl config show: the configuration has errors; see "
                     "'mpathctl config check'\n";
        return ExitFailure;
    }

    if (!o.vendor && !o.wwid) {
        const config::Config merged = mpath::policy::BlacklistFilter::shownConfig(result.config);
        if (o.json)
            std::cout << configJson(merged).dump(2) << "\n";
        else
            std::cout << config::write(merged);
        return ExitOk;
    }

    const std::string vendor = o.vendor.value_or(""), product = o.product.value_or(""),
                      revision = o.revision.value_or(""), wwid = o.wwid.value_or("");
    const config::DeviceIdentity device{vendor, product, revision, wwid};
    const std::vector<config::EffectiveEntry> entries =
        config::resolve(result.config, device).entries();
    if (o.json) {
        nlohmann::json settings = nlohmann::json::array();
        for (const auto &e : entries)
            settings.push_back(sourceJson(e));
        nlohmann::json j{{"version", 1}, {"files", result.config.files}, {"settings", settings}};
        j["device"] = o.vendor ? nlohmann::json{{"vendor", *o.vendor},
                                                {"product", *o.product},
                                                {"revision", o.revision.value_or("")}}
                               : nlohmann::json();
        j["wwid"] = o.wwid ? nlohmann::json(*o.wwid) : nlohmann::json();
        std::cout << j.dump(2) << "\n";
        return ExitOk;
    }
    for (const auto &e : entries) {
        std::string value = config::quote(e.value);
        std::printf("%-35s %-24s %s\n", e.keyword.c_str(), value.c_str(), source(e).c_str());
    }
    return ExitOk;
}

ConfigCommand::ConfigCommand(CLI::App &app)
    : command_(app.add_subcommand("config", "check or show a configuration (works without the "
                                            "daemon)")) {
    command_->require_subcommand(1);
    check_ = command_->add_subcommand(
        "check", "validate FILE (or the files mpathd would read) and print file:line "
                 "diagnostics; exit status 1 only for errors, what multipath-tools would refuse "
                 "too");
    check_->add_option("FILE", checkFile_, "the file to check")->type_name("FILE");
    show_ = command_->add_subcommand(
        "show", "without --device/--wwid, the whole configuration as it applies, in "
                "multipath.conf syntax; with them, each setting for that device and WWID and "
                "where it came from (file:line, built-in, or built-in device table)");
    show_->add_option("--config", showFile_, "read FILE instead of the files mpathd would read")
        ->type_name("FILE");
    show_->add_option("--device", device_, "the settings a device with this inquiry data gets")
        ->type_name("VENDOR PRODUCT [REV]")
        ->expected(2, 3)
        ->allow_extra_args(false);
    show_->add_option("--wwid", wwid_, "the settings a map with this WWID gets")->type_name("WWID");
    show_->add_flag("--json", json_,
                    "print a JSON object with \"version\": 1 (see docs/configuration.md)");
}

bool ConfigCommand::given() const {
    return command_->parsed();
}

int ConfigCommand::run() const {
    return check_->parsed() ? check() : show();
}

int ConfigCommand::check() const {
    std::optional<std::string> file;
    if (check_->count("FILE"))
        file = checkFile_;
    config::ConfigResult result;
    if (!readConfig("check", file, result))
        return ExitFailure;
    return checkResult(result);
}

} // namespace mpathctl
