#include "multipathd_commands.h"

#include "daemon.h"
#include "log.h"
#include "path_tracker.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <mpath/model/name_order.h>
#include <mpath/policy/grouping.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace mpathd {

namespace {

using mpath::model::CheckerState;
using mpath::model::DeviceState;
using mpath::model::DmPathState;
using mpath::model::GroupState;

/// One keyword of multipathd's grammar: its name, the name it stands for
/// (aliases), whether a parameter follows it.
struct Keyword {
    const char *name;
    const char *canonical;
    bool param;
};

constexpr Keyword kKeywords[] = {
    // verbs
    {"list", "show", false},
    {"show", "show", false},
    {"add", "add", false},
    {"remove", "del", false},
    {"del", "del", false},
    {"switch", "switch", false},
    {"switchgroup", "switch", false},
    {"suspend", "suspend", false},
    {"resume", "resume", false},
    {"reinstate", "reinstate", false},
    {"fail", "fail", false},
    {"resize", "resize", false},
    {"reset", "reset", false},
    {"reload", "reload", false},
    {"forcequeueing", "forcequeueing", false},
    {"disablequeueing", "disablequeueing", false},
    {"restorequeueing", "restorequeueing", false},
    {"reconfigure", "reconfigure", false},
    {"quit", "quit", false},
    {"exit", "quit", false},
    {"shutdown", "shutdown", false},
    {"getprstatus", "getprstatus", false},
    {"setprstatus", "setprstatus", false},
    {"unsetprstatus", "unsetprstatus", false},
    {"getprkey", "getprkey", false},
    {"setprkey", "setprkey", false},
    {"unsetprkey", "unsetprkey", false},
    {"setmarginal", "setmarginal", false},
    {"unsetmarginal", "unsetmarginal", false},
    // qualifiers
    {"paths", "paths", false},
    {"maps", "maps", false},
    {"multipaths", "maps", false},
    {"daemon", "daemon", false},
    {"status", "status", false},
    {"stats", "stats", false},
    {"topology", "topology", false},
    {"config", "config", false},
    {"blacklist", "blacklist", false},
    {"devices", "devices", false},
    {"raw", "raw", false},
    {"wildcards", "wildcards", false},
    {"json", "json", false},
    {"local", "local", false},
    {"all", "all", false},
    {"path", "path", true},
    {"map", "map", true},
    {"multipath", "map", true},
    {"group", "group", true},
    {"format", "format", true},
    {"key", "key", true},
};

/// The keyword \a word names, exactly or as an unambiguous prefix; null
/// when none or several.
const Keyword *findKeyword(const std::string &word) {
    const Keyword *prefixed = nullptr;
    int prefixes = 0;
    for (const Keyword &k : kKeywords) {
        const std::string_view name = k.name;
        if (name == word)
            return &k;
        if (name.starts_with(word)) {
            // Aliases of one keyword are one match ("multipath" and
            // "multipaths" are not).
            if (!prefixed || std::string_view(prefixed->canonical) != k.canonical ||
                prefixed->param != k.param)
                ++prefixes;
            prefixed = &k;
        }
    }
    return prefixes == 1 ? prefixed : nullptr;
}

/// Words as multipathd splits a command: on blanks, a quoted word whole.
std::vector<std::string> tokens(const std::string &command) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < command.size()) {
        while (i < command.size() && std::isspace(static_cast<unsigned char>(command[i])))
            ++i;
        if (i >= command.size())
            break;
        std::string word;
        if (command[i] == '"') {
            const size_t end = command.find('"', i + 1);
            word =
                command.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
            i = end == std::string::npos ? command.size() : end + 1;
        } else {
            while (i < command.size() && !std::isspace(static_cast<unsigned char>(command[i])))
                word += command[i++];
        }
        out.push_back(std::move(word));
    }
    return out;
}

