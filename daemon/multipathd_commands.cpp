#include "multipathd_commands.h"

#include "bus_arguments.h"
#include "bus_method.h"
#include "bus_service.h"
#include "daemon.h"
#include "log.h"
#include "path_tracker.h"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <mpath/config/writer.h>
#include <mpath/model/name_order.h>
#include <mpath/policy/blacklist.h>
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
        {"show blacklist", "mpathctl config show"},
        {"show devices", "mpathctl plan"},
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
        hostWwpn, targetWwpn, lunHex, marginal, uuid, vpr, size, serial, map, protocol, failures;
};

/// What a map shows in multipathd's columns and JSON.
struct MapView {
    std::string name, uuid, sysfs, failback, queueing, paths, writeProt, dmSt, size, features,
        failures, hwhandler, action, pathFaults, switchGrp, mapLoads, totalQTime, qTimeouts, vend,
        prod, rev, vpr;
};

/// Values that multipathd prints the same for every device here.
const std::string kForeign = "--";
const std::string kUndef = "[undef]";
const std::string kInitOk = "ok";

/// One wildcard of multipathd's formats: its letter, its column's
/// header, and the value.
template <typename View>
struct Wildcard {
    char letter;
    const char *header;
    const std::string View::*value;
};

const Wildcard<MapView> kMapWildcards[] = {
    {'n', "name", &MapView::name},
    {'w', "uuid", &MapView::uuid},
    {'d', "sysfs", &MapView::sysfs},
    {'F', "failback", &MapView::failback},
    {'Q', "queueing", &MapView::queueing},
    {'N', "paths", &MapView::paths},
    {'r', "write_prot", &MapView::writeProt},
    {'t', "dm-st", &MapView::dmSt},
    {'S', "size", &MapView::size},
    {'f', "features", &MapView::features},
    {'x', "failures", &MapView::failures},
    {'h', "hwhandler", &MapView::hwhandler},
    {'A', "action", &MapView::action},
    {'0', "path_faults", &MapView::pathFaults},
    {'1', "switch_grp", &MapView::switchGrp},
    {'2', "map_loads", &MapView::mapLoads},
    {'3', "total_q_time", &MapView::totalQTime},
    {'4', "q_timeouts", &MapView::qTimeouts},
    {'s', "vend/prod/rev", &MapView::vpr},
    {'v', "vend", &MapView::vend},
    {'p', "prod", &MapView::prod},
    {'e', "rev", &MapView::rev},
    {'G', "foreign", nullptr},
    {'g', "vpd page data", nullptr},
};

const Wildcard<PathView> kPathWildcards[] = {
    {'w', "uuid", &PathView::uuid},
    {'i', "hcil", &PathView::hcil},
    {'d', "dev", &PathView::dev},
    {'D', "dev_t", &PathView::devt},
    {'t', "dm_st", &PathView::dmSt},
    {'o', "dev_st", &PathView::devSt},
    {'T', "chk_st", &PathView::chkSt},
    {'s', "vend/prod/rev", &PathView::vpr},
    {'c', "checker", &PathView::checker},
    {'C', "next_check", &PathView::nextCheck},
    {'p', "pri", &PathView::pri},
    {'S', "size", &PathView::size},
    {'z', "serial", &PathView::serial},
    {'M', "marginal_st", &PathView::marginal},
    {'m', "multipath", &PathView::map},
    {'N', "host WWNN", &PathView::hostWwnn},
    {'n', "target WWNN", &PathView::targetWwnn},
    {'R', "host WWPN", &PathView::hostWwpn},
    {'r', "target WWPN", &PathView::targetWwpn},
    {'a', "host adapter", nullptr},
    {'G', "foreign", nullptr},
    {'g', "vpd page data", nullptr},
    {'0', "failures", &PathView::failures},
    {'P', "protocol", &PathView::protocol},
    {'I', "init_st", nullptr},
    {'L', "LUN hex", &PathView::lunHex},
};

