#include "daemon_commands.h"

#include "bus_client.h"
#include "daemon_error.h"
#include "exit_code.h"
#include "topology_printer.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace mpathctl {

namespace {

constexpr uint64_t minute = 60ull * 1000 * 1000;
/// Reloads and removals wait for device-mapper and udev.
constexpr uint64_t changeTimeout = 2 * minute;
/// Reconfigure answers when every map is reloaded.
constexpr uint64_t reconfigureTimeout = 10 * minute;

const char *propertiesInterface = "org.freedesktop.DBus.Properties";
const char *objectManagerInterface = "org.freedesktop.DBus.ObjectManager";

/// A usage error found after parsing: said like CLI11's, exit 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

bool number(const std::string &s, uint32_t &out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

std::string joined(const std::vector<std::string> &words) {
    std::string out;
    for (const auto &w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

/// The object path \p name resolves to, which must be a map's.
std::string resolveMap(BusClient &client, const std::string &name) {
    std::string object = client.resolve(name);
    if (object.rfind(std::string(BusClient::rootPath) + "/maps/", 0) != 0)
        throw DaemonError(ExitFailure, "'" + name + "' is not a multipath map");
    return object;
}

/// The object path \p name resolves to, which must be a path's.
std::string resolvePath(BusClient &client, const std::string &name) {
    std::string object = client.resolve(name);
    if (object.rfind(std::string(BusClient::rootPath) + "/paths/", 0) != 0)
        throw DaemonError(ExitFailure, "'" + name + "' is not a path of a multipath map");
    return object;
}

// ---------------------------------------------------------------------------
// watch
// ---------------------------------------------------------------------------

/// "2024-05-01T12:00:00.123+0200".
std::string timestamp() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000;
    std::tm tm{};
    localtime_r(&t, &tm);
    char date[32], zone[8];
    std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
    std::strftime(zone, sizeof(zone), "%z", &tm);
    char out[48];
    std::snprintf(out, sizeof(out), "%s.%03d%s", date, static_cast<int>(ms), zone);
    return out;
}

/// The label sd_bus_path_encode() made: "_2d" back to "-".
std::string decodeLabel(const std::string &label) {
    std::string out;
    for (size_t i = 0; i < label.size(); ++i) {
        if (label[i] == '_' && i + 2 < label.size()) {
            unsigned v = 0;
            auto [p, ec] = std::from_chars(label.data() + i + 1, label.data() + i + 3, v, 16);
            if (ec == std::errc() && p == label.data() + i + 3) {
                out += static_cast<char>(v);
                i += 2;
                continue;
            }
        }
        out += label[i];
    }
    return out;
}

/// What an object path is: "map", "group", "path", "manager" and a name
/// for people.
class ObjectNames {
public:
    void learn(const std::string &objectPath, const std::map<std::string, Properties> &ifaces) {
        for (const auto &[iface, props] : ifaces) {
            auto it = props.find("Name");
            if (it != props.end())
                if (const auto *s = std::get_if<std::string>(&it->second); s && !s->empty())
                    names_[objectPath] = *s;
        }
    }

    std::pair<std::string, std::string> describe(const std::string &objectPath) const {
        const std::string root = BusClient::rootPath;
        std::string rest =
            objectPath.rfind(root, 0) == 0 ? objectPath.substr(root.size()) : objectPath;
        if (rest == "/Manager")
            return {"manager", "mpathd"};
        if (rest.rfind("/paths/", 0) == 0)
            return {"path", name(objectPath, decodeLabel(rest.substr(7)))};
        if (rest.rfind("/maps/", 0) == 0) {
            std::string wwid = rest.substr(6);
            auto groups = wwid.find("/groups/");
            if (groups == std::string::npos)
                return {"map", name(objectPath, decodeLabel(wwid))};
            const std::string mapPath = root + "/maps/" + wwid.substr(0, groups);
            return {"group", name(mapPath, decodeLabel(wwid.substr(0, groups))) + "/" +
                                 wwid.substr(groups + 8)};
        }
        return {"object", objectPath};
    }

private:
    std::string name(const std::string &objectPath, const std::string &fallback) const {
        auto it = names_.find(objectPath);
        return it == names_.end() ? fallback : it->second;
    }

    std::map<std::string, std::string> names_;
};

nlohmann::json toJson(const PropertyValue &v) {
    return std::visit(
        [](const auto &x) -> nlohmann::json {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::monostate>)
                return nullptr;
            else
                return x;
        },
        v);
}

std::string toText(const PropertyValue &v) {
    const nlohmann::json j = toJson(v);
    return j.is_string() ? j.get<std::string>() : j.dump();
}

} // namespace

DaemonCommands::DaemonCommands(CLI::App &app) : app_(&app) {
    app.add_option("--bus", bus_,
                   "how to reach mpathd: the system bus, its private socket, or (auto) the "
                   "socket when it can be opened (root), else the system bus, else the socket")
        ->type_name("system|private|auto")
        ->check(CLI::IsMember({"system", "private", "auto"}));
    app.add_option("--socket", socket_,
                   std::string("mpathd's private socket (") + BusClient::defaultSocket + ")")
        ->type_name("PATH");
    app.add_option("--color", color_,
                   "colour states: always, never, or auto (when stdout is a terminal and "
                   "NO_COLOR is unset)")
        ->type_name("always|never|auto")
        ->check(CLI::IsMember({"always", "never", "auto"}));

    auto addJson = [this](CLI::App *c) {
        c->add_flag("--json", json_, "print JSON, \"version\": 1 (docs/mpathctl-json.md)");
        return c;
    };
    auto target = [](CLI::App *c, Target &t, const char *name, const char *what) {
        t.command = c;
        c->add_option(name, t.name, what)->required();
    };
    const char *mapName = "the map: mpatha, /dev/mapper/mpatha, dm-3, 253:3 or its WWID";
    const char *pathName = "the path: sdb, /dev/sdb or 8:16";

    show_ = app.add_subcommand("show", "print what mpathd manages (needs the daemon)");
    show_->require_subcommand(1);
    showTopology_ =
        addJson(show_->add_subcommand("topology", "every map with its groups and paths, "
                                                  "like multipath -ll"));
    showMaps_ = addJson(show_->add_subcommand("maps", "one line per map"));
    showPaths_ = addJson(show_->add_subcommand("paths", "one line per path"));
    target(addJson(show_->add_subcommand("map", "one map, its tree and settings")), showMap_,
           "NAME", mapName);
    target(addJson(show_->add_subcommand("path", "one path")), showPath_, "DEV", pathName);
    showConfig_ = addJson(show_->add_subcommand(
        "config", "mpathd's version, target and configuration files (the daemon's view; "
                  "'config show' reads the files itself)"));

    CLI::App *set = app.add_subcommand("set", "change a map's setting (until the next "
                                              "reconfigure, or for good with --persist)");
    set->require_subcommand(1);
    setMap_.command = set->add_subcommand("map", "change a map's setting");
    setMap_.command->add_option("NAME", setMap_.name, mapName)->required();
    setMap_.command
        ->add_option("SETTING", setting_,
                     "queue-if-no-path on|off, no-path-retry queue|fail|N, pg-init-retries N, "
                     "pg-init-delay MSECS, selector SELECTOR")
        ->required();
    setMap_.command->add_option("VALUE", values_, "the new value")->required();
    setMap_.command->add_flag("--persist", persist_,
                              "also write it to the configuration, so that it outlasts a "
                              "restart and a reconfigure");

    auto pathCommand = [&](const char *verb, const char *what, Target &t) {
        CLI::App *c = app.add_subcommand(verb, what);
        c->require_subcommand(1);
        target(c->add_subcommand("path", what), t, "DEV", pathName);
    };
    pathCommand("fail", "fail a path; the checker leaves it failed until 'reinstate'", failPath_);
    pathCommand("reinstate", "reinstate a path and let the checker decide again", reinstatePath_);
    pathCommand("add", "describe a block device again and add it to its map", addPath_);
    pathCommand("remove", "take a path out of its map until 'add path' or a new udev event",
                removePath_);

    target(app.add_subcommand("switch-group", "send I/O to group N (1-based) until failback "
                                              "moves it"),
           switchGroup_, "MAP", mapName);
    switchGroup_.command->add_option("N", group_, "the group's number")->required();
    target(app.add_subcommand("flush", "remove a map (refused while it is open)"), flush_, "MAP",
           mapName);
    target(app.add_subcommand("reload", "load a map's table again"), reload_, "MAP", mapName);
    target(app.add_subcommand("suspend", "suspend a map's I/O"), suspend_, "MAP", mapName);
    target(app.add_subcommand("resume", "resume a suspended map"), resume_, "MAP", mapName);
    reconfigure_ = app.add_subcommand("reconfigure", "read the configuration again and reload "
                                                     "the maps it changes");
    watch_ = addJson(app.add_subcommand("watch", "print mpathd's changes as they happen, until "
                                                 "interrupted"));
}

bool DaemonCommands::colour() const {
    if (color_ == "always")
        return true;
    if (color_ == "never")
        return false;
    const char *noColor = std::getenv("NO_COLOR");
    return isatty(STDOUT_FILENO) == 1 && !(noColor && *noColor);
}

int DaemonCommands::run() const {
    BusClient::Mode mode = bus_ == "system"    ? BusClient::Mode::System
                           : bus_ == "private" ? BusClient::Mode::Private
                                               : BusClient::Mode::Auto;
    BusClient client(mode, socket_.empty() ? BusClient::defaultSocket : socket_);
    try {
        return dispatch(client);
    } catch (const UsageError &e) {
        std::cerr << e.what() << "\n";
        return ExitUsage;
    } catch (const DaemonError &e) {
        std::cerr << "mpathctl: " << e.what() << "\n";
        return e.exit();
    }
}

int DaemonCommands::dispatch(BusClient &client) const {
    if (show_->parsed())
        return show(client);
    if (setMap_.command->parsed())
        return set(client);
    if (reconfigure_->parsed())
        return reconfigure(client);
    if (watch_->parsed())
        return watch(client);

    const struct {
        const Target &target;
        bool map;
        const char *interface;
        const char *member;
    } simple[] = {
        {failPath_, false, BusClient::pathInterface, "Fail"},
        {reinstatePath_, false, BusClient::pathInterface, "Reinstate"},
        {flush_, true, BusClient::mapInterface, "Flush"},
        {reload_, true, BusClient::mapInterface, "Reload"},
        {suspend_, true, BusClient::mapInterface, "Suspend"},
        {resume_, true, BusClient::mapInterface, "Resume"},
    };
    for (const auto &s : simple) {
        if (!s.target.command->parsed())
            continue;
        const std::string object =
            s.map ? resolveMap(client, s.target.name) : resolvePath(client, s.target.name);
        client.call(object, s.interface, s.member, {}, false, changeTimeout);
        return ExitOk;
    }
    for (const auto &[t, member] : {std::pair<const Target &, const char *>{addPath_, "AddPath"},
                                    {removePath_, "RemovePath"}}) {
        if (!t.command->parsed())
            continue;
        // The daemon may not know the device yet: it takes the name as given.
        client.call(
            BusClient::managerPath, BusClient::managerInterface, member,
            [&](BusMessage &m) { m.appendString(t.name); }, false, changeTimeout);
        return ExitOk;
    }
    if (switchGroup_.command->parsed()) {
        uint32_t n = 0;
        if (!number(group_, n) || n == 0)
            throw UsageError("mpathctl switch-group: group '" + group_ +
                             "' is not a group number (1, 2, ...)");
        const std::string object = resolveMap(client, switchGroup_.name);
        client.call(
            object, BusClient::mapInterface, "SwitchPathGroup",
            [&](BusMessage &m) { m.appendUint32(n); }, false, changeTimeout);
        return ExitOk;
    }
    throw UsageError("mpathctl: a command is needed; see 'mpathctl --help'");
}

int DaemonCommands::show(BusClient &client) const {
    const TopologyPrinter printer(colour());
    std::string object;
    // Resolved first: ResolveDevice's answer names what the listing shows.
    if (showMap_.command->parsed())
        object = resolveMap(client, showMap_.name);
    else if (showPath_.command->parsed())
        object = resolvePath(client, showPath_.name);
    if (showMaps_->parsed()) {
        // The daemon keeps this document ready: printed as it comes, or
        // read for the table, with no object of a group or path in
        // between.
        if (const std::optional<std::string> document = client.describeMaps()) {
            if (json_)
                std::cout << *document << std::flush;
            else
                printer.maps(Objects::fromMapsDocument(*document), std::cout);
            return ExitOk;
        }
    } else if (showTopology_->parsed() || showPaths_->parsed()) {
        // Likewise, with every path.
        if (const std::optional<std::string> document = client.describeTopology()) {
            if (json_ && showTopology_->parsed()) {
                std::cout << *document << std::flush;
                return ExitOk;
            }
            const Objects objects = Objects::fromTopologyDocument(*document);
            if (showPaths_->parsed() && json_)
                std::cout << TopologyPrinter::pathsJson(objects).dump(2) << "\n";
            else if (showPaths_->parsed())
                printer.paths(objects, std::cout);
            else
                printer.topology(objects, std::cout);
            return ExitOk;
        }
    }
    const Objects objects = Objects::fromManagedObjects(client.managedObjects());
    auto print = [](const nlohmann::json &j) { std::cout << j.dump(2) << "\n"; };

    if (showTopology_->parsed()) {
        if (json_)
            print(TopologyPrinter::topologyJson(objects));
        else
            printer.topology(objects, std::cout);
    } else if (showMaps_->parsed()) {
        if (json_)
            print(TopologyPrinter::mapsJson(objects));
        else
            printer.maps(objects, std::cout);
    } else if (showPaths_->parsed()) {
        if (json_)
            print(TopologyPrinter::pathsJson(objects));
        else
            printer.paths(objects, std::cout);
    } else if (showConfig_->parsed()) {
        if (json_)
            print(TopologyPrinter::managerJson(objects.manager));
        else
            printer.manager(objects.manager, std::cout);
    } else if (showMap_.command->parsed()) {
        const MapInfo *m = objects.mapAt(object);
        if (!m)
            throw DaemonError(ExitFailure, "map '" + showMap_.name + "' is gone");
        if (json_)
            print(TopologyPrinter::mapJson(objects, *m));
        else
            printer.map(objects, *m, std::cout);
    } else {
        const PathInfo *p = objects.pathAt(object);
        if (!p)
            throw DaemonError(ExitFailure, "path '" + showPath_.name + "' is gone");
        if (json_)
            print(TopologyPrinter::pathJson(*p));
        else
            printer.path(*p, std::cout);
    }
    return ExitOk;
}

int DaemonCommands::set(BusClient &client) const {
    const std::string value = joined(values_);
    const std::string where = "mpathctl set map: ";
    auto oneWord = [&]() {
        if (values_.size() != 1)
            throw UsageError(where + setting_ + " takes one value, not '" + value + "'");
    };
    auto unsignedValue = [&](const char *what) {
        oneWord();
        uint32_t n = 0;
        if (!number(value, n))
            throw UsageError(where + setting_ + " needs " + what + ", not '" + value + "'");
        return n;
    };

    const char *member = nullptr;
    std::function<void(BusMessage &)> append;
    if (setting_ == "queue-if-no-path") {
        oneWord();
        if (value != "on" && value != "off")
            throw UsageError(where + "queue-if-no-path needs on or off, not '" + value + "'");
        member = "SetQueueIfNoPath";
        append = [on = value == "on"](BusMessage &m) { m.appendBool(on); };
    } else if (setting_ == "no-path-retry") {
        oneWord();
        uint32_t n = 0;
        if (value != "queue" && value != "fail" && !number(value, n))
            throw UsageError(where + "no-path-retry needs queue, fail or a number, not '" + value +
                             "'");
        member = "SetNoPathRetry";
        append = [value](BusMessage &m) { m.appendString(value); };
    } else if (setting_ == "pg-init-retries") {
        const uint32_t n = unsignedValue("a number");
        member = "SetPgInitRetries";
        append = [n](BusMessage &m) { m.appendUint32(n); };
    } else if (setting_ == "pg-init-delay") {
        const uint32_t n = unsignedValue("a number of milliseconds");
        member = "SetPgInitDelayMsecs";
        append = [n](BusMessage &m) { m.appendUint32(n); };
    } else if (setting_ == "selector") {
        member = "SetPathSelector";
        append = [value](BusMessage &m) { m.appendString(value); };
    } else {
        throw UsageError(where + "unknown setting '" + setting_ +
                         "' (queue-if-no-path, no-path-retry, pg-init-retries, pg-init-delay, "
                         "selector)");
    }
    const std::string object = resolveMap(client, setMap_.name);
    client.call(object, BusClient::mapInterface, member, append, persist_, changeTimeout);
    return ExitOk;
}

int DaemonCommands::reconfigure(BusClient &client) const {
    if (isatty(STDERR_FILENO) != 1) {
        client.call(BusClient::managerPath, BusClient::managerInterface, "Reconfigure", {}, false,
                    reconfigureTimeout);
        return ExitOk;
    }
    // The reading also finds the daemon, so that the subscription goes to
    // the connection the call will take.
    auto progress = [](uint64_t pending) {
        std::cerr << "\r\033[Kreconfigure: " << pending << (pending == 1 ? " map" : " maps")
                  << " pending" << std::flush;
    };
    const PropertyValue pending =
        client.property(BusClient::managerPath, BusClient::managerInterface, "PendingMaps");
    if (const auto *n = std::get_if<uint64_t>(&pending))
        progress(*n);
    client.subscribe(BusClient::managerPath, propertiesInterface, "PropertiesChanged",
                     [&](BusMessage &m) {
                         if (m.readString() != BusClient::managerInterface)
                             return;
                         const Properties changed = m.readProperties();
                         auto it = changed.find("PendingMaps");
                         if (it == changed.end())
                             return;
                         if (const auto *n = std::get_if<uint64_t>(&it->second))
                             progress(*n);
                     });
    bool done = false;
    client.callAsync(BusClient::managerPath, BusClient::managerInterface, "Reconfigure",
                     reconfigureTimeout, done);
    try {
        if (!client.run([&] { return done; })) {
            std::cerr << "\r\033[Kreconfigure: interrupted; mpathd finishes it anyway\n";
            return ExitFailure;
        }
    } catch (const DaemonError &) {
        std::cerr << "\r\033[K";
        throw;
    }
    std::cerr << "\r\033[Kreconfigure: done\n";
    return ExitOk;
}

int DaemonCommands::watch(BusClient &client) const {
    ObjectNames names;
    // Names for the objects there already; this also finds the daemon.
    for (const ManagedObject &o : client.managedObjects())
        names.learn(o.path, o.interfaces);

    const bool json = json_;
    auto emit = [&](const char *event, const std::string &objectPath, nlohmann::json extra,
                    const std::string &text) {
        const auto [kind, name] = names.describe(objectPath);
        if (json) {
            nlohmann::json j{{"version", TopologyPrinter::jsonVersion},
                             {"time", timestamp()},
                             {"event", event},
                             {"object", objectPath},
                             {"kind", kind},
                             {"name", name}};
            j.update(extra);
            std::cout << j.dump() << std::endl;
        } else {
            std::cout << timestamp() << " " << event << " " << kind << " " << name
                      << (text.empty() ? "" : " " + text) << std::endl;
        }
    };

    client.subscribe(BusClient::rootPath, objectManagerInterface, "InterfacesAdded",
                     [&](BusMessage &m) {
                         const std::string path = m.readObjectPath();
                         const auto interfaces = m.readInterfaces();
                         names.learn(path, interfaces);
                         nlohmann::json ifaces = nlohmann::json::array();
                         for (const auto &[iface, props] : interfaces)
                             ifaces.push_back(iface);
                         emit("added", path, {{"interfaces", ifaces}}, "");
                     });
    client.subscribe(BusClient::rootPath, objectManagerInterface, "InterfacesRemoved",
                     [&](BusMessage &m) {
                         const std::string path = m.readObjectPath();
                         const std::vector<std::string> interfaces = m.readStrings();
                         emit("removed", path, {{"interfaces", interfaces}}, "");
                     });
    client.subscribe(
        BusClient::rootPath, propertiesInterface, "PropertiesChanged", [&](BusMessage &m) {
            const std::string iface = m.readString();
            const Properties changed = m.readProperties();
            const std::vector<std::string> invalidated = m.readStrings();
            nlohmann::json props = nlohmann::json::object();
            std::string text;
            for (const auto &[name, value] : changed) {
                props[name] = toJson(value);
                text += (text.empty() ? "" : " ") + name + "=" + toText(value);
            }
            for (const auto &name : invalidated)
                text += (text.empty() ? "" : " ") + name + "=?";
            emit("changed", m.path(),
                 {{"interface", iface}, {"properties", props}, {"invalidated", invalidated}}, text);
        });
    client.run([] { return false; });
    return ExitOk;
}

} // namespace mpathctl