/// The commands multipathd 0.9.4 knows, as keyword sequences; those
/// answered here are in kServed.
constexpr const char *kKnown[] = {
    "show paths format",
    "show paths raw format",
    "show maps status",
    "show maps stats",
    "show maps format",
    "show maps raw format",
    "show map format",
    "show map raw format",
    "show config local",
    "show config",
    "show blacklist",
    "show devices",
    "show wildcards",
    "reset maps stats",
    "reset map stats",
    "add path",
    "del path",
    "add map",
    "del map",
    "del maps",
    "switch map group",
    "reconfigure all",
    "suspend map",
    "resume map",
    "resize map",
    "reload map",
    "reset map",
    "reinstate path",
    "fail path",
    "disablequeueing map",
    "restorequeueing map",
    "disablequeueing maps",
    "restorequeueing maps",
    "shutdown",
    "getprstatus map",
    "setprstatus map",
    "unsetprstatus map",
    "forcequeueing daemon",
    "restorequeueing daemon",
    "getprkey map",
    "setprkey map key",
    "unsetprkey map",
    "setmarginal path",
    "unsetmarginal path",
    "unsetmarginal map",
};

/// mpathctl's way of doing what a command not served here does.
std::string insteadOf(const std::string &words) {
    static const std::pair<const char *, const char *> kInstead[] = {
        {"fail path", "mpathctl fail PATH"},
        {"reinstate path", "mpathctl reinstate PATH"},
        {"add path", "mpathctl add PATH"},
        {"del path", "mpathctl remove PATH"},
        {"del map", "mpathctl flush MAP"},
        {"switch map group", "mpathctl switch-group MAP N"},
        {"suspend map", "mpathctl suspend MAP"},
        {"resume map", "mpathctl resume MAP"},
        {"reload map", "mpathctl reload MAP"},
        {"reconfigure all", "mpathctl reconfigure"},
        {"disablequeueing map", "mpathctl set MAP queue_if_no_path no"},
        {"restorequeueing map", "mpathctl set MAP queue_if_no_path yes"},
        {"show config", "mpathctl config show"},
    };
    for (const auto &[w, m] : kInstead)
        if (words == w)
            return std::string("; ") + m + " does it";
    return {};
}