/// The value of a wildcard without a field: the same for every device.
template <typename View>
const std::string &constantOf(char letter) {
    switch (letter) {
    case 'G':
        return kForeign;
    case 'I':
        return kInitOk;
    default:
        return kUndef; // vpd page data, host adapter: not read
    }
}

/// \a views printed by \a format as multipathd prints it: the text as
/// it is, each %X replaced by that wildcard's value (nothing for an
/// unknown one). \a pretty: each wildcard's column as wide as its header
/// or widest value, the last too, and a header line; else neither.
/// \a only: print that view's line alone, padded as in the table of all,
/// without the header (multipathd's "show map $map format").
template <typename View, size_t N>
std::string formatted(const Wildcard<View> (&wildcards)[N], const std::string &format,
                      const std::vector<View> &views, bool pretty, const View *only = nullptr) {
    struct Piece {
        std::string text;               ///< literal text, when no wildcard
        const Wildcard<View> *wildcard; ///< null for text and unknown ones
        bool isWildcard;
        size_t width;
    };
    std::vector<Piece> pieces;
    for (size_t i = 0; i < format.size(); ++i) {
        if (format[i] != '%' || i + 1 >= format.size()) {
            if (pieces.empty() || pieces.back().isWildcard)
                pieces.push_back({{}, nullptr, false, 0});
            pieces.back().text += format[i];
            continue;
        }
        const char letter = format[++i];
        const Wildcard<View> *w = nullptr;
        for (const auto &candidate : wildcards)
            if (candidate.letter == letter)
                w = &candidate;
        pieces.push_back({{}, w, true, 0});
    }
    auto value = [](const Piece &p, const View &v) -> const std::string & {
        static const std::string none;
        if (!p.wildcard)
            return none;
        return p.wildcard->value ? v.*(p.wildcard->value) : constantOf<View>(p.wildcard->letter);
    };
    if (pretty)
        for (auto &p : pieces) {
            if (!p.isWildcard || !p.wildcard)
                continue;
            p.width = std::string_view(p.wildcard->header).size();
            for (const auto &v : views)
                p.width = std::max(p.width, value(p, v).size());
        }
    auto line = [&](auto cell) {
        std::string l;
        for (const auto &p : pieces) {
            if (!p.isWildcard) {
                l += p.text;
                continue;
            }
            const std::string c = cell(p);
            l += c;
            if (c.size() < p.width)
                l.append(p.width - c.size(), ' ');
        }
        return l + "\n";
    };
    if (only)
        return line([&](const Piece &p) { return value(p, *only); });
    std::string out;
    if (pretty)
        out +=
            line([](const Piece &p) { return std::string(p.wildcard ? p.wildcard->header : ""); });
    for (const auto &v : views)
        out += line([&](const Piece &p) { return value(p, v); });
    return out;
}

} // namespace

MultipathdCommands::MultipathdCommands(Daemon &daemon, BusService &service,
                                       std::function<void()> shutdown)
    : daemon_(daemon), service_(service), shutdown_(std::move(shutdown)) {}

std::vector<std::string> MultipathdCommands::served() {
    return {" list|show paths",
            " list|show paths format $format",
            " list|show paths raw format $format",
            " list|show maps|multipaths format $format",
            " list|show maps|multipaths raw format $format",
            " list|show map|multipath $map format $format",
            " list|show map|multipath $map raw format $format",
            " list|show maps|multipaths status",
            " list|show maps|multipaths stats",
            " list|show wildcards",
            " list|show config",
            " list|show config local",
            " list|show path $path",
            " list|show maps|multipaths",
            " list|show status",
            " list|show daemon",
            " list|show maps|multipaths json",
            " list|show map|multipath $map json",
            " list|show maps|multipaths topology",
            " list|show topology",
            " list|show map|multipath $map topology",
            " add path $path",
            " remove|del path $path",
            " remove|del map|multipath $map",
            " remove|del maps|multipaths",
            " switch|switchgroup map|multipath $map group $group",
            " reconfigure",
            " reconfigure all",
            " suspend map|multipath $map",
            " resume map|multipath $map",
            " resize map|multipath $map",
            " reload map|multipath $map",
            " reset maps|multipaths stats",
            " reset map|multipath $map stats",
            " reinstate path $path",
            " fail path $path",
            " disablequeueing map|multipath $map",
            " restorequeueing map|multipath $map",
            " disablequeueing maps|multipaths",
            " restorequeueing maps|multipaths",
            " quit|exit",
            " shutdown",
            " forcequeueing daemon",
            " restorequeueing daemon"};
}

