#include "topology_printer.h"

#include <cctype>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace mpathctl {

namespace {

std::string joined(const std::vector<std::string> &words) {
    std::string out;
    for (const auto &w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

/// "1 queue_if_no_path", "0": the count the kernel's table starts with.
std::string counted(const std::vector<std::string> &words) {
    return std::to_string(words.size()) + (words.empty() ? "" : " " + joined(words));
}

/// "1 alua" from "alua" or "1 alua"; "0" for none.
std::string hwHandler(const std::string &h) {
    std::istringstream in(h);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
        words.push_back(w);
    if (words.empty())
        return "0";
    if (std::isdigit(static_cast<unsigned char>(words[0][0])))
        return joined(words);
    return counted(words);
}

/// "dm-3" from "/dev/dm-3".
std::string sysfsName(const std::string &blockDevice) {
    auto slash = blockDevice.rfind('/');
    return slash == std::string::npos ? blockDevice : blockDevice.substr(slash + 1);
}

std::string orDash(const std::string &s) {
    return s.empty() ? "-" : s;
}

} // namespace

std::string TopologyPrinter::humanSize(uint64_t bytes) {
    // multipath-tools' snprint_size: from KiB, one decimal below 10.
    const char *units = "KMGTPE";
    double v = static_cast<double>(bytes) / 1024;
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.*f%c", v < 10 ? 1 : 0, v, units[u]);
    return buf;
}

std::string TopologyPrinter::state(const std::string &word) const {
    if (!colour_)
        return word;
    const char *code = nullptr;
    if (word == "active" || word == "up" || word == "ready")
        code = "32"; // green
    else if (word == "failed" || word == "down" || word == "failing" || word == "timeout" ||
             word == "admin-failed")
        code = "31"; // red
    else if (word == "ghost" || word == "pending" || word == "queueing" || word == "unchecked")
        code = "33"; // yellow
    if (!code)
        return word;
    return std::string("\033[") + code + "m" + word + "\033[0m";
}

void TopologyPrinter::tree(const Objects &objects, const MapInfo &m, std::ostream &out) const {
    const PathInfo *first = nullptr;
    for (const auto &g : m.groups)
        if (!first && !g.paths.empty())
            first = objects.path(g.paths.front());
    if (!first && !m.paths.empty())
        first = objects.path(m.paths.front());

    out << (colour_ ? "\033[1m" + m.name + "\033[0m" : m.name);
    if (m.name != m.wwid)
        out << " (" << m.wwid << ")";
    out << " " << (m.blockDevice.empty() ? state("pending") : sysfsName(m.blockDevice));
    if (first && !first->vendor.empty())
        out << " " << first->vendor << "," << first->product;
    out << "\n";
    out << "size=" << humanSize(m.sizeBytes) << " features='" << counted(m.features)
        << "' hwhandler='" << hwHandler(m.hardwareHandler) << "' target=" << orDash(m.target);
    if (m.state != "ready")
        out << " state=" << state(m.state);
    out << "\n";
    for (size_t g = 0; g < m.groups.size(); ++g) {
        const GroupInfo &grp = m.groups[g];
        const bool lastGroup = g + 1 == m.groups.size();
        out << (lastGroup ? "`-+- " : "|-+- ") << "policy='" << grp.selector
            << "' prio=" << grp.priority << " status=" << state(grp.state) << "\n";
        for (size_t p = 0; p < grp.paths.size(); ++p) {
            const PathInfo *path = objects.path(grp.paths[p]);
            out << (lastGroup ? "  " : "| ") << (p + 1 == grp.paths.size() ? "`- " : "|- ")
                << grp.paths[p];
            if (path) {
                out << " " << orDash(path->devt) << " " << state(orDash(path->dmState)) << " "
                    << state(orDash(path->checkerState));
                if (path->adminFailed)
                    out << " " << state("admin-failed");
                if (path->shaky)
                    out << " " << state("shaky");
            }
            out << "\n";
        }
    }
}

void TopologyPrinter::topology(const Objects &objects, std::ostream &out) const {
    for (const MapInfo &m : objects.maps)
        tree(objects, m, out);
}

void TopologyPrinter::map(const Objects &objects, const MapInfo &m, std::ostream &out) const {
    tree(objects, m, out);
    out << "uuid=" << m.uuid << " devt=" << orDash(m.devt) << " state=" << state(m.state)
        << " usable_paths=" << m.usablePaths << " active_group=" << m.activeGroup << "\n";
    out << "queue_if_no_path=" << (m.queueIfNoPath ? "yes" : "no")
        << " no_path_retry=" << orDash(m.noPathRetry) << " pg_init_retries=" << m.pgInitRetries
        << " pg_init_delay_msecs=" << m.pgInitDelayMsecs << " selector='" << m.selector << "'\n";
    for (const auto &[keyword, kind] : m.overrides)
        out << "override: " << keyword << " (" << kind << ")\n";
}

void TopologyPrinter::maps(const Objects &objects, std::ostream &out) const {
    char line[512];
    std::snprintf(line, sizeof(line), "%-16s %-8s %-34s %-9s %-6s %s\n", "NAME", "SYSFS", "WWID",
                  "STATE", "PATHS", "SIZE");
    out << line;
    for (const MapInfo &m : objects.maps) {
        const std::string paths =
            std::to_string(m.usablePaths) + "/" + std::to_string(m.paths.size());
        // Padded before colouring: escapes have no width.
        char stateCell[16];
        std::snprintf(stateCell, sizeof(stateCell), "%-9s", orDash(m.state).c_str());
        std::string cell = stateCell;
        const std::string word = orDash(m.state);
        cell = state(word) + cell.substr(word.size());
        std::snprintf(line, sizeof(line), "%-16s %-8s %-34s ", m.name.c_str(),
                      orDash(sysfsName(m.blockDevice)).c_str(), m.wwid.c_str());
        out << line << cell;
        std::snprintf(line, sizeof(line), " %-6s %s\n", paths.c_str(),
                      humanSize(m.sizeBytes).c_str());
        out << line;
    }
}

void TopologyPrinter::paths(const Objects &objects, std::ostream &out) const {
    char line[512];
    std::snprintf(line, sizeof(line), "%-10s %-8s %-16s %-5s %-8s %-9s %-5s %s\n", "DEV", "DEVT",
                  "MAP", "GROUP", "DM", "CHECKER", "PRIO", "FAILS");
    out << line;
    auto cell = [&](const std::string &word, int width) {
        std::string s = orDash(word);
        std::string pad(s.size() < static_cast<size_t>(width) ? width - s.size() : 0, ' ');
        return state(s) + pad;
    };
    for (const PathInfo &p : objects.paths) {
        std::snprintf(line, sizeof(line), "%-10s %-8s %-16s %-5s ", p.name.c_str(),
                      orDash(p.devt).c_str(), orDash(p.mapName).c_str(),
                      p.groupNumber ? std::to_string(p.groupNumber).c_str() : "-");
        out << line
            << cell(p.adminFailed ? "admin-failed"
                    : p.shaky     ? "shaky"
                                  : p.dmState,
                    8)
            << " " << cell(p.checkerState, 9) << " ";
        std::snprintf(line, sizeof(line), "%-5d %u\n", p.priority, p.failCount);
        out << line;
    }
}

void TopologyPrinter::path(const PathInfo &p, std::ostream &out) const {
    auto row = [&](const std::string &key, const std::string &value) {
        // A key as long as the column ("target_port_group") still gets a space.
        out << std::left << std::setw(14) << key << " " << value << "\n";
    };
    row("name", p.name);
    row("device", p.device);
    row("devt", p.devt);
    row("wwid", p.wwid);
    row("vendor", p.vendor);
    row("product", p.product);
    row("transport", p.transport);
    for (const auto &[key, value] : p.transportIds)
        row(key.c_str(), value);
    row("map", orDash(p.mapName));
    row("group", p.groupNumber ? std::to_string(p.groupNumber) : "-");
    row("dm_state", state(orDash(p.dmState)));
    row("checker_state", state(orDash(p.checkerState)));
    row("admin_failed", p.adminFailed ? state("admin-failed") : "no");
    row("shaky", p.shaky ? state("shaky") : "no");
    row("priority", std::to_string(p.priority));
    row("fail_count", std::to_string(p.failCount));
}

void TopologyPrinter::manager(const ManagerInfo &m, std::ostream &out) const {
    auto row = [&](const std::string &key, const std::string &value) {
        // A key as long as the column ("target_port_group") still gets a space.
        out << std::left << std::setw(14) << key << " " << value << "\n";
    };
    row("version", m.version);
    row("target", m.target);
    row("ready", m.ready ? "yes" : "no");
    row("reconfiguring", m.reconfiguring ? "yes" : "no");
    row("pending_maps", std::to_string(m.pendingMaps));
    if (m.configFiles.empty())
        row("config_files", "(none: built-in defaults)");
    for (const auto &f : m.configFiles)
        row("config_file", f);
}

nlohmann::json TopologyPrinter::mapObject(const MapInfo &m) {
    nlohmann::json groups = nlohmann::json::array();
    for (const GroupInfo &g : m.groups)
        groups.push_back({{"number", g.number},
                          {"state", g.state},
                          {"priority", g.priority},
                          {"selector", g.selector},
                          {"paths", g.paths}});
    return {{"name", m.name},
            {"wwid", m.wwid},
            {"uuid", m.uuid},
            {"target", m.target},
            {"sizeBytes", m.sizeBytes},
            {"features", m.features},
            {"hardwareHandler", m.hardwareHandler},
            {"queueIfNoPath", m.queueIfNoPath},
            {"noPathRetry", m.noPathRetry},
            {"pgInitRetries", m.pgInitRetries},
            {"pgInitDelayMsecs", m.pgInitDelayMsecs},
            {"selector", m.selector},
            {"activeGroup", m.activeGroup},
            {"blockDevice", m.blockDevice},
            {"devt", m.devt},
            {"state", m.state},
            {"usablePaths", m.usablePaths},
            {"groups", groups},
            {"paths", m.paths},
            {"overrides", m.overrides}};
}

nlohmann::json TopologyPrinter::pathObject(const PathInfo &p) {
    return {{"name", p.name},
            {"device", p.device},
            {"devt", p.devt},
            {"wwid", p.wwid},
            {"vendor", p.vendor},
            {"product", p.product},
            {"transport", p.transport},
            {"transportIds", p.transportIds},
            {"checkerState", p.checkerState},
            {"dmState", p.dmState},
            {"adminFailed", p.adminFailed},
            {"shaky", p.shaky},
            {"priority", p.priority},
            {"failCount", p.failCount},
            {"map", p.mapName.empty() ? nlohmann::json() : nlohmann::json(p.mapName)},
            {"group", p.groupNumber ? nlohmann::json(p.groupNumber) : nlohmann::json()}};
}

nlohmann::json TopologyPrinter::topologyJson(const Objects &objects) {
    nlohmann::json j = mapsJson(objects);
    j["paths"] = pathsJson(objects)["paths"];
    return j;
}

nlohmann::json TopologyPrinter::mapsJson(const Objects &objects) {
    nlohmann::json maps = nlohmann::json::array();
    for (const MapInfo &m : objects.maps)
        maps.push_back(mapObject(m));
    return {{"version", jsonVersion}, {"maps", maps}};
}

nlohmann::json TopologyPrinter::pathsJson(const Objects &objects) {
    nlohmann::json paths = nlohmann::json::array();
    for (const PathInfo &p : objects.paths)
        paths.push_back(pathObject(p));
    return {{"version", jsonVersion}, {"paths", paths}};
}

nlohmann::json TopologyPrinter::mapJson(const Objects &objects, const MapInfo &m) {
    nlohmann::json paths = nlohmann::json::array();
    for (const auto &name : m.paths)
        if (const PathInfo *p = objects.path(name))
            paths.push_back(pathObject(*p));
    return {{"version", jsonVersion}, {"map", mapObject(m)}, {"paths", paths}};
}

nlohmann::json TopologyPrinter::pathJson(const PathInfo &p) {
    return {{"version", jsonVersion}, {"path", pathObject(p)}};
}

nlohmann::json TopologyPrinter::managerJson(const ManagerInfo &m) {
    return {{"version", jsonVersion},
            {"manager",
             {{"version", m.version},
              {"target", m.target},
              {"ready", m.ready},
              {"reconfiguring", m.reconfiguring},
              {"pendingMaps", m.pendingMaps},
              {"configFiles", m.configFiles}}}};
}

} // namespace mpathctl
