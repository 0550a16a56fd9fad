#include "plan_command.h"

#include "config_file.h"
#include "exit_code.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mpath/config/loader.h>
#include <mpath/config/parser.h>
#include <mpath/policy/gatherer.h>
#include <mpath/policy/planner.h>
#include <mpath/state/bindings.h>
#include <mpath/state/bindings_file.h>
#include <mpath/state/wwids_file.h>
#include <nlohmann/json.hpp>
#include <sstream>

namespace mpathctl {

namespace {

std::string joined(const std::vector<std::string> &words) {
    std::string out;
    for (const auto &w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

/// "64M", "1.5G": sizes as multipath -ll prints them.
std::string humanSize(uint64_t sectors) {
    const char *units = "KMGTPE";
    double v = static_cast<double>(sectors) / 2; // KiB
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    std::ostringstream s;
    s.precision(v < 10 && v != static_cast<uint64_t>(v) ? 2 : 4);
    s << v << units[u];
    return s.str();
}

std::string countedWords(const std::vector<std::string> &words) {
    return std::to_string(words.size()) + (words.empty() ? "" : " " + joined(words));
}

nlohmann::json toJson(const mpath::policy::Plan &plan) {
    using nlohmann::json;
    json maps = json::array();
    for (const auto &pm : plan.maps) {
        const mpath::model::Map &m = pm.map;
        json groups = json::array();
        for (const auto &g : m.groups) {
            json paths = json::array();
            for (const auto &p : g.paths)
                paths.push_back({{"name", p.kernelName},
                                 {"devt", p.devtString()},
                                 {"wwid", p.wwid},
                                 {"vendor", p.vendor},
                                 {"product", p.product},
                                 {"transport", mpath::model::toString(p.transport)},
                                 {"priority", p.priority},
                                 {"sizeSectors", p.sizeSectors}});
            groups.push_back({{"selector", g.selector},
                              {"selectorArgs", g.selectorArgs},
                              {"pathArgs", g.pathArgs},
                              {"priority", g.priority},
                              {"paths", paths}});
        }
        maps.push_back({{"name", m.alias},
                        {"newBinding", !pm.name.newAlias.empty()},
                        {"wwid", m.wwid},
                        {"dmUuid", m.dmUuid()},
                        {"target", m.target},
                        {"sizeSectors", m.sizeSectors},
                        {"features", m.features},
                        {"hwHandler", m.hwHandler},
                        {"hwHandlerArgs", m.hwHandlerArgs},
                        {"initialGroup", m.initialGroup},
                        {"pathChecker", pm.pathChecker},
                        {"prio", pm.prio},
                        {"pathGroupingPolicy", mpath::config::toString(pm.grouping)},
                        {"groups", groups},
                        {"notes", pm.notes},
                        {"table", pm.table}});
    }
    json skipped = json::array();
    for (const auto &s : plan.skipped)
        skipped.push_back({{"name", s.kernelName}, {"wwid", s.wwid}, {"reason", s.reason}});
    json issues = json::array();
    for (const auto &i : plan.issues)
        issues.push_back(
            {{"name", i.kernelName}, {"error", i.error.code}, {"what", i.error.message}});
    return {{"maps", maps}, {"skipped", skipped}, {"issues", issues}};
}

void printHuman(const mpath::policy::Plan &plan, std::ostream &out) {
    for (const auto &pm : plan.maps) {
        const mpath::model::Map &m = pm.map;
        out << m.alias;
        if (m.alias != m.wwid)
            out << " (" << m.wwid << ")";
        if (!pm.name.newAlias.empty())
            out << " [new binding]";
        const mpath::model::Path *first =
            m.groups.empty() || m.groups[0].paths.empty() ? nullptr : &m.groups[0].paths[0];
        if (first && !first->vendor.empty())
            out << " " << first->vendor << "," << first->product;
        out << "\n";
        out << "size=" << humanSize(m.sizeSectors) << " target=" << m.target << " features='"
            << countedWords(m.features) << "' hwhandler='"
            << (m.hwHandler.empty()
                    ? std::string("0")
                    : std::to_string(m.hwHandlerArgs.size() + 1) + " " + joined([&] {
                          std::vector<std::string> h{m.hwHandler};
                          h.insert(h.end(), m.hwHandlerArgs.begin(), m.hwHandlerArgs.end());
                          return h;
                      }()))
            << "' checker=" << pm.pathChecker << " prio=" << pm.prio
            << " policy=" << mpath::config::toString(pm.grouping) << "\n";
        for (size_t g = 0; g < m.groups.size(); ++g) {
            const bool lastGroup = g + 1 == m.groups.size();
            const auto &grp = m.groups[g];
            out << (lastGroup ? "`-+- " : "|-+- ") << "policy='" << grp.selector << " "
                << countedWords(grp.selectorArgs) << "' prio=" << grp.priority << "\n";
            for (size_t p = 0; p < grp.paths.size(); ++p) {
                const auto &path = grp.paths[p];
                out << (lastGroup ? "  " : "| ") << (p + 1 == grp.paths.size() ? "`- " : "|- ")
                    << path.kernelName << " " << path.devtString() << " prio=" << path.priority
                    << "\n";
            }
        }
        for (const auto &n : pm.notes)
            out << "note: " << n << "\n";
        out << "table: " << pm.table << "\n\n";
    }
    if (plan.maps.empty())
        out << "no maps\n";
    if (!plan.skipped.empty()) {
        out << "not multipathed:\n";
        for (const auto &s : plan.skipped)
            out << "  " << s.kernelName << (s.wwid.empty() ? "" : " (" + s.wwid + ")") << ": "
                << s.reason << "\n";
    }
    for (const auto &i : plan.issues)
        out << "cannot describe " << (i.kernelName.empty() ? "devices" : i.kernelName) << ": "
            << i.error.message << "\n";
}

} // namespace

PlanCommand::PlanCommand(CLI::App &app)
    : command_(app.add_subcommand("plan", "the maps, path groups and exact device-mapper tables "
                                          "the devices present would get (touches nothing)")) {
    command_->add_option("--config", config_, "read FILE instead of the files mpathd would read")
        ->type_name("FILE");
    command_->add_flag("--json", json_, "print JSON instead of a human listing");
    // A captured or generated tree instead of /sys, for tests and the lab.
    command_->add_option("--sysfs-root", sysfsRoot_)->type_name("DIR")->group("");
}

bool PlanCommand::given() const {
    return command_->parsed();
}

int PlanCommand::run() const {
    mpath::config::ConfigResult cfg;
    const std::optional<std::string> config =
        command_->count("--config") ? std::optional(config_) : std::nullopt;
    if (loadConfig(config, cfg) < 0)
        return ExitFailure;
    for (const auto &d : cfg.diagnostics)
        std::cerr << d.file << (d.line ? ":" + std::to_string(d.line) : std::string()) << ": "
                  << mpath::config::toString(d.severity) << ": " << d.message << "\n";

    const std::optional<std::string> sysfsRoot =
        command_->count("--sysfs-root") ? std::optional(sysfsRoot_) : std::nullopt;
    mpath::discovery::Sysfs sysfs(sysfsRoot.value_or("/sys"));
    mpath::policy::Gatherer::Options gatherOptions;
    auto udev = openUdevProperties(sysfsRoot, "mpathctl plan");
    if (!udev)
        return ExitFailure;
    // A tree, not this machine: send no I/O to devices of the same name
    // here.
    if (sysfsRoot)
        gatherOptions.prio = mpath::prio::Context::noDevices();

    mpath::policy::PlanInput input =
        mpath::policy::gatherNow(cfg.config, sysfs, *udev, std::move(gatherOptions));
    const mpath::config::EffectiveGlobals globals = cfg.config.effectiveGlobals();
    std::vector<mpath::config::Diagnostic> fileDiags;
    auto report = [](const mpath::Error &e) {
        std::cerr << "mpathctl plan: warning: " << e.message << "\n";
    };
    if (auto wwids = mpath::state::WwidsFile(globals.wwidsFile.value).load(&fileDiags))
        input.knownWwids = {wwids->begin(), wwids->end()};
    else
        report(wwids.error());
    if (auto bindings = mpath::state::BindingsFile(globals.bindingsFile.value).load(&fileDiags))
        input.bindings = std::move(*bindings);
    else
        report(bindings.error());
    for (const auto &d : fileDiags)
        std::cerr << d.file << (d.line ? ":" + std::to_string(d.line) : std::string())
                  << ": warning: " << d.message << "\n";

    mpath::policy::Plan plan = mpath::policy::plan(cfg.config, input);
    if (json_)
        std::cout << toJson(plan).dump(2) << "\n";
    else
        printHuman(plan, std::cout);
    return ExitOk;
}

} // namespace mpathctl