std::string MultipathdCommands::help(const std::string &command, const std::string &why) const {
    std::string out = command + ": " + why + "\n";
    out += std::string("mpathd ") + MPATHD_VERSION + ", answering multipath-tools' commands\n";
    out += "CLI commands reference:\n";
    for (const auto &l : served())
        out += l + "\n";
    return out;
}

void MultipathdCommands::answer(const std::string &command, bool root, Reply reply) {
    const std::vector<std::string> words = tokens(command);
    if (words.empty())
        return reply(help(command, "Missing argument"));
    Parsed parsed;
    for (const auto &word : words)
        parsed.text += (parsed.text.empty() ? "" : " ") + word;
    for (size_t i = 0; i < words.size(); ++i) {
        const Keyword *k = findKeyword(words[i]);
        if (!k)
            return reply(i + 1 == words.size() ? help(command, "not found") : "fail\n");
        if (!parsed.words.empty())
            parsed.words += ' ';
        parsed.words += k->canonical;
        if (k->param) {
            if (i + 1 >= words.size())
                return reply(help(command, "Missing argument"));
            parsed.params[k->canonical] = words[++i];
        }
    }
    const std::string &w = parsed.words;
    if (w == "show" || w.starts_with("show ")) {
        // Open to every caller, as multipathd's list verb is.
        if (auto shown = show(parsed))
            return reply(std::move(*shown));
    } else {
        if (w != "reconfigure" && w != "quit" &&
            std::find(std::begin(kKnown), std::end(kKnown), w) == std::end(kKnown))
            return reply(help(command, "Missing argument"));
        if (!root)
            return reply("permission deny: need to be root\n");
        if (change(parsed, reply))
            return;
    }
    if (std::find(std::begin(kKnown), std::end(kKnown), w) == std::end(kKnown))
        return reply(help(command, "Missing argument"));
    logNotice({}, "multipath-tools' command '" + w + "' is not served by mpathd" + insteadOf(w));
    reply("fail\n");
}

std::optional<std::string> MultipathdCommands::show(const Parsed &parsed) {
    const std::string &w = parsed.words;
    auto param = [&](const char *key) {
        auto it = parsed.params.find(key);
        return it == parsed.params.end() ? std::string() : it->second;
    };
    // multipathd's own formats for its tables.
    static const std::string kPaths = "%i %d %D %p %t %T %o %C";
    static const std::string kMaps = "%n %d %w";
    if (w == "show paths")
        return showPaths(kPaths, true);
    if (w == "show paths format" || w == "show paths raw format")
        return showPaths(param("format"), w == "show paths format");
    if (w == "show maps format" || w == "show maps raw format")
        return showMaps(param("format"), w == "show maps format");
    if (w == "show map format" || w == "show map raw format") {
        const std::string wwid = findMap(param("map"));
        return wwid.empty() ? std::string("fail\n")
                            : showMaps(param("format"), w == "show map format", wwid);
    }
    if (w == "show maps status")
        return showMaps("%n %F %Q %N %t %r", true);
    if (w == "show maps stats")
        return showMaps("%n %0 %1 %2 %3 %4", true);
    if (w == "show wildcards")
        return showWildcards();
    if (w == "show config" || w == "show config local")
        return mpath::config::write(mpath::policy::BlacklistFilter::shownConfig(
            daemon_.config(), w == "show config local"));
    if (w == "show path")
        return showPath(param("path"));
    if (w == "show maps")
        return showMaps(kMaps, true);
    if (w == "show status")
        return showStatus();
    if (w == "show daemon")
        return showDaemon();
    if (w == "show maps json")
        return showMapsJson();
    if (w == "show map json")
        return showMapJson(param("map"));
    if (w == "show topology" || w == "show maps topology")
        return showTopology("");
    if (w == "show map topology")
        return findMap(param("map")).empty() ? std::string("fail\n") : showTopology(param("map"));
    return std::nullopt;
}

