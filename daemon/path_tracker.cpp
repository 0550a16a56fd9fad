#include "path_tracker.h"

#include "daemon.h"
#include "log.h"
#include "reconciler.h"

#include <cerrno>
#include <mpath/discovery/discovery.h>
#include <mpath/prio/prioritizer.h>

namespace mpathd {

using mpath::Result;
using mpath::discovery::UdevDevice;
using mpath::discovery::UdevPropertyMap;

namespace {

/// One device's udev properties, as an event carried them.
class EventProperties final : public mpath::discovery::UdevProperties {
public:
    EventProperties(std::string name, const UdevPropertyMap &props)
        : name_(std::move(name)), props_(props) {}
    Result<UdevPropertyMap> properties(const std::string &kernelName) const override {
        if (kernelName != name_)
            return mpath::Error{ENOENT, "udev: " + kernelName + " is not known here"};
        return props_;
    }

private:
    std::string name_;
    const UdevPropertyMap &props_;
};

/// A prioritizer's error that says the device did not answer, not how it
/// ranks: I/O errors, timeouts, a device gone or its controller resetting.
bool unreachable(int code) {
    switch (code) {
    case EIO:
    case ETIMEDOUT:
    case ENODEV:
    case ENXIO:
    case EINTR:
    case ECANCELED:
    case ENOTCONN:
    case ENOLINK:
    case EHOSTDOWN:
    case EAGAIN:
    case EBUSY:
        return true;
    default:
        return false;
    }
}

bool startsWith(const std::string &s, std::string_view prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

} // namespace

void PathTracker::configure() {
    filter_ = mpath::policy::BlacklistFilter::fromConfig(daemon_.config());
}

bool PathTracker::candidate(const UdevDevice &d) {
    if (d.subsystem != "block" || d.devtype != "disk" || d.sysname.empty())
        return false;
    for (std::string_view skip : {"dm-", "loop", "ram", "zram", "md", "sr", "nbd"})
        if (startsWith(d.sysname, skip))
            return false;
    return true;
}

bool PathTracker::update(const UdevDevice &device) {
    if (!candidate(device))
        return false;
    auto &paths = daemon_.mutableState().paths;
    mpath::discovery::Options opts;
    const mpath::config::Config &config = daemon_.config();
    opts.uidAttribute = [&config](const mpath::model::Path &p) {
        return config.effective(p).uidAttribute.value;
    };
    mpath::discovery::Discovery discovery(mpath::discovery::Sysfs(daemon_.env().sysfsRoot), opts);
    EventProperties props(device.sysname, device.properties);
    auto found = discovery.discover(device.sysname, props);
    if (!found) {
        logDebug(aboutPath(device.sysname), "not described: " + found.error().message);
        remove(device.sysname);
        return false;
    }
    auto [it, added] = paths.try_emplace(device.sysname);
    PathRecord &rec = it->second;
    if (added)
        rec.generation = daemon_.mutableState().nextGeneration++;
    const mpath::model::Path before = rec.path;
    mpath::model::Path path = std::move(found->path);
    // What the daemon learnt keeps: discovery describes the device only.
    path.priority = added ? -1 : before.priority;
    path.checkerState = before.checkerState;
    path.dmState = before.dmState;
    path.failCount = before.failCount;
    if (!added && before.wwid != path.wwid)
        unindex(device.sysname, before.wwid);
    if (!rec.changedWwid.empty()) {
        // recheck_wwid found another LUN behind it: it stays out of every
        // map until udev, after the rescan, describes it anew.
        if (path.wwid == rec.changedWwid || path.wwid != before.wwid) {
            logNotice(aboutPath(device.sysname),
                      "udev now gives it WWID " + path.wwid + ": it joins that WWID's map, if any");
            rec.changedWwid.clear();
        } else {
            logDebug(aboutPath(device.sysname),
                     "udev still gives it WWID " + path.wwid + ", the device " + rec.changedWwid);
        }
    }
    auto &byWwid = daemon_.mutableState().pathsByWwid;
    byWwid[path.wwid].insert(device.sysname);
    rec.path = std::move(path);
    rec.properties = device.properties;
    rec.hasUdevData = !device.properties.empty();
    rec.devnode =
        device.devnode.empty() ? daemon_.env().devDirectory + "/" + device.sysname : device.devnode;
    if (added)
        logInfo(aboutPath(device.sysname),
                "wwid " + (rec.path.wwid.empty() ? std::string("none") : rec.path.wwid));
    else if (before.sizeSectors != rec.path.sizeSectors)
        logNotice(aboutPath(device.sysname), "size changed from " +
                                                 std::to_string(before.sizeSectors) + " to " +
                                                 std::to_string(rec.path.sizeSectors) + " sectors");
    prioritize(device.sysname);
    return true;
}

void PathTracker::remove(const std::string &kernelName) {
    auto &paths = daemon_.mutableState().paths;
    auto it = paths.find(kernelName);
    if (it == paths.end())
        return;
    logInfo(aboutPath(kernelName, it->second.mapWwid), "removed");
    unindex(kernelName, it->second.path.wwid);
    paths.erase(it); // its check timer goes with it; running jobs answer to no one
}

void PathTracker::unindex(const std::string &kernelName, const std::string &wwid) {
    auto &byWwid = daemon_.mutableState().pathsByWwid;
    if (auto w = byWwid.find(wwid); w != byWwid.end()) {
        w->second.erase(kernelName);
        if (w->second.empty())
            byWwid.erase(w);
    }
}

std::optional<std::string> PathTracker::excluded(const std::string &kernelName) const {
    const auto &paths = daemon_.state().paths;
    auto it = paths.find(kernelName);
    if (it == paths.end())
        return std::string("not a known path");
    if (!filter_)
        return std::string("no configuration yet");
    const PathRecord &rec = it->second;
    return mpath::policy::excluded(*filter_, daemon_.config().effective(rec.path), rec.path,
                                   rec.hasUdevData ? &rec.properties : nullptr);
}

void PathTracker::reprioritize(const std::string &kernelName) {
    auto &paths = daemon_.mutableState().paths;
    auto it = paths.find(kernelName);
    if (it == paths.end() || it->second.portReading)
        return; // the read under way ranks it
    PathRecord &rec = it->second;
    // Reading sysfs can wait on the kernel's locks while udev works through
    // a storm of events (every map reloaded by a reconfigure): off the
    // loop, so that queries and path failures are not held up meanwhile.
    mpath::model::Path probe;
    probe.kernelName = kernelName;
    probe.accessState = rec.path.accessState;
    probe.preferred = rec.path.preferred;
    probe.anaState = rec.path.anaState;
    rec.portReading = true;
    daemon_.ioExecutor().run<mpath::model::Path>(
        "port " + kernelName, prioDeadline_,
        [probe, root = daemon_.env().sysfsRoot]() mutable -> Result<mpath::model::Path> {
            mpath::discovery::Discovery discovery{mpath::discovery::Sysfs(root)};
            if (auto r = discovery.refreshPortState(probe); !r)
                return r.error();
            return probe;
        },
        [this, kernelName, generation = rec.generation](Result<mpath::model::Path> r) {
            auto &all = daemon_.mutableState().paths;
            auto p = all.find(kernelName);
            if (p == all.end() || p->second.generation != generation)
                return;
            PathRecord &now = p->second;
            now.portReading = false;
            // Not read (the device went, the lane was busy): the state
            // last read stands.
            if (r && (r->accessState != now.path.accessState ||
                      r->preferred != now.path.preferred || r->anaState != now.path.anaState)) {
                now.path.accessState = r->accessState;
                now.path.preferred = r->preferred;
                now.path.anaState = r->anaState;
                logInfo(aboutPath(kernelName, now.mapWwid),
                        "port state now " +
                            (now.path.anaState.empty() ? now.path.accessState : now.path.anaState));
            }
            prioritize(kernelName, false);
        });
}

void PathTracker::prioritize(const std::string &kernelName, bool always) {
    auto &paths = daemon_.mutableState().paths;
    auto it = paths.find(kernelName);
    if (it == paths.end() || it->second.prioPending)
        return;
    if (excluded(kernelName))
        return; // no commands to devices that are left alone
    PathRecord &rec = it->second;
    const auto eff = daemon_.config().effective(rec.path);
    const mpath::policy::PathPolicy policy = mpath::policy::choosePathPolicy(eff, rec.path);
    mpath::prio::Context context = daemon_.env().prio;
    auto prioritizer = mpath::prio::Prioritizer::create(
        policy.prio, policy.prioArgs, policy.fallbackPrio, policy.fallbackPrioArgs, context);
    if (!prioritizer) {
        rec.prioNote = "prioritizer " + policy.prio + " not used: " + prioritizer.error().message;
        rec.path.priority = -1;
        return;
    }
    const std::string name = policy.prio;
    // The answer finds the path by name: it may have gone meanwhile, and
    // another device may have its name now.
    auto record = [this, kernelName, name, generation = rec.generation](Result<int> r) {
        auto &all = daemon_.mutableState().paths;
        auto p = all.find(kernelName);
        if (p == all.end() || p->second.generation != generation)
            return false;
        PathRecord &rec = p->second;
        rec.prioPending = false;
        const bool wasRanked = rec.ranked;
        rec.ranked = true;
        const int before = rec.path.priority;
        if (r) {
            rec.path.priority = *r;
            rec.prioNote.clear();
        } else if (wasRanked && before >= 0 && unreachable(r.code())) {
            // The device did not answer (its link is down, its controller
            // resets): that says nothing about its rank. multipath-tools
            // keeps the old priority when the kernel has the device
            // offline; this keeps it for any such error, so that a fault
            // is not also a regroup of the map while its paths fail.
            rec.prioNote = "prioritizer " + name + ": " + r.error().message + "; priority " +
                           std::to_string(before) + " kept";
            logDebug(aboutPath(kernelName, rec.mapWwid), rec.prioNote);
        } else {
            rec.path.priority = -1;
            rec.prioNote = name == "alua" && r.code() == EOPNOTSUPP
                               ? "prioritizer alua: the device reports no ALUA support"
                               : "prioritizer " + name + ": " + r.error().message;
            logDebug(aboutPath(kernelName, rec.mapWwid), rec.prioNote);
        }
        if (before != rec.path.priority)
            logInfo(aboutPath(kernelName, rec.mapWwid),
                    "priority " + std::to_string(rec.path.priority));
        return before != rec.path.priority;
    };
    // A new rank may regroup the map of the path's WWID.
    auto regroup = [this, wwid = rec.path.wwid] { daemon_.reconciler().schedule(wwid); };
    if (!(*prioritizer)->needsIo()) {
        if (record((*prioritizer)->job(rec.path)()) && !always)
            regroup();
        return;
    }
    rec.prioPending = true;
    mpath::prio::startPriority(daemon_.ioExecutor(), **prioritizer, rec.path, prioDeadline_,
                               [record, always, regroup](Result<int> r) {
                                   if (record(std::move(r)) || always)
                                       regroup();
                               });
}

bool PathTracker::prioritiesPending(const std::set<std::string> *wwids) const {
    const State &state = daemon_.state();
    auto pending = [](const PathRecord &rec) {
        return rec.prioPending && !rec.ranked; // re-ranks do not hold plans up
    };
    if (!wwids) {
        for (const auto &[name, rec] : state.paths)
            if (pending(rec))
                return true;
        return false;
    }
    for (const auto &wwid : *wwids)
        if (auto w = state.pathsByWwid.find(wwid); w != state.pathsByWwid.end())
            for (const auto &name : w->second)
                if (auto it = state.paths.find(name);
                    it != state.paths.end() && pending(it->second))
                    return true;
    return false;
}

mpath::policy::PlanInput PathTracker::planInput(const std::set<std::string> *wwids) const {
    mpath::policy::PlanInput in;
    const State &state = daemon_.state();
    std::vector<const std::pair<const std::string, PathRecord> *> chosen;
    if (wwids) {
        for (const auto &wwid : *wwids)
            if (auto w = state.pathsByWwid.find(wwid); w != state.pathsByWwid.end())
                for (const auto &name : w->second)
                    if (auto it = state.paths.find(name); it != state.paths.end())
                        chosen.push_back(&*it);
        std::sort(chosen.begin(), chosen.end(),
                  [](auto *a, auto *b) { return a->first < b->first; });
    } else {
        for (const auto &entry : state.paths)
            chosen.push_back(&entry);
    }
    for (const auto *entry : chosen) {
        const std::string &name = entry->first;
        const PathRecord &rec = entry->second;
        if (rec.adminRemoved || !rec.changedWwid.empty())
            continue;
        // Group order follows priorities only: a path going down or coming
        // back is a message to the kernel (and failback's business), never
        // a reload that reorders the groups.
        mpath::model::Path p = rec.path;
        p.checkerState = mpath::model::CheckerState::Unchecked;
        p.deviceState = mpath::model::DeviceState::Running;
        in.paths.push_back(std::move(p));
        if (rec.hasUdevData)
            in.udevProperties.emplace(name, rec.properties);
        if (!rec.prioNote.empty())
            in.priorityNotes.emplace(name, rec.prioNote);
    }
    return in;
}

} // namespace mpathd
