#include "bus_objects.h"

#include "daemon.h"

#include <algorithm>
#include <mpath/config/values.h>
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

} // namespace mpathd