std::string jsonText(const std::string &s) {
    // multipathd writes values as they are; quotes and backslashes are
    // escaped here so that the answer stays JSON.
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

/// Columns padded as multipathd pads them: each as wide as its header or
/// its widest value, every column (the last too) filled with blanks.
std::string table(const std::vector<std::string> &header,
                  const std::vector<std::vector<std::string>> &rows, bool withHeader) {
    std::vector<size_t> width(header.size(), 0);
    for (size_t c = 0; c < header.size(); ++c) {
        width[c] = withHeader ? header[c].size() : 0;
        for (const auto &r : rows)
            width[c] = std::max(width[c], r[c].size());
    }
    auto line = [&](const std::vector<std::string> &cells) {
        std::string l;
        for (size_t c = 0; c < cells.size(); ++c) {
            if (c)
                l += ' ';
            l += cells[c];
            l.append(width[c] - cells[c].size(), ' ');
        }
        return l + "\n";
    };
    std::string out = withHeader ? line(header) : std::string();
    for (const auto &r : rows)
        out += line(r);
    return out;
}

std::string sizeText(uint64_t sectors) {
    double s = static_cast<double>(sectors >> 1); // KiB
    const char units[] = {'K', 'M', 'G', 'T', 'P'};
    size_t u = 0;
    while (s >= 1024 && u + 1 < sizeof(units)) {
        s /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.*f%c", s < 10 ? 1 : 0, s, units[u]);
    return buf;
}

/// The words of a table line with their count first: "1 queue_if_no_path".
std::string counted(const std::vector<std::string> &words) {
    std::string s = std::to_string(words.size());
    for (const auto &w : words)
        s += " " + w;
    return s;
}

std::string selectorOf(const mpath::model::PathGroup &g) {
    return g.selector + " " + counted(g.selectorArgs);
}

/// What a path shows in multipathd's columns and JSON.
struct PathView {
    std::string hcil, dev, devt, pri, dmSt, chkSt, devSt, nextCheck, checker, hostWwnn, targetWwnn,
        hostWwpn, targetWwpn, lunHex, marginal;
};

} // namespace

MultipathdCommands::MultipathdCommands(Daemon &daemon) : daemon_(daemon) {}

std::vector<std::string> MultipathdCommands::served() {
    return {" list|show paths",
            " list|show path $path",
            " list|show maps|multipaths",
            " list|show status",
            " list|show daemon",
            " list|show maps|multipaths json",
            " list|show map|multipath $map json",
            " list|show maps|multipaths topology",
            " list|show topology",
            " list|show map|multipath $map topology",
            " reconfigure",
            " quit|exit"};
}

std::string MultipathdCommands::help(const std::string &command, const std::string &why) const {
    std::string out = command + ": " + why + "\n";
    out += std::string("mpathd ") + MPATHD_VERSION + ", answering multipath-tools' commands\n";
    out += "CLI commands reference:\n";
    for (const auto &l : served())
        out += l + "\n";
    return out;
}

std::string MultipathdCommands::answer(const std::string &command, bool root) {
    const std::vector<std::string> words = tokens(command);
    if (words.empty())
        return help(command, "Missing argument");
    Parsed parsed;
    for (size_t i = 0; i < words.size(); ++i) {
        const Keyword *k = findKeyword(words[i]);
        if (!k)
            return i + 1 == words.size() ? help(command, "not found") : "fail\n";
        if (!parsed.words.empty())
            parsed.words += ' ';
        parsed.words += k->canonical;
        if (k->param) {
            if (i + 1 >= words.size())
                return help(command, "Missing argument");
            parsed.params[k->canonical] = words[++i];
        }
    }
    const std::string &w = parsed.words;
    const bool show = w == "show" || w.starts_with("show ");
    using Handler = std::function<std::string()>;
    const std::map<std::string, Handler> handlers{
        {"show paths", [&] { return showPaths(); }},
        {"show path", [&] { return showPath(parsed.params["path"]); }},
        {"show maps", [&] { return showMaps(); }},
        {"show status", [&] { return showStatus(); }},
        {"show daemon", [&] { return showDaemon(); }},
        {"show maps json", [&] { return showMapsJson(); }},
        {"show map json", [&] { return showMapJson(parsed.params["map"]); }},
        {"show topology", [&] { return showTopology(""); }},
        {"show maps topology", [&] { return showTopology(""); }},
        {"show map topology",
         [&] {
             const std::string name = parsed.params["map"];
             return findMap(name).empty() ? std::string("fail\n") : showTopology(name);
         }},
        {"quit", [] { return std::string("ok\n"); }},
        {"reconfigure",
         [&] {
             logNotice({}, "reconfigure asked on multipath-tools' command socket");
             daemon_.reconfigure([](mpath::Result<void> r) {
                 if (!r)
                     logWarning({}, "reconfigure refused: " + r.error().message);
             });
             return std::string("ok\n");
         }},
    };
    auto h = handlers.find(w);
    const bool known = h != handlers.end() ||
                       std::find(std::begin(kKnown), std::end(kKnown), w) != std::end(kKnown);
    if (!known)
        return help(command, "Missing argument");
    if (!root && !show)
        return "permission deny: need to be root\n";
    if (h != handlers.end())
        return h->second();
    logNotice({}, "multipath-tools' command '" + w + "' is not served by mpathd" + insteadOf(w));
    return "fail\n";
}

std::string MultipathdCommands::findMap(const std::string &given) const {
    std::string name = given;
    for (const char *prefix : {"/dev/mapper/", "/dev/"})
        if (name.starts_with(prefix)) {
            name.erase(0, std::string_view(prefix).size());
            break;
        }
    const State &st = daemon_.state();
    for (const auto &[wwid, rec] : st.maps) {
        if (rec.name == name || wwid == name)
            return wwid;
        if (rec.devt && name == "dm-" + std::to_string(minor(rec.devt)))
            return wwid;
    }
    return {};
}

namespace {

/// The table a map shows: the live one, else the planned one.
const mpath::model::Map &shownMap(const MapRecord &rec) {
    return rec.live ? rec.liveMap : (rec.planned ? rec.planned->map : rec.liveMap);
}

PathView viewOf(Daemon &daemon, const std::string &name, const PathRecord &p,
                const MapRecord *map) {
    PathView v;
    const auto &path = p.path;
    v.hcil = path.scsiAddress.empty() ? "#:#:#:#" : path.scsiAddress;
    v.dev = name.empty() ? "-" : name;
    v.devt = path.devtString();
    v.pri = std::to_string(path.priority);
    v.dmSt = path.dmState == DmPathState::Active   ? "active"
             : path.dmState == DmPathState::Failed ? "failed"
                                                   : "undef";
    if (!map) {
        v.chkSt = "undef";
        v.devSt = "unknown";
        v.nextCheck = "orphan";
    } else {
        switch (path.checkerState) {
        case CheckerState::Up:
            v.chkSt = "ready";
            break;
        case CheckerState::Down:
            v.chkSt = "faulty";
            break;
        case CheckerState::Ghost:
            v.chkSt = "ghost";
            break;
        case CheckerState::Pending:
            v.chkSt = "i/o pending";
            break;
        case CheckerState::Timeout:
            v.chkSt = "i/o timeout";
            break;
        case CheckerState::Unchecked:
            v.chkSt = "undef";
            break;
        }
        v.devSt = path.deviceState == DeviceState::Offline ? "offline" : "running";
        // Seconds to the next check, of the checking interval, with
        // multipathd's bar of ten.
        const long total = static_cast<long>(p.interval.count());
        long left = 0;
        if (p.nextCheck) {
            const auto remaining = p.nextCheckAt - daemon.loop().now();
            left = std::max<long>(
                0, static_cast<long>(std::chrono::ceil<std::chrono::seconds>(remaining).count()));
            left = std::min(left, total);
        }
        if (total > 0) {
            const long x = 10 * left / total;
            v.nextCheck = std::string(static_cast<size_t>(x), 'X') +
                          std::string(static_cast<size_t>(10 - x), '.');
        }
        v.nextCheck += " " + std::to_string(left) + "/" + std::to_string(total);
    }
    v.checker = p.checker             ? std::string(p.checker->name())
                : map && map->planned ? map->planned->pathChecker
                                      : std::string("(null)");
    const auto &ids = path.ids;
    auto orUndef = [](const std::string &s) { return s.empty() ? std::string("[undef]") : s; };
    v.hostWwnn = orUndef(ids.hostWwnn);
    v.targetWwnn = orUndef(ids.nodeName.empty() ? ids.targetWwnn : ids.nodeName);
    v.hostWwpn = orUndef(ids.hostWwpn);
    v.targetWwpn = orUndef(ids.targetWwpn);
    uint64_t lunHex = ~0ULL;
    if (!path.scsiAddress.empty()) {
        const auto colon = path.scsiAddress.rfind(':');
        const uint64_t lun = std::strtoull(path.scsiAddress.c_str() + colon + 1, nullptr, 10);
        lunHex = ((lun & 0x000000000000ffffULL) << 48) | ((lun & 0x00000000ffff0000ULL) << 16) |
                 ((lun & 0x0000ffff00000000ULL) >> 16) | ((lun & 0xffff000000000000ULL) >> 48);
    }
    char buf[24];
    std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, lunHex);
    v.lunHex = buf;
    v.marginal = path.marginal || p.heldAsShaky() ? "marginal" : "normal";
    return v;
}

/// The paths of each group of \a m, as the daemon tracks them.
std::vector<std::vector<std::pair<std::string, const PathRecord *>>>
groupMembers(const State &st, const mpath::model::Map &m) {
    std::map<dev_t, std::pair<std::string, const PathRecord *>> byDevt;
    for (const auto &[name, p] : st.paths)
        byDevt[p.path.devt] = {name, &p};
    std::vector<std::vector<std::pair<std::string, const PathRecord *>>> out;
    for (const auto &g : m.groups) {
        auto &members = out.emplace_back();
        for (const auto &p : g.paths)
            if (auto it = byDevt.find(p.devt); it != byDevt.end())
                members.push_back(it->second);
    }
    return out;
}

} // namespace