bool MultipathdCommands::change(const Parsed &parsed, const Reply &reply) {
    const std::string &w = parsed.words;
    auto param = [&](const char *key) {
        auto it = parsed.params.find(key);
        return it == parsed.params.end() ? std::string() : it->second;
    };
    if (w == "quit") {
        reply("ok\n");
        return true;
    }
    if (w == "reconfigure" || w == "reconfigure all") {
        // "all" reloads every map in multipathd; mpathd reloads those
        // whose table changes, and leaves the others' I/O alone.
        logNotice({}, "reconfigure asked on multipath-tools' command socket");
        daemon_.reconfigure([](mpath::Result<void> r) {
            if (!r)
                logWarning({}, "reconfigure refused: " + r.error().message);
        });
        reply("ok\n");
        return true;
    }
    if (w == "shutdown") {
        logNotice({}, "shutdown asked on multipath-tools' command socket");
        reply("ok\n");
        if (shutdown_)
            shutdown_();
        return true;
    }
    if (w == "forcequeueing daemon" || w == "restorequeueing daemon") {
        const bool force = w == "forcequeueing daemon";
        daemon_.forceQueueWithoutDaemon(force);
        logNotice({}, force ? "queueing stays on when mpathd stops (forcequeueing daemon)"
                            : "queueing when mpathd stops as queue_without_daemon says");
        reply("ok\n");
        return true;
    }
    if (w == "add path" || w == "del path") {
        const std::string given = param("path");
        const std::string name = given.starts_with("/dev/") ? given.substr(5) : given;
        act(w == "add path" ? BusAct::AddPath : BusAct::RemovePath, BusService::kRoot,
            BusArguments::given(name), parsed.text, reply);
        return true;
    }
    if (w == "fail path" || w == "reinstate path") {
        const std::string name = findPath(param("path"));
        if (name.empty()) {
            logWarning({}, "multipath-tools' command '" + parsed.text + "': no such path");
            reply("fail\n");
        } else {
            act(w == "fail path" ? BusAct::Fail : BusAct::Reinstate, BusService::pathPath(name),
                BusArguments::given({}), parsed.text, reply);
        }
        return true;
    }
    if (w == "del maps" || w == "disablequeueing maps" || w == "restorequeueing maps" ||
        w == "reset maps stats") {
        const std::string each =
            w.substr(0, w.find(' ')) + " map" + (w == "reset maps stats" ? " stats" : "");
        forEveryMap(
            w,
            [this, each](const std::string &wwid, Reply done) {
                Parsed one;
                one.words = each;
                one.text = each + " " + wwid;
                one.params["map"] = wwid;
                change(one, done);
            },
            reply);
        return true;
    }
    // The rest act on one map.
    static const std::map<std::string, BusAct> kMapActs{
        {"del map", BusAct::Flush},
        {"suspend map", BusAct::Suspend},
        {"resume map", BusAct::Resume},
        {"reload map", BusAct::Reload},
        {"switch map group", BusAct::SwitchGroup},
        {"disablequeueing map", BusAct::QueueIfNoPath},
    };
    const bool mapCommand = kMapActs.count(w) || w == "resize map" || w == "restorequeueing map" ||
                            w == "reset map stats";
    if (!mapCommand)
        return false;
    const std::string given = param("map");
    const std::string wwid = findMap(given);
    const std::string &what = parsed.text;
    if (wwid.empty()) {
        logWarning({}, "multipath-tools' command '" + what + "': no such map");
        reply("fail\n");
        return true;
    }
    MapRecord &rec = daemon_.mutableState().maps.at(wwid);
    if (w == "resize map")
        return resize(wwid, what, reply), true;
    if (w == "restorequeueing map") {
        // As multipathd: the configured no_path_retry holds again.
        if (!daemon_.dropMapSetting(wwid, "no_path_retry"))
            logInfo(aboutMap(rec.name, wwid), "queueing is as configured already");
        reply("ok\n");
        return true;
    }
    if (w == "reset map stats") {
        const auto since = rec.stats.queueingSince;
        rec.stats = {};
        if (since != std::chrono::steady_clock::time_point{})
            rec.stats.queueingSince = daemon_.loop().now();
        logNotice(aboutMap(rec.name, wwid), "statistics reset on request");
        reply("ok\n");
        return true;
    }
    uint32_t group = 0;
    if (w == "switch map group") {
        const std::string g = param("group");
        const auto [end, ec] = std::from_chars(g.data(), g.data() + g.size(), group);
        if (ec != std::errc() || end != g.data() + g.size()) {
            logWarning(aboutMap(rec.name, wwid),
                       "multipath-tools' command '" + what + "': the group is not a number");
            reply("fail\n");
            return true;
        }
    }
    act(kMapActs.at(w), BusService::mapPath(wwid), BusArguments::given({}, group, false), what,
        reply);
    return true;
}

