#include "bus_objects.h"

#include "bus_json.h"
#include "daemon.h"

#include <algorithm>
#include <mpath/config/values.h>
#include <mpath/model/name_order.h>
#include <mpath/policy/grouping.h>
#include <sys/sysmacros.h>

namespace mpathd {

namespace {

using ObjectPath = BusService::ObjectPath;

constexpr BusObjects::Property kManagerProperties[] = {
    {"Version", "s"},       {"Target", "s"},      {"Ready", "b"},
    {"Reconfiguring", "b"}, {"PendingMaps", "u"}, {"ConfigFiles", "as"},
};

constexpr BusObjects::Property kMapProperties[] = {
    {"Name", "s"},
    {"Wwid", "s"},
    {"Uuid", "s"},
    {"Target", "s"},
    {"Size", "t"},
    {"Features", "as"},
    {"HardwareHandler", "s"},
    {"QueueIfNoPath", "b"},
    {"NoPathRetry", "s"},
    {"PgInitRetries", "u"},
    {"PgInitDelayMsecs", "u"},
    {"Selector", "s"},
    {"ActiveGroup", "u"},
    {"BlockDevice", "s"},
    {"DevT", "s"},
    {"State", "s"},
    {"UsablePaths", "u"},
    {"Groups", "ao"},
    {"Paths", "ao"},
    {"Overrides", "a{ss}"},
};

constexpr BusObjects::Property kGroupProperties[] = {
    {"Map", "o"},      {"Number", "u"},   {"State", "s"},
    {"Priority", "i"}, {"Selector", "s"}, {"Paths", "ao"},
};

constexpr BusObjects::Property kPathProperties[] = {
    {"Name", "s"},         {"Device", "s"},  {"DevT", "s"},        {"Wwid", "s"},
    {"Vendor", "s"},       {"Product", "s"}, {"Transport", "s"},   {"TransportIds", "a{ss}"},
    {"CheckerState", "s"}, {"DmState", "s"}, {"AdminFailed", "b"}, {"Priority", "i"},
    {"FailCount", "u"},    {"Map", "o"},     {"Group", "o"},
};

std::string devtString(dev_t d) {
    return d == 0 ? "" : std::to_string(major(d)) + ":" + std::to_string(minor(d));
}

bool usable(const PathRecord &p) {
    return p.path.dmState == mpath::model::DmPathState::Active;
}

/// "pg_init_retries 5" among a table's feature words.
uint32_t featureNumber(const std::vector<std::string> &features, const std::string &name) {
    for (size_t i = 0; i + 1 < features.size(); ++i)
        if (features[i] == name)
            try {
                return static_cast<uint32_t>(std::stoul(features[i + 1]));
            } catch (const std::exception &) {
                return 0;
            }
    return 0;
}

std::string selectorText(const mpath::model::PathGroup &g) {
    std::string s = g.selector + " " + std::to_string(g.selectorArgs.size());
    for (const auto &a : g.selectorArgs)
        s += " " + a;
    return s;
}

} // namespace

std::span<const BusObjects::Property> BusObjects::properties(std::string_view interface) {
    if (interface == kManagerInterface)
        return kManagerProperties;
    if (interface == kMapInterface)
        return kMapProperties;
    if (interface == kGroupInterface)
        return kGroupProperties;
    if (interface == kPathInterface)
        return kPathProperties;
    return {};
}

std::map<std::string, BusService::Object> BusObjects::compute(const Daemon &daemon) {
    using mpath::model::toString;
    std::map<std::string, BusService::Object> out;
    const State &st = daemon.state();

    unsigned pending = 0;
    for (const auto &[wwid, rec] : st.maps)
        pending += rec.idle() ? 0 : 1;
    out[kManagerPath] =
        BusService::Object{kManagerInterface,
                           {{"Version", std::string(MPATHD_VERSION)},
                            {"Target", std::string(mpath::config::toString(daemon.target()))},
                            {"Ready", daemon.ready()},
                            {"Reconfiguring", daemon.reconfiguring()},
                            {"PendingMaps", uint32_t{pending}},
                            {"ConfigFiles", daemon.config().files}}};

    // Which map and group each path is in.
    std::map<std::string, std::pair<std::string, unsigned>> where; // kernel name -> map, group
    std::map<dev_t, std::string> byDevt;
    for (const auto &[name, p] : st.paths)
        byDevt[p.path.devt] = name;
    std::map<std::string, unsigned> failCounts; // as the map's status last said
    std::map<std::string, std::vector<const std::string *>> pathsOf; // map WWID -> kernel names
    for (const auto &[name, p] : st.paths)
        if (!p.mapWwid.empty())
            pathsOf[p.mapWwid].push_back(&name);

    for (const auto &[wwid, rec] : st.maps) {
        const mpath::model::Map &m =
            rec.live ? rec.liveMap : (rec.planned ? rec.planned->map : rec.liveMap);
        const std::string mp = BusService::mapPath(wwid);
        std::vector<BusService::ObjectPath> groups, paths;
        unsigned active = 0, usablePaths = 0;
        for (size_t g = 0; g < m.groups.size(); ++g) {
            const auto &grp = m.groups[g];
            const unsigned number = static_cast<unsigned>(g + 1);
            if (grp.state == mpath::model::GroupState::Active && active == 0)
                active = number;
            std::vector<BusService::ObjectPath> members;
            // A live table carries no priorities: the group's is its
            // tracked paths' mean, as the planner computes it.
            mpath::model::PathGroup tracked;
            for (const auto &p : grp.paths) {
                auto n = byDevt.find(p.devt);
                if (n == byDevt.end())
                    continue;
                members.push_back({BusService::pathPath(n->second)});
                where[n->second] = {wwid, number};
                failCounts[n->second] = p.failCount;
                tracked.paths.push_back(st.paths.at(n->second).path);
            }
            groups.push_back({BusService::groupPath(wwid, number)});
            out[BusService::groupPath(wwid, number)] =
                BusService::Object{kGroupInterface,
                                   {{"Map", BusService::ObjectPath{mp}},
                                    {"Number", uint32_t{number}},
                                    {"State", std::string(toString(grp.state))},
                                    {"Priority", int32_t{mpath::policy::groupPriority(tracked)}},
                                    {"Selector", selectorText(grp)},
                                    {"Paths", members}}};
        }
        if (auto it = pathsOf.find(wwid); it != pathsOf.end())
            for (const std::string *name : it->second) {
                paths.push_back({BusService::pathPath(*name)});
                usablePaths += (rec.live && usable(st.paths.at(*name))) ? 1 : 0;
            }
        const bool queueing =
            std::find(m.features.begin(), m.features.end(), "queue_if_no_path") != m.features.end();
        const std::string &noPathRetry = rec.noPathRetry;
        std::string state = !rec.live         ? "pending"
                            : rec.suspended   ? "suspended"
                            : usablePaths > 0 ? "ready"
                            : queueing        ? "queueing"
                                              : "failing";
        out[mp] = BusService::Object{
            kMapInterface,
            {{"Name", rec.name},
             {"Wwid", wwid},
             {"Uuid", "mpath-" + wwid},
             {"Target", rec.live ? rec.target : std::string()},
             {"Size", uint64_t{m.sizeSectors * 512}},
             {"Features", m.features},
             {"HardwareHandler", m.hwHandler},
             {"QueueIfNoPath", queueing},
             {"NoPathRetry", noPathRetry},
             {"PgInitRetries", featureNumber(m.features, "pg_init_retries")},
             {"PgInitDelayMsecs", featureNumber(m.features, "pg_init_delay_msecs")},
             {"Selector", m.groups.empty() ? std::string() : selectorText(m.groups[0])},
             {"ActiveGroup", uint32_t{active}},
             {"BlockDevice",
              rec.devt ? "/dev/dm-" + std::to_string(minor(rec.devt)) : std::string()},
             {"DevT", devtString(rec.devt)},
             {"State", state},
             {"UsablePaths", uint32_t{usablePaths}},
             {"Groups", groups},
             {"Paths", paths},
             {"Overrides", daemon.overridesOf(wwid)}}};
    }

    for (const auto &[name, p] : st.paths) {
        if (p.path.wwid.empty())
            continue;
        std::map<std::string, std::string> ids;
        const auto &t = p.path.ids;
        for (const auto &[k, v] :
             {std::pair<const char *, const std::string &>{"host_wwnn", t.hostWwnn},
              {"host_wwpn", t.hostWwpn},
              {"target_wwnn", t.targetWwnn},
              {"target_wwpn", t.targetWwpn},
              {"node_name", t.nodeName}})
            if (!v.empty())
                ids[k] = v;
        if (t.targetPortGroup >= 0)
            ids["target_port_group"] = std::to_string(t.targetPortGroup);
        auto w = where.find(name);
        const bool inMap = !p.mapWwid.empty() && st.maps.count(p.mapWwid);
        out[BusService::pathPath(name)] = BusService::Object{
            kPathInterface,
            {{"Name", name},
             {"Device", p.devnode.empty() ? "/dev/" + name : p.devnode},
             {"DevT", p.path.devtString()},
             {"Wwid", p.path.wwid},
             {"Vendor", p.path.vendor},
             {"Product", p.path.product},
             {"Transport", std::string(toString(p.path.transport))},
             {"TransportIds", ids},
             {"CheckerState", std::string(toString(p.path.checkerState))},
             {"DmState", std::string(toString(p.path.dmState))},
             {"AdminFailed", p.adminFailed},
             {"Shaky", p.heldAsShaky()},
             {"Priority", int32_t{p.path.priority}},
             {"FailCount", uint32_t{failCounts.count(name) ? failCounts.at(name) : 0u}},
             {"Map", BusService::ObjectPath{inMap ? BusService::mapPath(p.mapWwid) : "/"}},
             {"Group",
              BusService::ObjectPath{w != where.end()
                                         ? BusService::groupPath(w->second.first, w->second.second)
                                         : "/"}}}};
    }
    return out;
}

namespace {

/// Property \a name of \a o, null when it has none or another type.
template <typename T>
const T *propertyOf(const BusService::Object &o, std::string_view name) {
    for (const auto &[n, v] : o.properties)
        if (n == name)
            return std::get_if<T>(&v);
    return nullptr;
}

template <typename T>
T valueOf(const BusService::Object &o, std::string_view name) {
    const T *v = propertyOf<T>(o, name);
    return v ? *v : T{};
}

/// The kernel names of the path objects \a paths names, those that exist
/// and have one: what mpathctl lists of GetManagedObjects' answer.
std::vector<std::string> pathNames(const std::map<std::string, BusService::Object> &objects,
                                   const std::vector<BusService::ObjectPath> &paths) {
    std::vector<std::string> names;
    names.reserve(paths.size());
    for (const auto &p : paths)
        if (auto it = objects.find(p.path);
            it != objects.end() && it->second.interface == BusObjects::kPathInterface)
            if (std::string name = valueOf<std::string>(it->second, "Name"); !name.empty())
                names.push_back(std::move(name));
    return names;
}

void writeStrings(BusJson &j, const std::vector<std::string> &strings) {
    j.beginArray();
    for (const auto &s : strings)
        j.value(s);
    j.endArray();
}

/// The name a map object goes by: its Name, its WWID when it has none.
std::string mapName(const BusService::Object &map) {
    std::string name = valueOf<std::string>(map, "Name");
    return name.empty() ? valueOf<std::string>(map, "Wwid") : name;
}

/// Writes the "maps" key of a document and its array: every map of
/// \a objects, sorted by name.
void writeMaps(BusJson &j, const std::map<std::string, BusService::Object> &objects) {
    using ObjectPaths = std::vector<BusService::ObjectPath>;
    struct Entry {
        std::string name;
        const BusService::Object *map;
    };
    std::vector<Entry> maps;
    for (const auto &[path, o] : objects)
        if (o.interface == BusObjects::kMapInterface)
            maps.push_back({mapName(o), &o});
    std::sort(maps.begin(), maps.end(), [](const Entry &a, const Entry &b) {
        return mpath::model::kernelNameLess(a.name, b.name);
    });

    j.key("maps");
    j.beginArray();
    for (const Entry &e : maps) {
        const BusService::Object &m = *e.map;
        std::vector<const BusService::Object *> groups;
        if (const auto *paths = propertyOf<ObjectPaths>(m, "Groups"))
            for (const auto &g : *paths)
                if (auto it = objects.find(g.path);
                    it != objects.end() && it->second.interface == BusObjects::kGroupInterface)
                    groups.push_back(&it->second);
        std::stable_sort(groups.begin(), groups.end(), [](const auto *a, const auto *b) {
            return valueOf<uint32_t>(*a, "Number") < valueOf<uint32_t>(*b, "Number");
        });
        std::vector<std::string> paths = pathNames(objects, valueOf<ObjectPaths>(m, "Paths"));
        std::sort(paths.begin(), paths.end(), [](const std::string &a, const std::string &b) {
            return mpath::model::kernelNameLess(a, b);
        });

        j.beginObject();
        j.key("activeGroup");
        j.value(uint64_t{valueOf<uint32_t>(m, "ActiveGroup")});
        j.key("blockDevice");
        j.value(valueOf<std::string>(m, "BlockDevice"));
        j.key("devt");
        j.value(valueOf<std::string>(m, "DevT"));
        j.key("features");
        writeStrings(j, valueOf<std::vector<std::string>>(m, "Features"));
        j.key("groups");
        j.beginArray();
        for (const BusService::Object *g : groups) {
            j.beginObject();
            j.key("number");
            j.value(uint64_t{valueOf<uint32_t>(*g, "Number")});
            j.key("paths");
            writeStrings(j, pathNames(objects, valueOf<ObjectPaths>(*g, "Paths")));
            j.key("priority");
            j.value(int64_t{valueOf<int32_t>(*g, "Priority")});
            j.key("selector");
            j.value(valueOf<std::string>(*g, "Selector"));
            j.key("state");
            j.value(valueOf<std::string>(*g, "State"));
            j.endObject();
        }
        j.endArray();
        j.key("hardwareHandler");
        j.value(valueOf<std::string>(m, "HardwareHandler"));
        j.key("name");
        j.value(e.name);
        j.key("noPathRetry");
        j.value(valueOf<std::string>(m, "NoPathRetry"));
        j.key("overrides");
        j.beginObject();
        for (const auto &[k, v] : valueOf<std::map<std::string, std::string>>(m, "Overrides")) {
            j.key(k);
            j.value(v);
        }
        j.endObject();
        j.key("paths");
        writeStrings(j, paths);
        j.key("pgInitDelayMsecs");
        j.value(uint64_t{valueOf<uint32_t>(m, "PgInitDelayMsecs")});
        j.key("pgInitRetries");
        j.value(uint64_t{valueOf<uint32_t>(m, "PgInitRetries")});
        j.key("queueIfNoPath");
        j.value(valueOf<bool>(m, "QueueIfNoPath"));
        j.key("selector");
        j.value(valueOf<std::string>(m, "Selector"));
        j.key("sizeBytes");
        j.value(valueOf<uint64_t>(m, "Size"));
        j.key("state");
        j.value(valueOf<std::string>(m, "State"));
        j.key("target");
        j.value(valueOf<std::string>(m, "Target"));
        j.key("usablePaths");
        j.value(uint64_t{valueOf<uint32_t>(m, "UsablePaths")});
        j.key("uuid");
        j.value(valueOf<std::string>(m, "Uuid"));
        j.key("wwid");
        j.value(valueOf<std::string>(m, "Wwid"));
        j.endObject();
    }
    j.endArray();
}

/// Writes the "paths" key of a document and its array: every path of
/// \a objects, sorted by kernel name, each naming its map and group.
void writePaths(BusJson &j, const std::map<std::string, BusService::Object> &objects) {
    using ObjectPath = BusService::ObjectPath;
    std::vector<std::pair<std::string, const BusService::Object *>> paths;
    for (const auto &[path, o] : objects)
        if (o.interface == BusObjects::kPathInterface)
            paths.emplace_back(valueOf<std::string>(o, "Name"), &o);
    std::sort(paths.begin(), paths.end(), [](const auto &a, const auto &b) {
        return mpath::model::kernelNameLess(a.first, b.first);
    });
    auto linked = [&](const BusService::Object &p, const char *property,
                      std::string_view interface) -> const BusService::Object * {
        auto it = objects.find(valueOf<ObjectPath>(p, property).path);
        return it != objects.end() && it->second.interface == interface ? &it->second : nullptr;
    };
    j.key("paths");
    j.beginArray();
    for (const auto &[name, o] : paths) {
        const BusService::Object &p = *o;
        j.beginObject();
        j.key("adminFailed");
        j.value(valueOf<bool>(p, "AdminFailed"));
        j.key("checkerState");
        j.value(valueOf<std::string>(p, "CheckerState"));
        j.key("device");
        j.value(valueOf<std::string>(p, "Device"));
        j.key("devt");
        j.value(valueOf<std::string>(p, "DevT"));
        j.key("dmState");
        j.value(valueOf<std::string>(p, "DmState"));
        j.key("failCount");
        j.value(uint64_t{valueOf<uint32_t>(p, "FailCount")});
        j.key("group");
        if (const auto *g = linked(p, "Group", BusObjects::kGroupInterface))
            j.value(uint64_t{valueOf<uint32_t>(*g, "Number")});
        else
            j.null();
        j.key("map");
        if (const auto *m = linked(p, "Map", BusObjects::kMapInterface))
            j.value(mapName(*m));
        else
            j.null();
        j.key("name");
        j.value(name);
        j.key("priority");
        j.value(int64_t{valueOf<int32_t>(p, "Priority")});
        j.key("product");
        j.value(valueOf<std::string>(p, "Product"));
        j.key("shaky");
        j.value(valueOf<bool>(p, "Shaky"));
        j.key("transport");
        j.value(valueOf<std::string>(p, "Transport"));
        j.key("transportIds");
        j.beginObject();
        for (const auto &[k, v] : valueOf<std::map<std::string, std::string>>(p, "TransportIds")) {
            j.key(k);
            j.value(v);
        }
        j.endObject();
        j.key("vendor");
        j.value(valueOf<std::string>(p, "Vendor"));
        j.key("wwid");
        j.value(valueOf<std::string>(p, "Wwid"));
        j.endObject();
    }
    j.endArray();
}

/// A document of \a objects: its maps, and its paths when \a withPaths.
/// Keys in byte order, as mpathctl's documents have them.
std::string document(const std::map<std::string, BusService::Object> &objects, bool withPaths) {
    BusJson j;
    j.beginObject();
    writeMaps(j, objects);
    if (withPaths)
        writePaths(j, objects);
    j.key("version");
    j.value(uint64_t{1});
    j.endObject();
    std::string out = j.take();
    out += '\n';
    return out;
}

} // namespace

std::string BusObjects::mapsDocument(const std::map<std::string, BusService::Object> &objects) {
    return document(objects, false);
}

std::string BusObjects::topologyDocument(const std::map<std::string, BusService::Object> &objects) {
    return document(objects, true);
}

} // namespace mpathd