std::string MultipathdCommands::showPaths() const {
    const State &st = daemon_.state();
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> names;
    // As multipathd: every path it may use, in a map or not; not those
    // the blacklist keeps out.
    for (const auto &[name, p] : st.paths)
        if (!p.path.wwid.empty() && (!p.mapWwid.empty() || !daemon_.paths().excluded(name)))
            names.push_back(name);
    std::sort(names.begin(), names.end(), mpath::model::kernelNameLess);
    for (const auto &name : names) {
        const PathRecord &p = st.paths.at(name);
        auto m = p.mapWwid.empty() ? st.maps.end() : st.maps.find(p.mapWwid);
        const PathView v = viewOf(daemon_, name, p, m == st.maps.end() ? nullptr : &m->second);
        rows.push_back({v.hcil, v.dev, v.devt, v.pri, v.dmSt, v.chkSt, v.devSt, v.nextCheck});
    }
    if (rows.empty())
        return "ok\n";
    return table({"hcil", "dev", "dev_t", "pri", "dm_st", "chk_st", "dev_st", "next_check"}, rows,
                 true);
}

std::string MultipathdCommands::showPath(const std::string &given) const {
    std::string name = given.starts_with("/dev/") ? given.substr(5) : given;
    const State &st = daemon_.state();
    auto it = st.paths.find(name);
    if (it == st.paths.end())
        return "fail\n";
    auto m = it->second.mapWwid.empty() ? st.maps.end() : st.maps.find(it->second.mapWwid);
    return viewOf(daemon_, name, it->second, m == st.maps.end() ? nullptr : &m->second).devSt +
           "\n";
}