void MultipathdCommands::act(BusAct act, const std::string &objectPath, const BusArguments &args,
                             const std::string &command, Reply reply) {
    service_.act(act, objectPath, args,
                 [command, reply = std::move(reply)](const char *error, const std::string &why) {
                     if (error)
                         logWarning({}, "multipath-tools' command '" + command + "': " + why);
                     reply(error ? "fail\n" : "ok\n");
                 });
}

void MultipathdCommands::forEveryMap(
    const std::string &command, const std::function<void(const std::string &wwid, Reply)> &each,
    Reply reply) {
    // The maps the kernel has, as multipathd goes over them: a map not
    // made (yet) is nothing to remove or change.
    std::vector<std::string> wwids;
    for (const auto &[wwid, rec] : daemon_.state().maps)
        if (rec.live)
            wwids.push_back(wwid);
    if (wwids.empty())
        return reply("ok\n");
    struct Tally {
        size_t left;
        size_t failed{0};
        Reply reply;
    };
    auto tally = std::make_shared<Tally>(Tally{wwids.size(), 0, std::move(reply)});
    for (const auto &wwid : wwids)
        each(wwid, [tally, command](std::string answer) {
            if (answer != "ok\n")
                ++tally->failed;
            if (--tally->left > 0)
                return;
            if (tally->failed)
                logWarning({}, "multipath-tools' command '" + command +
                                   "': " + std::to_string(tally->failed) + " map(s) failed");
            tally->reply(tally->failed ? "fail\n" : "ok\n");
        });
}

void MultipathdCommands::resize(const std::string &wwid, const std::string &command, Reply reply) {
    // As multipathd: the sizes are read again from the paths; a map whose
    // paths still have its size is left alone.
    auto devices = daemon_.env().udev->enumerate("block", "disk");
    if (!devices) {
        logWarning({}, "multipath-tools' command '" + command +
                           "': cannot list block devices: " + devices.error().message);
        return reply("fail\n");
    }
    State &st = daemon_.mutableState();
    for (const auto &d : *devices)
        if (auto p = st.paths.find(d.sysname); p != st.paths.end() && p->second.mapWwid == wwid)
            daemon_.paths().update(d);
    auto it = st.maps.find(wwid);
    if (it == st.maps.end())
        return reply("fail\n");
    uint64_t size = 0;
    for (const auto &[name, p] : st.paths)
        if (p.mapWwid == wwid && p.path.sizeSectors)
            size = p.path.sizeSectors;
    if (size == 0) {
        logWarning(aboutMap(it->second.name, wwid),
                   "multipath-tools' command '" + command + "': no path says its size");
        return reply("fail\n");
    }
    if (size == it->second.liveMap.sizeSectors) {
        logNotice(aboutMap(it->second.name, wwid),
                  "resize asked: still " + std::to_string(size) + " sectors, nothing to do");
        return reply("ok\n");
    }
    logNotice(aboutMap(it->second.name, wwid),
              "resize asked: " + std::to_string(it->second.liveMap.sizeSectors) + " to " +
                  std::to_string(size) + " sectors");
    act(BusAct::Reload, BusService::mapPath(wwid), BusArguments::given({}), command,
        std::move(reply));
}

