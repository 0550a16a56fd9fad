#include "mpath/policy/planner.h"

#include "mpath/dm/table.h"
#include "mpath/policy/find_multipaths.h"
#include "mpath/policy/grouping.h"
#include "mpath/policy/table_settings.h"

#include <algorithm>

namespace mpath::policy {

using config::Config;
using config::EffectiveSettings;
using config::Origin;
using model::Map;
using model::Path;

namespace {

/// The hardware handler the kernel will use. A handler the kernel has
/// attached to a path stays, whatever the table says (dm-multipath keeps it
/// since Linux 4.3), and the table reads back with its name: the plan names
/// it too, or a live map would never equal its plan. With none attached,
/// every path reporting ALUA support turns the built-in "no handler" into
/// alua, and a path without it turns alua off.
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

PathPolicy choosePathPolicy(const EffectiveSettings &eff, const Path &p) {
    PathPolicy pp{eff.prio.value, eff.prioArgs.value, eff.pathChecker.value, {}, {}};
    if (p.transport == model::Transport::Nvme) {
        // As multipath-tools: ana for a controller that reports ANA; one
        // that does not answers the log page with an error, and the
        // configured prioritizer ranks it.
        if (eff.detectPrio.value && pp.prio != "ana") {
            pp.fallbackPrio = pp.prio;
            pp.fallbackPrioArgs = pp.prioArgs;
            pp.prio = "ana";
            pp.prioArgs.clear();
        }
        return pp;
    }
    if (p.tpgs <= 0)
        return pp;
    if (eff.detectPrio.value) {
        pp.prio = p.accessState.empty() ? "alua" : "sysfs";
        pp.prioArgs.clear();
    }
    if (eff.detectChecker.value)
        pp.checker = "tur";
    return pp;
}

std::optional<std::string> excluded(const BlacklistFilter &filter, const EffectiveSettings &eff,
                                    const Path &p, const discovery::UdevPropertyMap *props) {
    BlacklistVerdict v = filter.check(p, props, props ? eff.uidAttribute.value : "");
    if (v.blacklisted)
        return v.toString();
    if (p.wwid.empty())
        return "no WWID";
    return std::nullopt;
}

Plan plan(const Config &config, const PlanInput &input) {
    Plan out;
    out.issues = input.issues;
    const BlacklistFilter filter = BlacklistFilter::fromConfig(config);
    const config::EffectiveGlobals globals = config.effectiveGlobals();

    std::vector<Path> kept;
    for (const Path &p : input.paths) {
        const EffectiveSettings eff = config.effective(p);
        auto props = input.udevProperties.find(p.kernelName);
        if (auto why = excluded(filter, eff, p,
                                props == input.udevProperties.end() ? nullptr : &props->second)) {
            out.skipped.push_back({p.kernelName, p.wwid, *why});
            continue;
        }
        kept.push_back(p);
    }

    Namer namer(config, input.bindings);
    for (auto &wp : byWwid(std::move(kept))) {
        bool known = input.knownWwids.count(wp.wwid) > 0;
        for (const auto &m : config.multipaths)
            known = known || m.wwid == wp.wwid;
        FindMultipathsInput in;
        in.mode = globals.findMultipaths.value;
        in.wwid = wp.wwid;
        in.knownWwid = known;
        in.pathCount = static_cast<unsigned>(wp.paths.size());
        FindMultipathsDecision d = decideFindMultipaths(in);
        if (d != FindMultipathsDecision::Multipath) {
            const std::string why = d == FindMultipathsDecision::Wait
                                        ? "would wait for a second path (find_multipaths " +
                                              std::string(config::toString(in.mode)) + ")"
                                        : "not multipathed (find_multipaths " +
                                              std::string(config::toString(in.mode)) + ")";
            for (const auto &p : wp.paths)
                out.skipped.push_back({p.kernelName, p.wwid, why});
            continue;
        }

        const EffectiveSettings eff = config.effective(wp.paths.front());
        PlannedMap pm;
        pm.grouping = eff.pathGroupingPolicy.value;
        pm.skipKpartx = eff.skipKpartx.value;
        if (!eff.maxSectorsKb.value.off)
            pm.maxSectorsKb = eff.maxSectorsKb.value.value;
        if (!eff.ghostDelay.value.off)
            pm.ghostDelay = eff.ghostDelay.value.value;
        pm.sanPathErr = sanPathErrSettings(eff, globals.maxPollingInterval.value);
        if (const SanPathErrSettings &e = pm.sanPathErr;
            !e.enabled() && (e.threshold > 0 || e.forgetRate > 0 || e.recoveryTime > 0))
            pm.notes.push_back("shaky paths are not held: san_path_err_threshold, "
                               "san_path_err_forget_rate and san_path_err_recovery_time (or "
                               "delay_watch_checks and delay_wait_checks) take effect only "
                               "together");
        pm.marginalPath = marginalPathSettings(eff);
        if (pm.marginalPath.enabled() && pm.sanPathErr.enabled()) {
            pm.notes.push_back("shaky paths are sampled for I/O errors (marginal_path_*), so "
                               "san_path_err_* and delay_*_checks are not used");
            pm.sanPathErr = {};
        } else if (pm.marginalPath.partial()) {
            pm.notes.push_back("paths are not sampled for I/O errors: "
                               "marginal_path_double_failed_time, marginal_path_err_sample_time, "
                               "marginal_path_err_rate_threshold and "
                               "marginal_path_err_recheck_gap_time take effect only together");
        }
        const PathPolicy policy = choosePathPolicy(eff, wp.paths.front());
        pm.pathChecker = policy.checker;
        pm.prio = policy.prio;
        std::vector<Path> rejected;
        pm.map = buildMap(std::move(wp), pm.grouping, &rejected);
        for (const auto &p : rejected)
            out.skipped.push_back({p.kernelName, p.wwid, "its size differs from the map's"});
        for (const auto &g : pm.map.groups)
            for (const auto &p : g.paths)
                if (auto it = input.priorityNotes.find(p.kernelName);
                    it != input.priorityNotes.end())
                    pm.notes.push_back(p.kernelName + ": " + it->second + ", the path ranks -1");

        {
            // Said only where they apply: a map of FC, iSCSI, SAS or NVMe
            // over fabrics paths.
            std::vector<std::string> timeoutNotes;
            pm.timeouts = transportTimeouts(eff, globals.pollingInterval.value, &timeoutNotes);
            bool transported = false;
            for (const auto &g : pm.map.groups)
                for (const auto &p : g.paths)
                    transported =
                        transported || p.transport == model::Transport::Iscsi ||
                        p.transport == model::Transport::FibreChannel ||
                        p.transport == model::Transport::Sas ||
                        (p.transport == model::Transport::Nvme && !p.ids.transportPort.empty());
            if (transported) {
                pm.notes.insert(pm.notes.end(), timeoutNotes.begin(), timeoutNotes.end());
                pm.timeouts.notes = std::move(timeoutNotes);
            }
        }
        applyTableSettings(eff, globals.dmTarget.value, pm.map, &pm.notes);
        chooseHandler(eff, pm.map);
        auto table = dm::buildTableLine(pm.map);
        if (!table) {
            for (const auto &g : pm.map.groups)
                for (const auto &p : g.paths)
                    out.skipped.push_back(
                        {p.kernelName, p.wwid, "no valid table: " + table.error().message});
            continue;
        }
        // Named last: a map that is not made takes no alias.
        pm.name = namer.name(eff, pm.map.wwid);
        pm.map.alias = pm.name.name;
        if (!pm.name.note.empty())
            pm.notes.push_back("name: " + pm.name.note);
        pm.table = std::move(*table);
        out.maps.push_back(std::move(pm));
    }
    out.bindings = namer.bindings();
    return out;
}

} // namespace mpath::policy