std::string MultipathdCommands::showMaps() const {
    std::vector<std::vector<std::string>> rows;
    for (const auto &[wwid, rec] : daemon_.state().maps)
        rows.push_back({rec.name.empty() ? wwid : rec.name,
                        rec.devt ? "dm-" + std::to_string(minor(rec.devt)) : "undef", wwid});
    std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
        return mpath::model::kernelNameLess(a[0], b[0]);
    });
    if (rows.empty())
        return "ok\n";
    return table({"name", "sysfs", "uuid"}, rows, true);
}

std::string MultipathdCommands::showStatus() const {
    const State &st = daemon_.state();
    // multipathd's names of the checker states, in its order.
    std::map<CheckerState, unsigned> counts;
    unsigned paths = 0;
    for (const auto &[name, p] : st.paths) {
        if (p.mapWwid.empty())
            continue;
        ++paths;
        ++counts[p.path.checkerState];
    }
    std::string out = "path checker states:\n";
    const std::pair<CheckerState, const char *> order[] = {
        {CheckerState::Unchecked, "unchecked"},
        {CheckerState::Down, "down"},
        {CheckerState::Up, "up"},
        {CheckerState::Ghost, "ghost"},
        {CheckerState::Pending, "pending"},
        {CheckerState::Timeout, "timeout"},
    };
    for (const auto &[s, n] : order)
        if (counts[s]) {
            char buf[64];
            std::snprintf(buf, sizeof(buf), "%-20s%u\n", n, counts[s]);
            out += buf;
        }
    out += "\npaths: " + std::to_string(paths) + "\nbusy: ";
    out += daemon_.ready() && !daemon_.reconfiguring() ? "False\n" : "True\n";
    return out;
}

std::string MultipathdCommands::showDaemon() const {
    const char *state = daemon_.stopping()        ? "shutdown"
                        : !daemon_.ready()        ? "startup"
                        : daemon_.reconfiguring() ? "configure"
                                                  : "idle";
    return "pid " + std::to_string(::getpid()) + " " + state + "\n";
}

