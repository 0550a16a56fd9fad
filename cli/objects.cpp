#include "objects.h"

#include <algorithm>
#include <mpath/model/name_order.h>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>

namespace mpathctl {

namespace {

const char *managerInterface = "org.mpathd.Multipath1.Manager";
const char *mapInterface = "org.mpathd.Multipath1.Map";
const char *groupInterface = "org.mpathd.Multipath1.PathGroup";
const char *pathInterface = "org.mpathd.Multipath1.Path";

/// Reads properties leniently: a value of another type than expected
/// leaves the default, so that a newer daemon cannot break the listing.
class Reader {
public:
    explicit Reader(const Properties &props) : props_(props) {}

    void get(const char *name, std::string &out) const {
        if (const auto *v = find<std::string>(name))
            out = *v;
    }
    void get(const char *name, bool &out) const {
        if (const auto *v = find<bool>(name))
            out = *v;
    }
    void get(const char *name, std::vector<std::string> &out) const {
        if (const auto *v = find<std::vector<std::string>>(name))
            out = *v;
    }
    void get(const char *name, std::map<std::string, std::string> &out) const {
        if (const auto *v = find<std::map<std::string, std::string>>(name))
            out = *v;
    }
    template <typename T>
    requires std::is_integral_v<T>
    void get(const char *name, T &out) const {
        auto it = props_.find(name);
        if (it == props_.end())
            return;
        if (const auto *u = std::get_if<uint64_t>(&it->second))
            out = static_cast<T>(*u);
        else if (const auto *i = std::get_if<int64_t>(&it->second))
            out = static_cast<T>(*i);
    }

private:
    template <typename T>
    const T *find(const char *name) const {
        auto it = props_.find(name);
        return it == props_.end() ? nullptr : std::get_if<T>(&it->second);
    }