std::string MultipathdCommands::findPath(const std::string &given) const {
    const std::string name = given.starts_with("/dev/") ? given.substr(5) : given;
    const State &st = daemon_.state();
    if (auto it = st.paths.find(name); it != st.paths.end())
        return name;
    // major:minor, as multipathd takes it too.
    for (const auto &[kname, p] : st.paths)
        if (p.path.devt && p.path.devtString() == name)
            return kname;
    return {};
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
    v.uuid = path.wwid;
    v.vpr = path.vendor + "," + path.product;
    v.size = sizeText(path.sizeSectors);
    v.serial = path.serial;
    v.map = !map ? "[orphan]" : map->name.empty() ? "[unknown]" : map->name;
    v.protocol = path.protocol.empty() ? "undef" : path.protocol;
    v.failures = std::to_string(path.failCount);
    return v;
}

/// The daemon's paths by device number: built once per answer, so that
/// an answer over every map costs its maps plus its paths.
using PathIndex = std::map<dev_t, std::pair<std::string, const PathRecord *>>;

PathIndex indexPaths(const State &st) {
    PathIndex byDevt;
    for (const auto &[name, p] : st.paths)
        byDevt[p.path.devt] = {name, &p};
    return byDevt;
}

/// The paths of each group of \a m, as the daemon tracks them.
std::vector<std::vector<std::pair<std::string, const PathRecord *>>>
groupMembers(const PathIndex &byDevt, const mpath::model::Map &m) {
    std::vector<std::vector<std::pair<std::string, const PathRecord *>>> out;
    for (const auto &g : m.groups) {
        auto &members = out.emplace_back();
        for (const auto &p : g.paths)
            if (auto it = byDevt.find(p.devt); it != byDevt.end())
                members.push_back(it->second);
    }
    return out;
}

/// A group's state in multipathd's word.
const char *groupStateWord(GroupState s) {
    return s == GroupState::Active     ? "active"
           : s == GroupState::Enabled  ? "enabled"
           : s == GroupState::Disabled ? "disabled"
                                       : "undef";
}

/// The hardware handler as multipathd counts it: "1 alua", "0".
std::string hwhandlerOf(const mpath::model::Map &m) {
    std::vector<std::string> hw;
    if (!m.hwHandler.empty()) {
        hw.push_back(m.hwHandler);
        hw.insert(hw.end(), m.hwHandlerArgs.begin(), m.hwHandlerArgs.end());
    }
    return counted(hw);
}

} // namespace

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