namespace {

void mapJson(std::string &out, Daemon &daemon, const std::string &wwid, const MapRecord &rec,
             const std::string &in) {
    const State &st = daemon.state();
    const auto &m = shownMap(rec);
    const auto members = groupMembers(st, m);
    unsigned up = 0;
    const PathRecord *first = nullptr;
    for (const auto &g : members)
        for (const auto &[name, p] : g) {
            if (!first)
                first = p;
            up += (p->path.checkerState == CheckerState::Up ||
                   p->path.checkerState == CheckerState::Ghost)
                      ? 1
                      : 0;
        }
    std::string failback = "-";
    std::string queueing = "-";
    if (first) {
        const auto fb = daemon.config().effective(first->path).failback.value;
        if (fb.kind == mpath::config::Failback::Kind::Immediate)
            failback = "immediate";
        else if (fb.kind == mpath::config::Failback::Kind::Followover)
            failback = "followover";
    }
    using mpath::config::NoPathRetry;
    switch (rec.retry.kind) {
    case NoPathRetry::Kind::Fail:
        queueing = "off";
        break;
    case NoPathRetry::Kind::Queue:
        queueing = "on";
        break;
    case NoPathRetry::Kind::Retries:
        if (rec.retryTimer && rec.stats.queueingSince != std::chrono::steady_clock::time_point{}) {
            const auto interval =
                std::chrono::seconds(std::max(1u, daemon.globals().pollingInterval.value));
            const auto ends = rec.stats.queueingSince + interval * rec.retry.retries;
            const auto left = std::chrono::ceil<std::chrono::seconds>(ends - daemon.loop().now());
            queueing = std::to_string(std::max<long>(0, left.count())) + " sec";
        } else if (up > 0) {
            queueing = std::to_string(rec.retry.retries) + " chk";
        } else {
            queueing = "off";
        }
        break;
    }
    auto queued = rec.stats.queued;
    if (rec.stats.queueingSince != std::chrono::steady_clock::time_point{})
        queued += daemon.loop().now() - rec.stats.queueingSince;
    const std::string i1 = in + "   ", i2 = in + "      ", i3 = in + "         ";
    auto field = [&](const std::string &indent, const char *key, const std::string &value,
                     bool quoted, bool comma = true) {
        out += indent + "\"" + key + "\" : " + (quoted ? "\"" + jsonText(value) + "\"" : value) +
               (comma ? ",\n" : "\n");
    };
    field(i1, "name", rec.name.empty() ? wwid : rec.name, true);
    field(i1, "uuid", wwid, true);
    field(i1, "sysfs", rec.devt ? "dm-" + std::to_string(minor(rec.devt)) : "undef", true);
    field(i1, "failback", failback, true);
    field(i1, "queueing", queueing, true);
    field(i1, "paths", std::to_string(up), false);
    field(i1, "write_prot", rec.live ? "rw" : "undef", true);
    field(i1, "dm_st", !rec.live ? "undef" : rec.suspended ? "suspend" : "active", true);
    field(i1, "features", counted(m.features), true);
    std::vector<std::string> hw;
    if (!m.hwHandler.empty()) {
        hw.push_back(m.hwHandler);
        hw.insert(hw.end(), m.hwHandlerArgs.begin(), m.hwHandlerArgs.end());
    }
    field(i1, "hwhandler", counted(hw), true);
    field(i1, "action", "", true);
    field(i1, "path_faults", std::to_string(rec.stats.pathFaults), false);
    auto orHashes = [](const std::string &s) { return s.empty() ? std::string("##") : s; };
    field(i1, "vend", orHashes(first ? first->path.vendor : ""), true);
    field(i1, "prod", orHashes(first ? first->path.product : ""), true);
    field(i1, "rev", orHashes(first ? first->path.revision : ""), true);
    field(i1, "switch_grp", std::to_string(rec.stats.switchGroups), false);
    field(i1, "map_loads", std::to_string(rec.stats.loads), false);
    field(i1, "total_q_time",
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(queued).count()), false);
    field(i1, "q_timeouts", std::to_string(rec.stats.queueTimeouts), false);
    if (m.groups.empty()) {
        out += i1 + "\"path_groups\": []\n";
        return;
    }
    out += i1 + "\"path_groups\": [";
    for (size_t g = 0; g < m.groups.size(); ++g) {
        const auto &grp = m.groups[g];
        out += g == 0 ? "{\n" : i1 + "},{\n";
        mpath::model::PathGroup tracked;
        for (const auto &[name, p] : members[g])
            tracked.paths.push_back(p->path);
        const std::string groupSt = grp.state == GroupState::Active     ? "active"
                                    : grp.state == GroupState::Enabled  ? "enabled"
                                    : grp.state == GroupState::Disabled ? "disabled"
                                                                        : "undef";
        bool marginal = false;
        for (const auto &[name, p] : members[g])
            marginal = marginal || p->path.marginal;
        field(i2, "selector", selectorOf(grp), true);
        field(i2, "pri", std::to_string(mpath::policy::groupPriority(tracked)), false);
        field(i2, "dm_st", groupSt, true);
        field(i2, "marginal_st", marginal ? "marginal" : "normal", true);
        field(i2, "group", std::to_string(g + 1), false);
        if (members[g].empty()) {
            out += i2 + "\"paths\": []\n";
            continue;
        }
        out += i2 + "\"paths\": [";
        for (size_t k = 0; k < members[g].size(); ++k) {
            const auto &[name, p] = members[g][k];
            out += k == 0 ? "{\n" : i2 + "},{\n";
            const PathView v = viewOf(daemon, name, *p, &rec);
            field(i3, "dev", v.dev, true);
            field(i3, "dev_t", v.devt, true);
            field(i3, "dm_st", v.dmSt, true);
            field(i3, "dev_st", v.devSt, true);
            field(i3, "chk_st", v.chkSt, true);
            field(i3, "checker", v.checker, true);
            field(i3, "pri", v.pri, false);
            field(i3, "host_wwnn", v.hostWwnn, true);
            field(i3, "target_wwnn", v.targetWwnn, true);
            field(i3, "host_wwpn", v.hostWwpn, true);
            field(i3, "target_wwpn", v.targetWwpn, true);
            field(i3, "host_adapter", "[undef]", true);
            field(i3, "lun_hex", v.lunHex, true);
            field(i3, "marginal_st", v.marginal, true, false);
        }
        out += i2 + "}]\n";
    }
    out += i1 + "}]\n";
}