    const Properties &props_;
};

const Properties *interface(const ManagedObject &o, const char *name) {
    auto it = o.interfaces.find(name);
    return it == o.interfaces.end() ? nullptr : &it->second;
}

} // namespace

bool Objects::nameLess(const std::string &a, const std::string &b) {
    return mpath::model::kernelNameLess(a, b);
}

Objects Objects::fromManagedObjects(const std::vector<ManagedObject> &objects) {
    Objects out;
    std::map<std::string, GroupInfo> groups;
    std::map<std::string, std::vector<std::string>> groupPaths, mapGroups, mapPaths;
    std::map<std::string, std::pair<std::string, std::string>> pathLinks;

    for (const ManagedObject &o : objects) {
        if (const Properties *p = interface(o, managerInterface)) {
            Reader r(*p);
            ManagerInfo &m = out.manager;
            r.get("Version", m.version);
            r.get("Target", m.target);
            r.get("Ready", m.ready);
            r.get("Reconfiguring", m.reconfiguring);
            r.get("PendingMaps", m.pendingMaps);
            r.get("ConfigFiles", m.configFiles);
        }
        if (const Properties *p = interface(o, mapInterface)) {
            Reader r(*p);
            MapInfo m;
            m.objectPath = o.path;
            r.get("Name", m.name);
            r.get("Wwid", m.wwid);
            r.get("Uuid", m.uuid);
            r.get("Target", m.target);
            r.get("Size", m.sizeBytes);
            r.get("Features", m.features);
            r.get("HardwareHandler", m.hardwareHandler);
            r.get("QueueIfNoPath", m.queueIfNoPath);
            r.get("NoPathRetry", m.noPathRetry);
            r.get("PgInitRetries", m.pgInitRetries);
            r.get("PgInitDelayMsecs", m.pgInitDelayMsecs);
            r.get("Selector", m.selector);
            r.get("ActiveGroup", m.activeGroup);
            r.get("BlockDevice", m.blockDevice);
            r.get("DevT", m.devt);
            r.get("State", m.state);
            r.get("UsablePaths", m.usablePaths);
            r.get("Overrides", m.overrides);
            r.get("Groups", mapGroups[o.path]);
            r.get("Paths", mapPaths[o.path]);
            if (m.name.empty())
                m.name = m.wwid;
            out.maps.push_back(std::move(m));
        }
        if (const Properties *p = interface(o, groupInterface)) {
            Reader r(*p);
            GroupInfo g;
            g.objectPath = o.path;
            r.get("Number", g.number);
            r.get("State", g.state);
            r.get("Priority", g.priority);
            r.get("Selector", g.selector);
            r.get("Paths", groupPaths[o.path]);
            groups.emplace(o.path, std::move(g));
        }
        if (const Properties *p = interface(o, pathInterface)) {
            Reader r(*p);
            PathInfo path;
            path.objectPath = o.path;
            r.get("Name", path.name);
            r.get("Device", path.device);
            r.get("DevT", path.devt);
            r.get("Wwid", path.wwid);
            r.get("Vendor", path.vendor);
            r.get("Product", path.product);
            r.get("Transport", path.transport);
            r.get("TransportIds", path.transportIds);
            r.get("CheckerState", path.checkerState);
            r.get("DmState", path.dmState);
            r.get("AdminFailed", path.adminFailed);
            r.get("Shaky", path.shaky);
            r.get("Priority", path.priority);
            r.get("FailCount", path.failCount);
            auto &[map, group] = pathLinks[o.path];
            r.get("Map", map);
            r.get("Group", group);
            out.paths.push_back(std::move(path));
        }
    }

    std::sort(out.paths.begin(), out.paths.end(),
              [](const PathInfo &a, const PathInfo &b) { return nameLess(a.name, b.name); });
    std::sort(out.maps.begin(), out.maps.end(),
              [](const MapInfo &a, const MapInfo &b) { return nameLess(a.name, b.name); });

    // Indexes: a large setup has thousands of paths.
    std::unordered_map<std::string, const PathInfo *> pathIndex;
    for (const PathInfo &p : out.paths)
        pathIndex.emplace(p.objectPath, &p);
    std::unordered_map<std::string, const MapInfo *> mapIndex;
    for (const MapInfo &m : out.maps)
        mapIndex.emplace(m.objectPath, &m);
    auto pathName = [&](const std::string &objectPath) {
        auto it = pathIndex.find(objectPath);
        return it == pathIndex.end() ? std::string() : it->second->name;
    };
    for (auto &[objectPath, g] : groups)
        for (const auto &p : groupPaths[objectPath])
            if (std::string name = pathName(p); !name.empty())
                g.paths.push_back(name);
    for (MapInfo &m : out.maps) {
        for (const auto &g : mapGroups[m.objectPath])
            if (auto it = groups.find(g); it != groups.end())
                m.groups.push_back(it->second);
        std::sort(m.groups.begin(), m.groups.end(),
                  [](const GroupInfo &a, const GroupInfo &b) { return a.number < b.number; });
        for (const auto &p : mapPaths[m.objectPath])
            if (std::string name = pathName(p); !name.empty())
                m.paths.push_back(name);
        std::sort(m.paths.begin(), m.paths.end(), nameLess);
    }
    for (PathInfo &p : out.paths) {
        const auto &[map, group] = pathLinks[p.objectPath];
        if (auto it = mapIndex.find(map); it != mapIndex.end())
            p.mapName = it->second->name;
        if (auto it = groups.find(group); it != groups.end())
            p.groupNumber = it->second.number;
    }
    return out;
}

namespace {

template <typename T>
void field(const nlohmann::json &j, const char *name, T &out) {
    auto it = j.find(name);
    if (it == j.end() || it->is_null())
        return;
    if constexpr (std::is_same_v<T, bool>) {
        if (it->is_boolean())
            out = it->template get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
        if (it->is_number_integer())
            out = it->template get<T>();
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (it->is_string())
            out = it->template get<std::string>();
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
        if (it->is_array())
            for (const auto &s : *it)
                if (s.is_string())
                    out.push_back(s.template get<std::string>());
    } else {
        static_assert(std::is_same_v<T, std::map<std::string, std::string>>);
        if (it->is_object())
            for (const auto &[k, v] : it->items())
                if (v.is_string())
                    out.emplace(k, v.template get<std::string>());
    }
}

/// The JSON document \a json, when it is an object with an array under
/// each of \a keys. \throw std::runtime_error naming \a method otherwise
nlohmann::json parseDocument(const std::string &json, const char *method,
                             std::initializer_list<const char *> keys) {
    nlohmann::json doc = nlohmann::json::parse(json, nullptr, false);
    bool ok = !doc.is_discarded() && doc.is_object();
    for (const char *k : keys)
        ok = ok && doc.contains(k) && doc[k].is_array();
    if (!ok)
        throw std::runtime_error(std::string("mpathd's ") + method +
                                 " answer is not the document it should be");
    return doc;
}

/// The maps of a document's "maps" array.
std::vector<MapInfo> readMaps(const nlohmann::json &doc) {
    std::vector<MapInfo> out;
    for (const auto &j : doc["maps"]) {
        if (!j.is_object())
            continue;
        MapInfo m;
        field(j, "name", m.name);
        field(j, "wwid", m.wwid);
        field(j, "uuid", m.uuid);
        field(j, "target", m.target);
        field(j, "sizeBytes", m.sizeBytes);
        field(j, "features", m.features);
        field(j, "hardwareHandler", m.hardwareHandler);
        field(j, "queueIfNoPath", m.queueIfNoPath);
        field(j, "noPathRetry", m.noPathRetry);
        field(j, "pgInitRetries", m.pgInitRetries);
        field(j, "pgInitDelayMsecs", m.pgInitDelayMsecs);
        field(j, "selector", m.selector);
        field(j, "activeGroup", m.activeGroup);
        field(j, "blockDevice", m.blockDevice);
        field(j, "devt", m.devt);
        field(j, "state", m.state);
        field(j, "usablePaths", m.usablePaths);
        field(j, "paths", m.paths);
        field(j, "overrides", m.overrides);
        if (auto groups = j.find("groups"); groups != j.end() && groups->is_array())
            for (const auto &g : *groups) {
                if (!g.is_object())
                    continue;
                GroupInfo info;
                field(g, "number", info.number);
                field(g, "state", info.state);
                field(g, "priority", info.priority);
                field(g, "selector", info.selector);
                field(g, "paths", info.paths);
                m.groups.push_back(std::move(info));
            }
        out.push_back(std::move(m));
    }
    return out;
}

/// The paths of a document's "paths" array.
std::vector<PathInfo> readPaths(const nlohmann::json &doc) {
    std::vector<PathInfo> out;
    for (const auto &j : doc["paths"]) {
        if (!j.is_object())
            continue;
        PathInfo p;
        field(j, "name", p.name);
        field(j, "device", p.device);
        field(j, "devt", p.devt);
        field(j, "wwid", p.wwid);
        field(j, "vendor", p.vendor);
        field(j, "product", p.product);
        field(j, "transport", p.transport);
        field(j, "transportIds", p.transportIds);
        field(j, "checkerState", p.checkerState);
        field(j, "dmState", p.dmState);
        field(j, "adminFailed", p.adminFailed);
        field(j, "shaky", p.shaky);
        field(j, "priority", p.priority);
        field(j, "failCount", p.failCount);
        field(j, "map", p.mapName);       // null: in no map
        field(j, "group", p.groupNumber); // null: in no group
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace

Objects Objects::fromMapsDocument(const std::string &json) {
    Objects out;
    out.maps = readMaps(parseDocument(json, "DescribeMaps", {"maps"}));
    return out;
}

Objects Objects::fromTopologyDocument(const std::string &json) {
    const nlohmann::json doc = parseDocument(json, "DescribeTopology", {"maps", "paths"});
    Objects out;
    out.maps = readMaps(doc);
    out.paths = readPaths(doc);
    return out;
}

const MapInfo *Objects::mapAt(const std::string &objectPath) const {
    for (const MapInfo &m : maps)
        if (m.objectPath == objectPath)
            return &m;
    return nullptr;
}

const PathInfo *Objects::pathAt(const std::string &objectPath) const {
    for (const PathInfo &p : paths)
        if (p.objectPath == objectPath)
            return &p;
    return nullptr;
}

const PathInfo *Objects::path(const std::string &name) const {
    for (const PathInfo &p : paths)
        if (p.name == name)
            return &p;
    return nullptr;
}

} // namespace mpathctl
