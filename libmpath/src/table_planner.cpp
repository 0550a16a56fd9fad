#include "mpath/table_planner.h"

#include "mpath/blacklist_filter.h"
#include "mpath/find_multipaths.h"
#include "mpath/grouping.h"
#include "mpath/names.h"
#include "mpath/table.h"
#include "mpath/table_settings.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

namespace mpath {

namespace {

bool listed(const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

std::string prioritizerError(const std::string &name, int r) {
    if (name == "alua" && r == -EOPNOTSUPP)
        return "prioritizer alua: the device reports no ALUA support";
    return "prioritizer " + name + ": " + std::strerror(-r);
}

struct PathPolicy {
    std::string prio;
    std::string prioArgs;
    std::string checker;
};

/// detect_prio and detect_checker, as in multipath-tools: a path whose
/// device reports ALUA support gets the sysfs prioritizer when the kernel
/// shows its access_state (alua otherwise) and the tur checker, over what
/// the configuration names.
PathPolicy pathPolicy(const EffectiveSettings &eff, const Path &p, const Sysfs &sysfs) {
    PathPolicy pp{eff.prio.value, eff.prioArgs.value, eff.pathChecker.value};
    if (p.tpgs <= 0)
        return pp;
    if (eff.detectPrio.value) {
        // The attribute is there without a handler too, but cannot be read.
        std::string state;
        pp.prio = sysfs.readAttribute("block/" + p.kernelName + "/device/access_state", state) == 0
                      ? "sysfs"
                      : "alua";
        pp.prioArgs.clear();
    }
    if (eff.detectChecker.value)
        pp.checker = "tur";
    return pp;
}

/// The hardware handler the kernel will use. A handler the kernel has
/// attached to a path stays, whatever the table says (dm-multipath keeps
/// it since Linux 4.3), and the table reads back with its name: the plan
/// names it too, or a live map would never equal its plan. With none
/// attached, every path reporting ALUA support turns the built-in "no
/// handler" into alua, and a path without it turns alua off.
void chooseHandler(const EffectiveSettings &eff, Map &map) {
    std::string attached;
    bool allAlua = true, any = false;
    for (const auto &g : map.groups)
        for (const auto &p : g.paths) {
            any = true;
            allAlua = allAlua && p.tpgs > 0;
            if (attached.empty())
                attached = p.attachedHandler;
        }
    if (!attached.empty()) {
        if (map.hwHandler != attached)
            map.hwHandlerArgs.clear();
        map.hwHandler = attached;
        return;
    }
    if (any && allAlua && map.hwHandler.empty() && eff.hardwareHandler.origin == Origin::Builtin) {
        map.hwHandler = "alua";
        map.hwHandlerArgs.clear();
    } else if (!allAlua && map.hwHandler == "alua") {
        map.hwHandler.clear();
        map.hwHandlerArgs.clear();
    }
}

} // namespace

Plan TablePlanner::plan(const Config &config, const Sysfs &sysfs, const UdevProperties &udev,
                        const PlanOptions &options) {
    Plan out;
    DiscoveryOptions dopts;
    dopts.uidAttribute = [&config](const Path &p) {
        return config.effective(p).uidAttribute.value;
    };
    Discovery discovery(sysfs, dopts);
    std::vector<Path> found = discovery.discoverAll(udev, &out.issues);

    const BlacklistFilter filter = BlacklistFilter::fromConfig(config);
    const EffectiveGlobals globals = config.effectiveGlobals();
    std::vector<Path> kept;
    std::map<std::string, std::string> prioProblems; // kernel name -> what went wrong
    for (auto &p : found) {
        const EffectiveSettings eff = config.effective(p);
        UdevPropertyMap props;
        const bool haveProps = udev.properties(p.kernelName, props) == 0;
        BlacklistVerdict v =
            filter.check(p, haveProps ? &props : nullptr, haveProps ? eff.uidAttribute.value : "");
        if (v.blacklisted) {
            out.skipped.push_back({p.kernelName, p.wwid, v.toString()});
            continue;
        }
        if (p.wwid.empty()) {
            out.skipped.push_back({p.kernelName, "", "no WWID"});
            continue;
        }
        const PathPolicy policy = pathPolicy(eff, p, sysfs);
        std::string err;
        auto prio = Prioritizer::create(policy.prio, policy.prioArgs, options.prioritizers, &err);
        if (prio) {
            int r = prio->priority(p);
            p.priority = r >= 0 ? r : -1;
            if (r < 0)
                prioProblems[p.kernelName] = prioritizerError(policy.prio, r);
        } else {
            prioProblems[p.kernelName] = "prioritizer " + policy.prio + " not used: " + err;
        }
        kept.push_back(std::move(p));
    }

    for (auto &wp : Grouping::byWwid(std::move(kept))) {
        bool known = listed(options.knownWwids, wp.wwid);
        for (const auto &m : config.multipaths)
            known = known || m.wwid == wp.wwid;
        FindMultipathsInput in;
        in.mode = globals.findMultipaths.value;
        in.wwid = wp.wwid;
        in.knownWwid = known;
        in.pathCount = static_cast<unsigned>(wp.paths.size());
        FindMultipathsDecision d = FindMultipathsPolicy::decide(in);
        if (d != FindMultipathsDecision::Multipath) {
            const std::string why =
                d == FindMultipathsDecision::Wait
                    ? std::string("would wait for a second path (find_multipaths ") +
                          toString(in.mode) + ")"
                    : std::string("not multipathed (find_multipaths ") + toString(in.mode) + ")";
            for (const auto &p : wp.paths)
                out.skipped.push_back({p.kernelName, p.wwid, why});
            continue;
        }

        const EffectiveSettings eff = config.effective(wp.paths.front());
        PlannedMap pm;
        pm.grouping = eff.pathGroupingPolicy.value;
        const PathPolicy policy = pathPolicy(eff, wp.paths.front(), sysfs);
        pm.pathChecker = policy.checker;
        pm.prio = policy.prio;
        std::vector<Path> rejected;
        pm.map = Grouping::buildMap(std::move(wp), pm.grouping, &rejected);
        for (const auto &p : rejected)
            out.skipped.push_back({p.kernelName, p.wwid, "its size differs from the map's"});
        for (const auto &g : pm.map.groups)
            for (const auto &p : g.paths)
                if (auto it = prioProblems.find(p.kernelName); it != prioProblems.end())
                    pm.notes.push_back(p.kernelName + ": " + it->second + ", the path ranks -1");

        std::string name;
        (void)Names::mapName(config, eff, pm.map.wwid, nullptr, name);
        if (eff.userFriendlyNames.value && eff.alias.value.empty())
            for (const auto &[alias, wwid] : options.bindings)
                if (wwid == pm.map.wwid)
                    name = alias;
        pm.map.alias = name.empty() ? pm.map.wwid : name;

        TableSettings::apply(eff, globals.dmTarget.value, pm.map, &pm.notes);
        chooseHandler(eff, pm.map);
        std::string why;
        if (Table::buildLine(pm.map, pm.table, &why) < 0) {
            for (const auto &g : pm.map.groups)
                for (const auto &p : g.paths)
                    out.skipped.push_back({p.kernelName, p.wwid, "no valid table: " + why});
            continue;
        }
        out.maps.push_back(std::move(pm));
    }
    return out;
}

} // namespace mpath