/// The maps by name (multipathd lists them in the order it made them).
std::vector<std::pair<std::string, const MapRecord *>> sortedMaps(const State &st) {
    std::vector<std::pair<std::string, const MapRecord *>> maps;
    for (const auto &[wwid, rec] : st.maps)
        maps.emplace_back(wwid, &rec);
    std::sort(maps.begin(), maps.end(), [](const auto &a, const auto &b) {
        const std::string &x = a.second->name.empty() ? a.first : a.second->name;
        const std::string &y = b.second->name.empty() ? b.first : b.second->name;
        return mpath::model::kernelNameLess(x, y);
    });
    return maps;
}

const char *kJsonHead = "{\n   \"major_version\": 0,\n   \"minor_version\": 1,\n";

} // namespace

std::string MultipathdCommands::showMapsJson() const {
    const auto maps = sortedMaps(daemon_.state());
    std::string out = kJsonHead;
    if (maps.empty())
        return out + "   \"maps\": []\n}\n";
    out += "   \"maps\": [";
    for (size_t i = 0; i < maps.size(); ++i) {
        out += i == 0 ? "{\n" : "   },{\n";
        mapJson(out, daemon_, maps[i].first, *maps[i].second, "   ");
    }
    out += "   }]\n}\n";
    return out;
}