MapView mapViewOf(Daemon &daemon, const PathIndex &paths, const std::string &wwid,
                  const MapRecord &rec) {
    const auto &m = shownMap(rec);
    const auto members = groupMembers(paths, m);
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
    MapView v;
    v.failback = "-";
    v.queueing = "-";
    if (first) {
        const auto fb = daemon.config().effective(first->path).failback.value;
        if (fb.kind == mpath::config::Failback::Kind::Immediate)
            v.failback = "immediate";
        else if (fb.kind == mpath::config::Failback::Kind::Followover)
            v.failback = "followover";
    }
    using mpath::config::NoPathRetry;
    switch (rec.retry.kind) {
    case NoPathRetry::Kind::Fail:
        v.queueing = "off";
        break;
    case NoPathRetry::Kind::Queue:
        v.queueing = "on";
        break;
    case NoPathRetry::Kind::Retries:
        if (rec.retryTimer && rec.stats.queueingSince != std::chrono::steady_clock::time_point{}) {
            const auto interval =
                std::chrono::seconds(std::max(1u, daemon.globals().pollingInterval.value));
            const auto ends = rec.stats.queueingSince + interval * rec.retry.retries;
            const auto left = std::chrono::ceil<std::chrono::seconds>(ends - daemon.loop().now());
            v.queueing = std::to_string(std::max<long>(0, left.count())) + " sec";
        } else if (up > 0) {
            v.queueing = std::to_string(rec.retry.retries) + " chk";
        } else {
            v.queueing = "off";
        }
        break;
    }
    auto queued = rec.stats.queued;
    if (rec.stats.queueingSince != std::chrono::steady_clock::time_point{})
        queued += daemon.loop().now() - rec.stats.queueingSince;
    v.name = rec.name.empty() ? wwid : rec.name;
    v.uuid = wwid;
    v.sysfs = rec.devt ? "dm-" + std::to_string(minor(rec.devt)) : "undef";
    v.paths = std::to_string(up);
    v.writeProt = rec.live ? "rw" : "undef";
    v.dmSt = !rec.live ? "undef" : rec.suspended ? "suspend" : "active";
    v.size = sizeText(m.sizeSectors);
    v.features = counted(m.features);
    v.failures = std::to_string(rec.stats.mapFailures);
    v.hwhandler = hwhandlerOf(m);
    v.pathFaults = std::to_string(rec.stats.pathFaults);
    v.switchGrp = std::to_string(rec.stats.switchGroups);
    v.mapLoads = std::to_string(rec.stats.loads);
    v.totalQTime = std::to_string(std::chrono::duration_cast<std::chrono::seconds>(queued).count());
    v.qTimeouts = std::to_string(rec.stats.queueTimeouts);
    // The first path that has each, as multipathd takes them.
    auto firstWith = [&](auto field) {
        for (const auto &g : members)
            for (const auto &[name, p] : g)
                if (!(p->path.*field).empty())
                    return p->path.*field;
        return std::string("##");
    };
    v.vend = firstWith(&mpath::model::Path::vendor);
    v.prod = firstWith(&mpath::model::Path::product);
    v.rev = firstWith(&mpath::model::Path::revision);
    v.vpr = "##,##";
    for (const auto &g : members)
        for (const auto &[name, p] : g)
            if (v.vpr == "##,##" && !p->path.vendor.empty() && !p->path.product.empty())
                v.vpr = p->path.vendor + "," + p->path.product;
    return v;
}

