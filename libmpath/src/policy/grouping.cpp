#include "mpath/policy/grouping.h"

#include <algorithm>
#include <map>

namespace mpath::policy {

using config::GroupingPolicy;
using model::CheckerState;
using model::DeviceState;
using model::Map;
using model::Path;
using model::PathGroup;

namespace {

// Groups paths by a key, groups in order of the key's first appearance.
template <typename Key, typename KeyOf>
std::vector<PathGroup> groupBy(std::vector<Path> paths, KeyOf keyOf) {
    std::vector<PathGroup> groups;
    std::map<Key, size_t> index;
    for (Path &p : paths) {
        Key k = keyOf(p);
        auto [it, inserted] = index.try_emplace(k, groups.size());
        if (inserted)
            groups.emplace_back();
        groups[it->second].paths.push_back(std::move(p));
    }
    return groups;
}

size_t usableCount(const PathGroup &g) {
    return static_cast<size_t>(std::count_if(g.paths.begin(), g.paths.end(), usable));
}

} // namespace

bool usable(const Path &p) {
    if (p.deviceState == DeviceState::Offline || p.deviceState == DeviceState::Removed)
        return false;
    return p.checkerState == CheckerState::Up || p.checkerState == CheckerState::Ghost ||
           p.checkerState == CheckerState::Unchecked;
}

int groupPriority(const PathGroup &group) {
    long sum = 0;
    long count = 0;
    for (const Path &p : group.paths) {
        if (!usable(p))
            continue;
        sum += std::max(p.priority, 0);
        ++count;
    }
    return count == 0 ? 0 : static_cast<int>(sum / count);
}

void orderGroups(std::vector<PathGroup> &groups) {
    for (PathGroup &g : groups)
        g.priority = groupPriority(g);
    std::stable_sort(groups.begin(), groups.end(), [](const PathGroup &a, const PathGroup &b) {
        if (a.priority != b.priority)
            return a.priority > b.priority;
        return usableCount(a) > usableCount(b);
    });
}

std::vector<PathGroup> groupPaths(std::vector<Path> paths, GroupingPolicy policy) {
    // Marginal paths (marginal_pathgroups) are grouped apart, by the same
    // policy, and their groups come after all the others, as multipath-tools
    // orders them.
    const auto marginalPaths =
        std::count_if(paths.begin(), paths.end(), [](const Path &p) { return p.marginal; });
    if (marginalPaths > 0 && static_cast<size_t>(marginalPaths) < paths.size()) {
        std::vector<Path> normal;
        std::vector<Path> marginal;
        for (Path &p : paths)
            (p.marginal ? marginal : normal).push_back(std::move(p));
        std::vector<PathGroup> groups = groupPaths(std::move(normal), policy);
        for (PathGroup &g : groupPaths(std::move(marginal), policy))
            groups.push_back(std::move(g));
        return groups;
    }
    std::vector<PathGroup> groups;
    switch (policy) {
    case GroupingPolicy::Failover:
        for (Path &p : paths) {
            groups.emplace_back();
            groups.back().paths.push_back(std::move(p));
        }
        break;
    case GroupingPolicy::Multibus:
        if (!paths.empty()) {
            groups.emplace_back();
            groups.back().paths = std::move(paths);
        }
        break;
    case GroupingPolicy::GroupBySerial:
        groups = groupBy<std::string>(std::move(paths), [](const Path &p) { return p.serial; });
        break;
    case GroupingPolicy::GroupByNodeName:
        groups =
            groupBy<std::string>(std::move(paths), [](const Path &p) { return p.ids.nodeName; });
        break;
    case GroupingPolicy::GroupByTpg:
        groups =
            groupBy<int>(std::move(paths), [](const Path &p) { return p.ids.targetPortGroup; });
        break;
    case GroupingPolicy::GroupByPrio:
        groups = groupBy<int>(std::move(paths), [](const Path &p) { return p.priority; });
        break;
    }
    orderGroups(groups);
    return groups;
}

std::vector<WwidPaths> byWwid(std::vector<Path> paths) {
    std::map<std::string, std::vector<Path>> by;
    for (Path &p : paths)
        if (!p.wwid.empty())
            by[p.wwid].push_back(std::move(p));
    std::vector<WwidPaths> out;
    out.reserve(by.size());
    for (auto &[wwid, list] : by)
        out.push_back({wwid, std::move(list)});
    return out;
}

Map buildMap(WwidPaths paths, GroupingPolicy policy, std::vector<Path> *rejected) {
    Map m;
    m.wwid = paths.wwid;
    m.alias = paths.wwid;
    for (const Path &p : paths.paths)
        if (p.sizeSectors != 0) {
            m.sizeSectors = p.sizeSectors;
            break;
        }
    std::vector<Path> members;
    members.reserve(paths.paths.size());
    for (Path &p : paths.paths) {
        if (p.sizeSectors != 0 && p.sizeSectors != m.sizeSectors) {
            if (rejected)
                rejected->push_back(std::move(p));
            continue;
        }
        members.push_back(std::move(p));
    }
    m.groups = groupPaths(std::move(members), policy);
    return m;
}

} // namespace mpath::policy