std::string MultipathdCommands::showMapJson(const std::string &name) const {
    const std::string wwid = findMap(name);
    if (wwid.empty())
        return "fail\n";
    std::string out = kJsonHead;
    out += "   \"map\":{\n";
    mapJson(out, daemon_, wwid, daemon_.state().maps.at(wwid), "   ");
    out += "   }\n}\n";
    return out;
}

std::string MultipathdCommands::showTopology(const std::string &only) const {
    const State &st = daemon_.state();
    const std::string onlyWwid = only.empty() ? std::string() : findMap(only);
    // Path columns as wide as the widest of every path the daemon has.
    std::map<std::string, PathView> views;
    std::vector<size_t> width(6, 0);
    for (const auto &[name, p] : st.paths) {
        if (p.mapWwid.empty())
            continue;
        auto m = st.maps.find(p.mapWwid);
        PathView v = viewOf(daemon_, name, p, m == st.maps.end() ? nullptr : &m->second);
        const std::string cells[] = {v.hcil, v.dev, v.devt, v.dmSt, v.chkSt, v.devSt};
        for (size_t c = 0; c < 6; ++c)
            width[c] = std::max(width[c], cells[c].size());
        views.emplace(name, std::move(v));
    }
    std::string out;
    for (const auto &[wwid, recp] : sortedMaps(st)) {
        if (!onlyWwid.empty() && wwid != onlyWwid)
            continue;
        const MapRecord &rec = *recp;
        const auto &m = shownMap(rec);
        const auto members = groupMembers(st, m);
        const PathRecord *first = nullptr;
        for (const auto &g : members)
            if (!g.empty() && !first)
                first = g.front().second;
        const std::string name = rec.name.empty() ? wwid : rec.name;
        out += name;
        if (name != wwid)
            out += " (" + wwid + ")";
        out += " " + (rec.devt ? "dm-" + std::to_string(minor(rec.devt)) : std::string("undef"));
        out += " " + (first && !first->path.vendor.empty() ? first->path.vendor : "##") + "," +
               (first && !first->path.product.empty() ? first->path.product : "##") + "\n";
        std::vector<std::string> hw;
        if (!m.hwHandler.empty()) {
            hw.push_back(m.hwHandler);
            hw.insert(hw.end(), m.hwHandlerArgs.begin(), m.hwHandlerArgs.end());
        }
        out += "size=" + sizeText(m.sizeSectors) + " features='" + counted(m.features) +
               "' hwhandler='" + counted(hw) + "' wp=" + (rec.live ? "rw" : "undef") + "\n";
        for (size_t g = 0; g < m.groups.size(); ++g) {
            const bool lastGroup = g + 1 == m.groups.size();
            const auto &grp = m.groups[g];
            mpath::model::PathGroup tracked;
            for (const auto &[n, p] : members[g])
                tracked.paths.push_back(p->path);
            const std::string groupSt = grp.state == GroupState::Active     ? "active"
                                        : grp.state == GroupState::Enabled  ? "enabled"
                                        : grp.state == GroupState::Disabled ? "disabled"
                                                                            : "undef";
            out += std::string(lastGroup ? "`" : "|") + "-+- policy='" + selectorOf(grp) +
                   "' prio=" + std::to_string(mpath::policy::groupPriority(tracked)) +
                   " status=" + groupSt + "\n";
            for (size_t k = 0; k < members[g].size(); ++k) {
                const bool lastPath = k + 1 == members[g].size();
                const PathView &v = views.at(members[g][k].first);
                const std::string cells[] = {v.hcil, v.dev, v.devt, v.dmSt, v.chkSt, v.devSt};
                std::string line =
                    std::string(lastGroup ? " " : "|") + " " + (lastPath ? "`" : "|") + "- ";
                for (size_t c = 0; c < 6; ++c) {
                    if (c)
                        line += ' ';
                    line += cells[c];
                    line.append(width[c] - cells[c].size(), ' ');
                }
                out += line + "\n";
            }
        }
    }
    if (out.empty())
        return "ok\n";
    return out;
}

} // namespace mpathd