void mapJson(std::string &out, Daemon &daemon, const PathIndex &paths, const std::string &wwid,
             const MapRecord &rec, const std::string &in) {
    const auto &m = shownMap(rec);
    const auto members = groupMembers(paths, m);
    const MapView v = mapViewOf(daemon, paths, wwid, rec);
    const std::string i1 = in + "   ", i2 = in + "      ", i3 = in + "         ";
    auto field = [&](const std::string &indent, const char *key, const std::string &value,
                     bool quoted, bool comma = true) {
        out += indent + "\"" + key + "\" : " + (quoted ? "\"" + jsonText(value) + "\"" : value) +
               (comma ? ",\n" : "\n");
    };
    field(i1, "name", v.name, true);
    field(i1, "uuid", v.uuid, true);
    field(i1, "sysfs", v.sysfs, true);
    field(i1, "failback", v.failback, true);
    field(i1, "queueing", v.queueing, true);
    field(i1, "paths", v.paths, false);
    field(i1, "write_prot", v.writeProt, true);
    field(i1, "dm_st", v.dmSt, true);
    field(i1, "features", v.features, true);
    field(i1, "hwhandler", v.hwhandler, true);
    field(i1, "action", v.action, true);
    field(i1, "path_faults", v.pathFaults, false);
    field(i1, "vend", v.vend, true);
    field(i1, "prod", v.prod, true);
    field(i1, "rev", v.rev, true);
    field(i1, "switch_grp", v.switchGrp, false);
    field(i1, "map_loads", v.mapLoads, false);
    field(i1, "total_q_time", v.totalQTime, false);
    field(i1, "q_timeouts", v.qTimeouts, false);
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
        bool marginal = false;
        for (const auto &[name, p] : members[g])
            marginal = marginal || p->path.marginal;
        field(i2, "selector", selectorOf(grp), true);
        field(i2, "pri", std::to_string(mpath::policy::groupPriority(tracked)), false);
        field(i2, "dm_st", groupStateWord(grp.state), true);
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
    const PathIndex paths = indexPaths(daemon_.state());
    std::string out = kJsonHead;
    if (maps.empty())
        return out + "   \"maps\": []\n}\n";
    out += "   \"maps\": [";
    for (size_t i = 0; i < maps.size(); ++i) {
        out += i == 0 ? "{\n" : "   },{\n";
        mapJson(out, daemon_, paths, maps[i].first, *maps[i].second, "   ");
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
    mapJson(out, daemon_, indexPaths(daemon_.state()), wwid, daemon_.state().maps.at(wwid), "   ");
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
    const PathIndex paths = indexPaths(st);
    std::string out;
    for (const auto &[wwid, recp] : sortedMaps(st)) {
        if (!onlyWwid.empty() && wwid != onlyWwid)
            continue;
        const MapRecord &rec = *recp;
        const auto &m = shownMap(rec);
        const auto members = groupMembers(paths, m);
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
        out += "size=" + sizeText(m.sizeSectors) + " features='" + counted(m.features) +
               "' hwhandler='" + hwhandlerOf(m) + "' wp=" + (rec.live ? "rw" : "undef") + "\n";
        for (size_t g = 0; g < m.groups.size(); ++g) {
            const bool lastGroup = g + 1 == m.groups.size();
            const auto &grp = m.groups[g];
            mpath::model::PathGroup tracked;
            for (const auto &[n, p] : members[g])
                tracked.paths.push_back(p->path);
            out += std::string(lastGroup ? "`" : "|") + "-+- policy='" + selectorOf(grp) +
                   "' prio=" + std::to_string(mpath::policy::groupPriority(tracked)) +
                   " status=" + groupStateWord(grp.state) + "\n";
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

std::string MultipathdCommands::showPaths(const std::string &format, bool pretty) const {
    const State &st = daemon_.state();
    std::vector<std::string> names;
    // As multipathd: every path it may use, in a map or not; not those
    // the blacklist keeps out.
    for (const auto &[name, p] : st.paths)
        if (!p.path.wwid.empty() && (!p.mapWwid.empty() || !daemon_.paths().excluded(name)))
            names.push_back(name);
    std::sort(names.begin(), names.end(), mpath::model::kernelNameLess);
    std::vector<PathView> views;
    for (const auto &name : names) {
        const PathRecord &p = st.paths.at(name);
        auto m = p.mapWwid.empty() ? st.maps.end() : st.maps.find(p.mapWwid);
        views.push_back(viewOf(daemon_, name, p, m == st.maps.end() ? nullptr : &m->second));
    }
    if (views.empty())
        return "ok\n";
    return formatted(kPathWildcards, format, views, pretty);
}

std::string MultipathdCommands::showMaps(const std::string &format, bool pretty,
                                         const std::string &only) const {
    const State &st = daemon_.state();
    const PathIndex paths = indexPaths(st);
    std::vector<MapView> views;
    for (const auto &[wwid, rec] : sortedMaps(st))
        views.push_back(mapViewOf(daemon_, paths, wwid, *rec));
    if (views.empty())
        return "ok\n";
    if (only.empty())
        return formatted(kMapWildcards, format, views, pretty);
    // One map's line, padded as in the table of all maps whether raw or
    // not, as multipathd prints it.
    for (const auto &v : views)
        if (v.uuid == only)
            return formatted(kMapWildcards, format, views, true, &v);
    return "fail\n";
}

std::string MultipathdCommands::showWildcards() {
    std::string out = "multipath format wildcards:\n";
    for (const auto &w : kMapWildcards)
        out += std::string("%") + w.letter + "  " + w.header + "\n";
    out += "\npath format wildcards:\n";
    for (const auto &w : kPathWildcards)
        out += std::string("%") + w.letter + "  " + w.header + "\n";
    out += "\npathgroup format wildcards:\n%s  selector\n%p  pri\n%t  dm_st\n%M  marginal_st\n";
    return out;
}

} // namespace mpathd
