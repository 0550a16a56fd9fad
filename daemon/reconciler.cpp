#include "reconciler.h"

#include "checker_scheduler.h"
#include "daemon.h"
#include "dm_ops.h"
#include "log.h"
#include "map_policies.h"
#include "path_tracker.h"
#include "state_files.h"

#include <algorithm>
#include <fstream>
#include <linux/magic.h>
#include <mpath/dm/table.h>
#include <set>
#include <sys/vfs.h>
#include <utility>

namespace mpathd {

using mpath::Result;
using mpath::model::CheckerState;
using mpath::model::Map;
using mpath::policy::PlannedMap;

namespace {

/// A failed create or reload is tried again after this, doubling with
/// each failure up to kRetryMax: a kernel that refuses a table is asked
/// again without a log line a second.
constexpr std::chrono::milliseconds kRetry{1000};
constexpr std::chrono::milliseconds kRetryMax{64000};
/// How long planning waits for priorities that devices have not answered.
constexpr std::chrono::seconds kPriorityWait{6};

/// "0 <size> <target> <params>" as one target line.
std::vector<mpath::dm::TargetLine> targetsOf(const std::string &line) {
    std::vector<mpath::dm::TargetLine> out;
    size_t a = line.find(' ');
    size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
    size_t c = b == std::string::npos ? b : line.find(' ', b + 1);
    if (c == std::string::npos)
        return out;
    out.push_back({std::stoull(line.substr(0, a)), std::stoull(line.substr(a + 1, b - a - 1)),
                   line.substr(b + 1, c - b - 1), line.substr(c + 1)});
    return out;
}

/// The one target line of \a targets as "0 <size> <target> <params>".
std::string tableOf(const std::vector<mpath::dm::TargetLine> &targets) {
    if (targets.empty())
        return {};
    const auto &t = targets.front();
    return std::to_string(t.start) + " " + std::to_string(t.length) + " " + t.type + " " + t.params;
}

/// A group's paths with the arguments each is given, in one order. The
/// group's arguments are its first path's as read back, so they are not
/// compared on their own: the first path may be another.
std::vector<std::pair<dev_t, std::vector<std::string>>> pathSet(const mpath::model::PathGroup &g) {
    std::vector<std::pair<dev_t, std::vector<std::string>>> out;
    out.reserve(g.paths.size());
    for (const auto &p : g.paths)
        out.emplace_back(p.devt, p.pathArgs.empty() ? g.pathArgs : p.pathArgs);
    std::sort(out.begin(), out.end());
    return out;
}

/// The parts of a table the kernel keeps as given: features, handler,
/// groups in order with selector and arguments, and each group's paths.
/// Not the order of the paths in a group: another daemon lists them as it
/// found them, and a reload only for that would suspend I/O for nothing
/// (multipath-tools compares groups by their paths likewise). Not the
/// group I/O goes to now (the kernel prints it as the initial group), nor
/// any state.
bool sameStructure(const Map &a, const Map &b) {
    if (a.features != b.features || a.hwHandler != b.hwHandler ||
        a.hwHandlerArgs != b.hwHandlerArgs || a.groups.size() != b.groups.size())
        return false;
    for (size_t g = 0; g < a.groups.size(); ++g) {
        const auto &x = a.groups[g];
        const auto &y = b.groups[g];
        if (x.selector != y.selector || x.selectorArgs != y.selectorArgs ||
            x.pathArgs.size() != y.pathArgs.size() || x.paths.size() != y.paths.size())
            return false;
        if (pathSet(x) != pathSet(y))
            return false;
    }
    return true;
}

bool down(CheckerState s) {
    return s == CheckerState::Down || s == CheckerState::Timeout;
}

} // namespace

bool Reconciler::sameTable(const LiveMap &live, const PlannedMap &planned) {
    auto want = mpath::dm::parseTableLine(planned.table);
    if (!want)
        return false;
    return live.map.target == want->target && live.map.sizeSectors == want->sizeSectors &&
           sameStructure(live.map, *want);
}

void Reconciler::schedule() {
    planAll_ = true;
    arm();
}

void Reconciler::schedule(const std::string &wwid) {
    if (wwid.empty())
        planAll_ = true;
    else if (!planAll_)
        toPlan_.insert(wwid);
    arm();
}

void Reconciler::arm() {
    if (daemon_.stopping())
        return;
    if (adopting_) {
        planAfterAdoption_ = true; // the maps there are not all read yet
        return;
    }
    // The window slides: each event gives the next one `coalesce` more to
    // come, up to `coalesceCap` after the first.
    const auto now = daemon_.loop().now();
    if (!timer_)
        windowStart_ = now;
    const auto due =
        std::min(now + daemon_.env().coalesce, windowStart_ + daemon_.env().coalesceCap);
    if (timer_ && due <= due_)
        return;
    due_ = due;
    timer_ = daemon_.loop().addTimer(due - now, [this] {
        timer_.reset();
        pass();
    });
}

void Reconciler::run() {
    timer_.reset();
    planAll_ = true;
    pass();
}

void Reconciler::park(MapRecord &rec, mpath::dm::UdevCookie cookie) {
    if (!cookie)
        return; // no udev to wait for
    const auto seen = std::exchange(rec.udevSeen, std::nullopt);
    if (seen == cookie.base()) {
        // Its uevent came before the loop learnt that the call ended.
        logDebug(aboutMap(rec.name, rec.wwid), "udev was done with this change already");
        daemon_.dmOps().releaseCookie(rec.wwid, cookie, false);
        return;
    }
    rec.udevCookie = cookie;
    // An entry left by a map of this WWID that was forgotten while parked:
    // its cookie is released now, as nothing else would.
    if (auto [it, added] = parked_.try_emplace(rec.wwid, cookie); !added) {
        if (it->second != cookie)
            daemon_.dmOps().releaseCookie(rec.wwid, it->second, true);
        it->second = cookie;
    }
    const std::string wwid = rec.wwid;
    rec.udevTimer = daemon_.loop().addTimer(kUdevWait, [this, wwid] {
        auto &maps = daemon_.mutableState().maps;
        auto it = maps.find(wwid);
        if (it == maps.end() || !it->second.parked())
            return;
        logWarning(aboutMap(it->second.name, wwid), "udev did not process its uevent in " +
                                                        std::to_string(kUdevWait.count()) +
                                                        " s: going on without it");
        unpark(it->second, true);
    });
}

void Reconciler::unpark(MapRecord &rec, bool force) {
    const mpath::dm::UdevCookie cookie = rec.udevCookie;
    rec.udevCookie = {};
    rec.udevTimer.reset();
    parked_.erase(rec.wwid);
    // Its semaphore goes (at once: udev completed it, or it is forced).
    daemon_.dmOps().releaseCookie(rec.wwid, cookie, force);
    if (rec.dirty && !rec.busy) {
        rec.dirty = false;
        schedule(rec.wwid);
    }
    checkSettled();
}

void Reconciler::udevEvent(const std::string &wwid, uint32_t cookie) {
    auto &maps = daemon_.mutableState().maps;
    auto it = maps.find(wwid);
    if (it == maps.end())
        return;
    if (!it->second.parked()) {
        // Perhaps that of a create or reload whose end the loop has not
        // learnt yet: it is not to be waited for then.
        it->second.udevSeen = static_cast<uint16_t>(cookie & 0xffff);
        return;
    }
    if (it->second.udevCookie.base() != (cookie & 0xffff))
        return;
    logDebug(aboutMap(it->second.name, wwid), "udev is done with its last change");
    unpark(it->second, false);
}

bool Reconciler::anyParked() const {
    // Asked at every end of a change, so it looks at the first entry only:
    // a map still parked there answers. An entry of a map forgotten while
    // parked is dropped, and its cookie released, when it comes first;
    // that is at the latest when the maps parked before it are done.
    const auto &maps = daemon_.state().maps;
    while (!parked_.empty()) {
        auto it = parked_.begin();
        auto rec = maps.find(it->first);
        if (rec != maps.end() && rec->second.udevCookie == it->second)
            return true;
        daemon_.dmOps().releaseCookie(it->first, it->second, true);
        parked_.erase(it);
    }
    return false;
}

bool Reconciler::filesBusy() const {
    return daemon_.stateFiles().busy();
}

void Reconciler::filesLoaded() {
    if (!waitingForFiles_)
        return;
    waitingForFiles_ = false;
    run();
}

void Reconciler::adopt(std::function<void()> whenDone) {
    adopting_ = true;
    ++inFlight_;
    // Planning waits for every map to be read: a pass in between would
    // take a map not read yet for one to create or reload.
    auto done = [this, whenDone = std::move(whenDone)] {
        adopting_ = false;
        if (whenDone)
            whenDone();
        if (planAfterAdoption_) {
            planAfterAdoption_ = false;
            schedule();
        }
    };
    daemon_.dmOps().list(
        [this, done = std::move(done)](Result<std::vector<mpath::dm::Device>> devices) mutable {
            --inFlight_;
            if (!devices) {
                // Planning now would make again maps that are there.
                logError({}, "cannot list device-mapper maps: " + devices.error().message +
                                 "; trying again in 1 s");
                ++inFlight_;
                adoptRetry_ = daemon_.loop().addTimer(kRetry, [this, done]() mutable {
                    adoptRetry_.reset();
                    --inFlight_;
                    adopting_ = false;
                    adopt(std::move(done));
                });
                return;
            }
            auto remaining = std::make_shared<size_t>(0);
            auto finishOne = [remaining, done]() {
                if (--*remaining == 0)
                    done();
            };
            std::vector<mpath::dm::Device> ours;
            for (const auto &d : *devices)
                if (d.uuid.rfind("mpath-", 0) == 0 && d.uuid.size() > 6)
                    ours.push_back(d);
            if (ours.empty()) {
                done();
                return;
            }
            *remaining = ours.size();
            for (const auto &d : ours) {
                const std::string wwid = d.uuid.substr(6);
                MapRecord &rec = daemon_.mutableState().maps[wwid];
                rec.wwid = wwid;
                rec.name = d.name;
                rec.live = true;
                daemon_.publishStatus();
                rec.target = d.targetType;
                rec.devt = d.devt;
                rec.suspended = d.suspended;
                ++inFlight_;
                daemon_.dmOps().read(wwid, d.name, [this, wwid, finishOne](Result<LiveMap> live) {
                    --inFlight_;
                    auto &maps = daemon_.mutableState().maps;
                    auto it = maps.find(wwid);
                    if (it != maps.end()) {
                        if (live) {
                            it->second.liveMap = live->map;
                            it->second.liveStatus = live->status;
                            takePathStates(wwid, live->map);
                            recordWwid(it->second.name, wwid);
                            logInfo(aboutMap(it->second.name, wwid), "adopted");
                        } else {
                            logWarning(aboutMap(it->second.name, wwid),
                                       "cannot read it: " + live.error().message);
                        }
                    }
                    finishOne();
                });
            }
        });
}

void Reconciler::pass() {
    if (daemon_.stopping())
        return;
    if (adopting_) {
        planAfterAdoption_ = true;
        return;
    }
    if (!daemon_.stateFiles().loaded()) {
        // The first read of the wwids and bindings files is under way: it
        // plans again when it is done.
        waitingForFiles_ = true;
        return;
    }
    PathTracker &paths = daemon_.paths();
    if (paths.prioritiesPending(planAll_ ? nullptr : &toPlan_)) {
        const auto now = daemon_.loop().now();
        if (!waitingForPriorities_) {
            waitingForPriorities_ = true;
            waitingSince_ = now;
        }
        if (now - waitingSince_ < kPriorityWait) {
            windowStart_ = now;
            due_ = now + std::chrono::milliseconds(100);
            timer_ = daemon_.loop().addTimer(std::chrono::milliseconds(100), [this] {
                timer_.reset();
                pass();
            });
            return;
        }
    }
    waitingForPriorities_ = false;

    State &state = daemon_.mutableState();
    // Only the WWIDs whose paths changed, unless every map is to be planned
    // (a new configuration, the state files, an administrator's request):
    // a map is planned from its own paths alone, so the others' plans stand.
    const bool all = planAll_;
    const std::set<std::string> only = std::move(toPlan_);
    planAll_ = false;
    toPlan_.clear();
    auto inPass = [&](const std::string &wwid) { return all || only.count(wwid) > 0; };

    mpath::policy::PlanInput input = paths.planInput(all ? nullptr : &only);
    // A path udev released after find_multipaths smart waited in vain
    // belongs to whoever took it since: no map takes it back.
    std::erase_if(input.paths, [&](const mpath::model::Path &p) {
        auto it = state.paths.find(p.kernelName);
        return it != state.paths.end() && it->second.releasedByUdev();
    });
    // The files as last read, off the loop (StateFiles).
    // An existing map counts as known.
    const auto &listed = daemon_.stateFiles().knownWwids();
    if (all) {
        input.knownWwids = listed;
        for (const auto &[wwid, rec] : state.maps)
            if (rec.live)
                input.knownWwids.insert(wwid);
    } else {
        for (const auto &wwid : only) {
            auto map = state.maps.find(wwid);
            if (listed.count(wwid) || (map != state.maps.end() && map->second.live))
                input.knownWwids.insert(wwid);
        }
    }
    input.bindings = daemon_.stateFiles().bindings();
    // An alias the other maps' plans hand out is theirs, even before the
    // bindings file holds it (a map is bound before it is made, and the
    // file as known here holds every binding made).
    if (!all)
        for (auto it = newAliases_.begin(); it != newAliases_.end();) {
            auto map = state.maps.find(*it);
            if (map == state.maps.end() || map->second.live || !map->second.planned ||
                map->second.planned->name.newAlias.empty()) {
                it = newAliases_.erase(it); // made or forgotten since
                continue;
            }
            if (!only.count(*it) && !input.bindings.aliasFor(*it))
                (void)input.bindings.add(map->second.planned->name.newAlias, *it);
            ++it;
        }

    mpath::policy::Plan plan = mpath::policy::plan(daemon_.config(), input);
    ++daemon_.mutableCounters().plans;
    daemon_.mutableCounters().pathsPlanned += input.paths.size();

    std::set<std::string> planned;
    std::vector<std::string> retryChanged;
    std::vector<std::string> previouslyPlanned; // the paths of this pass's maps' last plans
    if (!all)
        for (const auto &wwid : only)
            if (auto m = state.maps.find(wwid); m != state.maps.end() && m->second.planned)
                for (const auto &g : m->second.planned->map.groups)
                    for (const auto &p : g.paths)
                        previouslyPlanned.push_back(p.kernelName);
    for (auto &pm : plan.maps) {
        const std::string wwid = pm.map.wwid;
        if (state.removedByAdmin.count(wwid))
            continue;
        planned.insert(wwid);
        MapRecord &rec = state.maps[wwid];
        rec.wwid = wwid;
        if (!rec.live)
            rec.name = pm.map.alias;
        for (const auto &g : pm.map.groups)
            if (!g.paths.empty()) {
                const auto eff = daemon_.config().effective(g.paths.front());
                const auto retry = eff.noPathRetry.value;
                rec.flushOnLastDel = eff.flushOnLastDel.value;
                rec.deferRemove = eff.deferredRemove.value;
                rec.noPathRetry = mpath::config::toString(retry);
                if (!(rec.retry == retry))
                    retryChanged.push_back(wwid);
                rec.retry = retry;
                break;
            }
        keepTarget(rec, pm);
        rec.planned = std::move(pm);
        if (!rec.live && !rec.planned->name.newAlias.empty())
            newAliases_.insert(wwid);
    }
    // Which map each path is in now (the paths that left a map planned
    // here, or joined one, are checked or no longer).
    std::set<std::string> moved;
    std::map<std::string, std::string> left; // the map each moved path left
    auto leave = [&](const std::string &name, PathRecord &p) {
        if (!p.mapWwid.empty() && inPass(p.mapWwid)) {
            left.emplace(name, std::exchange(p.mapWwid, {}));
            moved.insert(name);
        }
    };
    if (all) {
        for (auto &[name, p] : state.paths)
            leave(name, p);
    } else {
        // The paths that were in these maps are in their last plans; those
        // that would be have the WWID.
        for (const auto &name : previouslyPlanned)
            if (auto it = state.paths.find(name); it != state.paths.end())
                leave(it->first, it->second);
        for (const auto &wwid : only)
            if (auto w = state.pathsByWwid.find(wwid); w != state.pathsByWwid.end())
                for (const auto &name : w->second)
                    if (auto it = state.paths.find(name); it != state.paths.end())
                        leave(it->first, it->second);
    }
    for (const auto &wwid : planned) {
        const MapRecord &rec = state.maps[wwid];
        for (const auto &g : rec.planned->map.groups)
            for (const auto &p : g.paths)
                if (auto it = state.paths.find(p.kernelName); it != state.paths.end()) {
                    it->second.mapWwid = wwid;
                    moved.insert(p.kernelName);
                }
    }
    // The status line counts the paths in maps: counted again only when
    // one joined or left a map, not when it was planned into its own again.
    for (const auto &name : moved) {
        auto it = state.paths.find(name);
        auto was = left.find(name);
        if (it != state.paths.end() &&
            it->second.mapWwid != (was == left.end() ? std::string() : was->second)) {
            daemon_.publishStatus();
            break;
        }
    }
    // An administrator's no_path_retry, or a new configuration's, takes
    // effect on a running outage at once.
    for (const auto &wwid : retryChanged)
        daemon_.policies().update(wwid);
    std::vector<std::string> forget;
    // The maps of this pass: those planned and those that were to be.
    std::vector<decltype(state.maps)::iterator> ours;
    if (all) {
        for (auto it = state.maps.begin(); it != state.maps.end(); ++it)
            ours.push_back(it);
    } else {
        std::set<std::string> wwids = planned;
        wwids.insert(only.begin(), only.end());
        for (const auto &wwid : wwids)
            if (auto it = state.maps.find(wwid); it != state.maps.end())
                ours.push_back(it);
    }
    daemon_.mutableCounters().mapsPassed += ours.size();
    for (auto map : ours) {
        const std::string &wwid = map->first;
        MapRecord &rec = map->second;
        if (planned.count(wwid)) {
            act(rec);
            continue;
        }
        rec.planned.reset();
        if (rec.busy || rec.parked()) {
            // A change still runs: what is left of the map is decided when
            // it ends (a map whose last path went meanwhile goes then).
            rec.dirty = true;
            continue;
        }
        rec.actedPlan = daemon_.counters().plans;
        if (!rec.live) {
            // Never made (its creation failed), and no longer wanted.
            forget.push_back(wwid);
            continue;
        }
        if (rec.deferredRemoval)
            continue; // goes at its last close
        // A path an administrator took out does not keep the map.
        bool hasPath = false;
        if (auto w = state.pathsByWwid.find(wwid); w != state.pathsByWwid.end())
            for (const auto &name : w->second)
                if (auto it = state.paths.find(name); it != state.paths.end())
                    hasPath = hasPath || !it->second.adminRemoved;
        if (!hasPath)
            removeMap(rec);
    }
    for (const auto &wwid : forget) {
        logInfo(aboutMap(state.maps.at(wwid).name, wwid), "no longer planned: forgotten");
        state.maps.erase(wwid);
    }
    if (all)
        daemon_.checks().sync();
    else
        daemon_.checks().sync(moved);
    checkSettled();
}

void Reconciler::keepTarget(const MapRecord &rec, PlannedMap &pm) const {
    // Device-mapper cannot reload a map into another target type: a live
    // map keeps its own, whatever target new maps get. Moving a map to
    // another target means making it again (see docs/mpathd.md).
    if (!rec.live || rec.target.empty() || pm.map.target == rec.target)
        return;
    pm.map.target = rec.target;
    if (auto line = mpath::dm::buildTableLine(pm.map))
        pm.table = *line;
}

std::vector<mpath::dm::TargetLine> Reconciler::desiredTargets(const MapRecord &rec) const {
    PlannedMap pm = *rec.planned;
    if (rec.queueingDisabled) {
        // no_path_retry's count ran out: the map fails I/O until a path
        // returns; a new table must not queue again.
        auto &f = pm.map.features;
        f.erase(std::remove(f.begin(), f.end(), "queue_if_no_path"), f.end());
        if (auto line = mpath::dm::buildTableLine(pm.map))
            return targetsOf(*line);
    }
    return targetsOf(pm.table);
}

void Reconciler::bindThenCreate(MapRecord &rec) {
    const PlannedMap &pm = *rec.planned;
    if (pm.name.newAlias.empty() && pm.name.droppedAlias.empty()) {
        create(rec, desiredTargets(rec));
        return;
    }
    // The bindings file first, off the loop; the map is made once its
    // name is recorded.
    rec.busy = true;
    ++inFlight_;
    const std::string wwid = rec.wwid;
    const std::string alias = pm.name.newAlias;
    daemon_.stateFiles().bind(wwid, alias, [this, wwid, alias](Result<void> r) {
        --inFlight_;
        auto &maps = daemon_.mutableState().maps;
        auto it = maps.find(wwid);
        if (it == maps.end()) {
            checkSettled();
            return;
        }
        MapRecord &rec = it->second;
        rec.busy = false;
        if (!rec.planned || rec.live || rec.planned->name.newAlias != alias) {
            rec.dirty = true; // planned again meanwhile
            finish(wwid);
            return;
        }
        if (r) {
            if (!alias.empty())
                logInfo(aboutMap(alias, wwid), "bound in " + daemon_.bindingsFile());
        } else if (r.code() == EWOULDBLOCK) {
            // Another process writes the file: try again shortly.
            rec.dirty = true;
            finish(wwid);
            return;
        } else {
            // The file cannot be changed (it has errors, or the disk
            // refuses): the map goes by its WWID rather than by a name
            // nobody recorded.
            logError(aboutMap(wwid, wwid), "cannot bind alias " + alias + ": " + r.error().message +
                                               "; named by its WWID");
            rec.name = rec.wwid;
        }
        create(rec, desiredTargets(rec));
    });
}

void Reconciler::act(MapRecord &rec) {
    if (rec.busy || rec.parked()) {
        // A change runs, or udev has not processed the last one: what the
        // plan wants now goes as one operation once it has.
        rec.dirty = true;
        return;
    }
    rec.actedPlan = daemon_.counters().plans;
    const PlannedMap &pm = *rec.planned;
    applyTimeouts(rec);
    if (!rec.live) {
        bindThenCreate(rec);
        return;
    }
    if (rec.keptOpen) {
        rec.keptOpen = false;
        logNotice(aboutMap(rec.name, rec.wwid), "wanted again: a path is back");
    }
    if (rec.deferredRemoval) {
        // Its paths are back before its last close: it stays.
        rec.deferredRemoval = false;
        daemon_.mutableState().removing.erase(rec.wwid);
        logNotice(aboutMap(rec.name, rec.wwid), "wanted again: its deferred removal is cancelled");
        daemon_.dmOps().message(rec.wwid, rec.name, "@cancel_deferred_remove");
    }
    LiveMap live;
    live.map = rec.liveMap;
    PlannedMap want = pm;
    if (rec.queueingDisabled) {
        auto &f = want.map.features;
        f.erase(std::remove(f.begin(), f.end(), "queue_if_no_path"), f.end());
        if (auto line = mpath::dm::buildTableLine(want.map))
            want.table = *line;
    }
    if (!rec.reloadWanted && !sameTable(live, want)) {
        // Only queueing differs (a map adopted from a daemon that turned
        // it off as it stopped, a no_path_retry changed during an
        // outage): a message says it, without a reload.
        const auto &f = want.map.features;
        const bool queue = std::find(f.begin(), f.end(), "queue_if_no_path") != f.end();
        LiveMap asked = live;
        setQueueingFeature(asked.map.features, queue);
        if (sameTable(asked, want)) {
            const std::string wwid = rec.wwid;
            logNotice(aboutMap(rec.name, wwid), queue ? "turning queueing on, as planned"
                                                      : "turning queueing off, as planned");
            rec.busy = true;
            ++inFlight_;
            daemon_.dmOps().message(wwid, rec.name, queue ? "queue_if_no_path" : "fail_if_no_path",
                                    [this, wwid, queue](Result<void> r) {
                                        auto &maps = daemon_.mutableState().maps;
                                        auto it = maps.find(wwid);
                                        if (r && it != maps.end())
                                            setQueueingFeature(it->second.liveMap.features, queue);
                                        else if (!r && it != maps.end())
                                            it->second.reloadWanted =
                                                true; // the table says it then
                                        --inFlight_;
                                        finish(wwid);
                                        if (!r)
                                            schedule(wwid);
                                    });
            return;
        }
    }
    if (rec.ghostWait && !stillGhostWait(rec)) {
        // An active path came without a change of table: udev hears that
        // the map is ready from a reload.
        rec.reloadWanted = true;
        rec.reloadWhy = "an active path came (ghost_delay)";
    }
    if (!sameTable(live, want) || rec.reloadWanted) {
        const bool asked = rec.reloadWanted && sameTable(live, want);
        const std::string why =
            rec.reloadWhy.empty() ? "an administrator asked for it" : rec.reloadWhy;
        rec.reloadWanted = false;
        rec.reloadWhy.clear();
        reload(rec, desiredTargets(rec), asked ? why : "its table differs from the plan");
        return;
    }
    if (rec.name != pm.map.alias && pm.name.newAlias.empty()) {
        rec.busy = true;
        ++inFlight_;
        const std::string wwid = rec.wwid, from = rec.name, to = pm.map.alias;
        daemon_.dmOps().rename(wwid, from, to, [this, wwid, from, to](Result<void> r) {
            --inFlight_;
            auto &maps = daemon_.mutableState().maps;
            if (auto it = maps.find(wwid); it != maps.end()) {
                if (r) {
                    it->second.name = to;
                    logNotice(aboutMap(to, wwid), "renamed from " + from);
                } else {
                    logError(aboutMap(from, wwid), r.error().message);
                }
            }
            finish(wwid);
        });
    }
}

namespace {

/// What the planned map's paths get written before its table is loaded.
PathLimits pathLimits(const MapRecord &rec) {
    PathLimits limits;
    limits.maxSectorsKb = rec.planned->maxSectorsKb;
    if (limits.maxSectorsKb)
        for (const auto &g : rec.planned->map.groups)
            for (const auto &p : g.paths)
                limits.paths.push_back(p.kernelName);
    return limits;
}

} // namespace

void Reconciler::applyTimeouts(MapRecord &rec) {
    // As multipath-tools does when it sets a map up: the map's paths get
    // their transport timeouts; in the map's lane, so before a create or
    // reload asked for in the same pass.
    const mpath::policy::TransportTimeouts &t = rec.planned->timeouts;
    std::vector<mpath::model::Path> paths;
    std::vector<std::string> names;
    for (const auto &g : rec.planned->map.groups)
        for (const auto &p : g.paths) {
            names.push_back(p.kernelName + "=" + p.ids.transportPort + "@" + p.ids.scsiHost);
            paths.push_back(p);
        }
    // The paths as a set: a new order (a regrouping) changes nothing.
    std::sort(names.begin(), names.end());
    std::string key = mpath::config::toString(t.fastIoFail) + " " +
                      (t.devLoss ? std::to_string(*t.devLoss) : "-") + " " +
                      (t.ehDeadline ? mpath::config::toString(*t.ehDeadline) : "-");
    for (const auto &n : names)
        key += " " + n;
    if (key == rec.timeoutsApplied)
        return;
    rec.timeoutsApplied = key;
    ++inFlight_;
    const std::string wwid = rec.wwid;
    daemon_.dmOps().applyTimeouts(
        wwid, rec.name, t, std::move(paths), [this, wwid, key](bool retry) {
            --inFlight_;
            // A write refused for now (a blocked port) is made again at the
            // map's next pass.
            auto &maps = daemon_.mutableState().maps;
            if (auto it = maps.find(wwid);
                retry && it != maps.end() && it->second.timeoutsApplied == key)
                it->second.timeoutsApplied.clear();
            checkSettled();
        });
}

/// At a reconfigure every map's paths get their timeouts again, as
/// multipath-tools sets every map up again.
void Reconciler::forgetTimeouts() {
    for (auto &[wwid, rec] : daemon_.mutableState().maps)
        rec.timeoutsApplied.clear();
}

namespace {

/// What ghost_delay waits on: a path that can take I/O now (not standby,
/// not down), and a standby one (ALUA standby, or a checker's ghost).
bool activePath(const PathRecord &p) {
    using mpath::model::CheckerState;
    const auto s = p.path.checkerState;
    return p.path.accessState != "standby" && s != CheckerState::Ghost && s != CheckerState::Down &&
           s != CheckerState::Timeout;
}
bool ghostPath(const PathRecord &p) {
    return p.path.accessState == "standby" ||
           p.path.checkerState == mpath::model::CheckerState::Ghost;
}

} // namespace

bool Reconciler::onlyGhosts(const MapRecord &rec) const {
    const auto &paths = daemon_.state().paths;
    bool ghost = false;
    for (const auto &g : rec.planned->map.groups)
        for (const auto &p : g.paths) {
            auto it = paths.find(p.kernelName);
            if (it == paths.end())
                continue;
            if (activePath(it->second))
                return false;
            ghost = ghost || ghostPath(it->second);
        }
    return ghost;
}

bool Reconciler::startGhostWait(MapRecord &rec) {
    const unsigned delay = rec.planned->ghostDelay;
    if (delay == 0 || !onlyGhosts(rec))
        return false;
    rec.ghostWait = true;
    logNotice(aboutMap(rec.name, rec.wwid),
              "only standby paths: not ready for other software for up to " +
                  std::to_string(delay) + " s, until an active path comes (ghost_delay)");
    const std::string wwid = rec.wwid;
    rec.ghostTimer = daemon_.loop().addTimer(std::chrono::seconds(delay), [this, wwid, delay] {
        auto &maps = daemon_.mutableState().maps;
        auto it = maps.find(wwid);
        if (it == maps.end() || !it->second.ghostWait)
            return;
        MapRecord &rec = it->second;
        rec.ghostTimer.reset();
        rec.ghostWait = false;
        logWarning(aboutMap(rec.name, wwid), "no active path came in " + std::to_string(delay) +
                                                 " s: ready with standby paths (ghost_delay)");
        rec.reloadWanted = true;
        rec.reloadWhy = "ghost_delay ended";
        schedule(wwid);
    });
    return true;
}

bool Reconciler::stillGhostWait(MapRecord &rec) {
    if (!rec.ghostWait)
        return false;
    if (rec.planned->ghostDelay != 0 && onlyGhosts(rec))
        return true;
    rec.ghostWait = false;
    rec.ghostTimer.reset();
    logNotice(aboutMap(rec.name, rec.wwid), rec.planned->ghostDelay == 0
                                                ? "ready: ghost_delay is off now"
                                                : "ready: an active path came (ghost_delay)");
    return false;
}

void Reconciler::create(MapRecord &rec, const std::vector<mpath::dm::TargetLine> &targets) {
    rec.busy = true;
    ++inFlight_;
    const std::string wwid = rec.wwid, name = rec.name;
    logNotice(aboutMap(name, wwid), "creating: " + rec.planned->table);
    const std::string table = tableOf(targets);
    mpath::dm::MapUevent uevent;
    uevent.skipKpartx = rec.planned->skipKpartx;
    uevent.notReady = startGhostWait(rec);
    daemon_.dmOps().create(wwid, name, "mpath-" + wwid, targets, uevent, pathLimits(rec),
                           [this, wwid, name, table](Result<mpath::dm::UdevCookie> r) {
                               if (r.code() == EEXIST || r.code() == ETIMEDOUT) {
                                   adoptAfterCreate(wwid, name, r.error());
                                   return;
                               }
                               MapRecord *created =
                                   tableLoaded(wwid, r ? Result<void>() : Result<void>(r.error()));
                               if (!created)
                                   return;
                               created->live = true;
                               park(*created, *r);
                               recordWwid(name, wwid);
                               refresh(
                                   wwid, [this, wwid] { finish(wwid); }, table);
                           });
}

void Reconciler::reload(MapRecord &rec, const std::vector<mpath::dm::TargetLine> &targets,
                        const std::string &why) {
    rec.busy = true;
    ++inFlight_;
    const std::string wwid = rec.wwid, name = rec.name;
    logNotice(aboutMap(name, wwid), "reloading (" + why + "): " + rec.planned->table);
    uint64_t sectors = 0;
    for (const auto &t : targets)
        sectors += t.length;
    mpath::dm::MapUevent uevent;
    uevent.resized = sectors != rec.liveMap.sizeSectors;
    uevent.skipKpartx = rec.planned->skipKpartx;
    uevent.notReady = stillGhostWait(rec);
    const std::string table = targets.empty() ? std::string() : tableOf(targets);
    daemon_.dmOps().reload(wwid, name, targets, uevent, pathLimits(rec),
                           [this, wwid, table](Result<mpath::dm::UdevCookie> r) {
                               MapRecord *rec =
                                   tableLoaded(wwid, r ? Result<void>() : Result<void>(r.error()));
                               if (!rec)
                                   return;
                               park(*rec, *r);
                               refresh(
                                   wwid, [this, wwid] { finish(wwid); }, table);
                           });
}

void Reconciler::adoptAfterCreate(const std::string &wwid, const std::string &name,
                                  const mpath::Error &error) {
    // The map may be there all the same: a create that answered after its
    // deadline, a map made meanwhile by someone else, or one of ours whose
    // deferred removal still waits for its last close. Ours if the uuid is.
    daemon_.dmOps().read(wwid, name, [this, wwid, name, error](Result<LiveMap> live) {
        State &state = daemon_.mutableState();
        auto it = state.maps.find(wwid);
        const bool ours = live && live->device.uuid == "mpath-" + wwid;
        if (it == state.maps.end() || !ours) {
            (void)tableLoaded(wwid, error);
            return;
        }
        MapRecord &rec = it->second;
        rec.live = true;
        daemon_.publishStatus();
        rec.liveMap = live->map;
        rec.liveStatus = live->status;
        rec.target = live->map.target;
        rec.devt = live->device.devt;
        rec.suspended = live->device.suspended;
        takePathStates(wwid, live->map);
        recordWwid(name, wwid);
        if (state.removing.erase(wwid)) {
            // Our own removal, deferred to a last close that has not come:
            // the map is wanted again.
            logNotice(aboutMap(name, wwid), "wanted again: its deferred removal is cancelled");
            daemon_.dmOps().message(wwid, name, "@cancel_deferred_remove");
        } else {
            logNotice(aboutMap(name, wwid), "it is there already (" + error.message + "): adopted");
        }
        rec.dirty = true; // its table is compared with the plan once more
        if (tableLoaded(wwid, mpath::ok()))
            finish(wwid);
    });
}

MapRecord *Reconciler::tableLoaded(const std::string &wwid, const Result<void> &r) {
    --inFlight_;
    auto &maps = daemon_.mutableState().maps;
    auto it = maps.find(wwid);
    if (it == maps.end()) {
        checkSettled();
        return nullptr;
    }
    if (!r) {
        failed(it->second, r.error());
        finish(wwid);
        return nullptr;
    }
    it->second.failedRetryDelay = {};
    it->second.lastError.clear();
    return &it->second;
}

void Reconciler::removeMap(MapRecord &rec) {
    rec.busy = true;
    ++inFlight_;
    const std::string wwid = rec.wwid, name = rec.name;
    daemon_.mutableState().removing.insert(wwid);
    logNotice(aboutMap(name, wwid), "its last path is gone: removing it");
    if (rec.flushOnLastDel) {
        // multipath-tools' flush_on_last_del: nothing is left to wait for,
        // so I/O queued on it fails now, before the removal (in the same
        // lane), and a map still open is not kept queueing until its last
        // close. A path added again queues again (MapPolicies::update()).
        logNotice(aboutMap(name, wwid), "flush_on_last_del: queued I/O fails now");
        rec.queueingDisabled = true;
        rec.retryTimer.reset();
        rec.countdownEnded(daemon_.loop().now());
        daemon_.policies().failQueuedIo(wwid);
    }
    // Deferred: a map still open (a mounted file system) goes at its last
    // close rather than not at all. deferred_remove no: it stays, as
    // multipathd leaves it, until a pass finds it closed.
    const bool deferred = rec.deferRemove;
    daemon_.dmOps().remove(wwid, name, deferred, [this, wwid, name, deferred](Result<bool> r) {
        --inFlight_;
        auto &state = daemon_.mutableState();
        if (!r && !deferred && r.code() == EBUSY) {
            state.removing.erase(wwid);
            if (auto it = state.maps.find(wwid); it != state.maps.end()) {
                if (!it->second.keptOpen)
                    logNotice(aboutMap(name, wwid),
                              "still open: kept without paths (deferred_remove no) until a "
                              "later pass finds it closed");
                it->second.keptOpen = true;
                it->second.lastError.clear();
                finish(wwid);
                daemon_.policies().update(wwid);
            }
            return;
        }
        if (!r) {
            state.removing.erase(wwid);
            if (auto it = state.maps.find(wwid); it != state.maps.end())
                failed(it->second, r.error()); // tried again by a later pass
            finish(wwid);
            return;
        }
        if (!*r) {
            // It exists until its last close: kept, with its countdown,
            // so that queued I/O still ends as no_path_retry says.
            logNotice(aboutMap(name, wwid), "still open: removal deferred to its last close");
            if (auto it = state.maps.find(wwid); it != state.maps.end()) {
                it->second.deferredRemoval = true;
                finish(wwid);
                daemon_.policies().update(wwid);
                return;
            }
        }
        state.maps.erase(wwid);
        daemon_.publishStatus();
        checkSettled();
    });
}

void Reconciler::refresh(const std::string &wwid, std::function<void()> then,
                         const std::string &table) {
    auto &maps = daemon_.mutableState().maps;
    auto it = maps.find(wwid);
    if (it == maps.end()) {
        if (then)
            then();
        return;
    }
    ++inFlight_;
    const std::string name = it->second.name;
    auto got = [this, wwid, name, then](Result<LiveMap> live) {
        --inFlight_;
        State &state = daemon_.mutableState();
        auto rec = state.maps.find(wwid);
        if (rec != state.maps.end() && live) {
            rec->second.liveMap = live->map;
            rec->second.liveStatus = live->status;
            rec->second.target = live->map.target;
            rec->second.devt = live->device.devt;
            rec->second.suspended = live->device.suspended;
            // A new table starts every path active.
            syncPathStates(wwid, name, live->map);
        } else if (!live) {
            logWarning(aboutMap(name, wwid), "cannot read it back: " + live.error().message);
        }
        if (then)
            then();
    };
    // After its own change the daemon knows the table: its status will do.
    if (!table.empty())
        daemon_.dmOps().readBack(wwid, name, table, std::move(got));
    else
        daemon_.dmOps().read(wwid, name, std::move(got));
}

void Reconciler::readStatus(const std::string &wwid, bool atOnce) {
    auto &maps = daemon_.mutableState().maps;
    auto it = maps.find(wwid);
    if (it == maps.end() || !it->second.live)
        return;
    MapRecord &rec = it->second;
    if (rec.busy || rec.statusReading) {
        // What is read now may be older than the news that asks: read
        // again once the change or the read in flight ends.
        rec.statusAgain = rec.statusAgain || atOnce;
        return;
    }
    const auto now = daemon_.loop().now();
    if (!atOnce &&
        now - rec.statusRead < std::chrono::seconds(daemon_.globals().pollingInterval.value))
        return;
    rec.statusRead = now;
    rec.statusReading = true;
    rec.statusAgain = false;
    const uint64_t messages = rec.messagesSent;
    daemon_.dmOps().read(wwid, rec.name, [this, wwid, messages](Result<LiveMap> live) {
        auto &maps = daemon_.mutableState().maps;
        auto it = maps.find(wwid);
        if (it == maps.end())
            return;
        MapRecord &rec = it->second;
        rec.statusReading = false;
        // A change that started meanwhile reads the map back itself.
        if (live && !rec.busy) {
            rec.liveMap = live->map;
            rec.liveStatus = live->status;
            rec.devt = live->device.devt;
            rec.suspended = live->device.suspended;
            // The kernel's path states, unless a message sent since the
            // read began changed them after it: the next read takes them.
            if (rec.messagesSent == messages)
                syncPathStates(wwid, rec.name, live->map);
        }
        if (rec.statusAgain && !rec.busy)
            readStatus(wwid, true);
    });
}

void Reconciler::recordWwid(const std::string &name, const std::string &wwid) {
    // Tools that keep off path devices (LVM, systemd, UDisks) read the
    // wwids file: every map the daemon keeps is in it, made or adopted.
    daemon_.stateFiles().addWwid(wwid, name);
    // udev decided about the paths before the map was there: a path it left
    // to the rest of the system, or held back (find_multipaths smart), is
    // told to decide again, now that mpathctl is-path finds the map.
    struct statfs fs {};
    const std::string root = daemon_.env().sysfsRoot;
    if (statfs(root.c_str(), &fs) != 0 || fs.f_type != SYSFS_MAGIC)
        return; // a test's tree, not the kernel's
    const State &state = daemon_.state();
    auto names = state.pathsByWwid.find(wwid);
    if (names == state.pathsByWwid.end())
        return;
    for (const auto &kernelName : names->second) {
        auto it = state.paths.find(kernelName);
        if (it == state.paths.end() || !it->second.hasUdevData)
            continue;
        const PathRecord &p = it->second;
        if (p.claimedByUdev())
            continue;
        std::ofstream uevent(root + "/block/" + kernelName + "/uevent");
        uevent << "change\n";
        uevent.flush();
        if (!uevent)
            logWarning(aboutMap(name, wwid), "cannot ask udev to look at " + kernelName + " again");
    }
}

void Reconciler::takePathStates(const std::string &wwid, const Map &live) {
    for (const auto &g : live.groups)
        for (const auto &lp : g.paths)
            daemon_.mutableState().forEachPathWithDevt(
                wwid, lp.devt,
                [&](const std::string &, PathRecord &p) { p.path.dmState = lp.dmState; });
}

void Reconciler::syncPathStates(const std::string &wwid, const std::string &name, const Map &live) {
    // As the kernel has them; then failed again: the paths the checker
    // found down, an administrator failed, or held as shaky
    // (san_path_err_*). A table loaded after a path
    // failed starts it active, and a path event of the table it replaced
    // can arrive after the new one was read: without this, such a path
    // would stay active in the kernel while the daemon holds it failed.
    takePathStates(wwid, live);
    State &state = daemon_.mutableState();
    for (const auto &g : live.groups)
        for (const auto &lp : g.paths)
            state.forEachPathWithDevt(wwid, lp.devt, [&](const std::string &, PathRecord &p) {
                if (p.mapWwid != wwid || p.path.dmState == mpath::model::DmPathState::Failed)
                    return;
                if (down(p.path.checkerState) || p.adminFailed ||
                    (p.heldAsShaky() && !p.path.marginal)) {
                    p.path.dmState = mpath::model::DmPathState::Failed;
                    daemon_.dmOps().message(wwid, name, "fail_path " + lp.devtString());
                }
            });
}

void Reconciler::failed(MapRecord &rec, const mpath::Error &error) {
    rec.lastError = error.message;
    rec.failedRetryDelay =
        rec.failedRetryDelay.count() == 0 ? kRetry : std::min(rec.failedRetryDelay * 2, kRetryMax);
    logError(aboutMap(rec.name, rec.wwid), error.message + "; trying again in " +
                                               std::to_string(rec.failedRetryDelay.count() / 1000) +
                                               " s");
    const std::string wwid = rec.wwid;
    rec.failedRetryTimer = daemon_.loop().addTimer(rec.failedRetryDelay, [this, wwid] {
        auto &maps = daemon_.mutableState().maps;
        if (auto it = maps.find(wwid); it != maps.end())
            it->second.failedRetryTimer.reset();
        schedule(wwid);
    });
}

void Reconciler::finish(const std::string &wwid) {
    daemon_.checks().sync(wwid); // a new map's paths are checked from now on
    auto &maps = daemon_.mutableState().maps;
    if (auto it = maps.find(wwid); it != maps.end()) {
        it->second.busy = false;
        if (it->second.dirty) {
            it->second.dirty = false;
            schedule(wwid);
        } else if (it->second.statusAgain) {
            readStatus(wwid, true);
        }
    }
    daemon_.publishStatus();
    checkSettled();
}

void Reconciler::checkSettled() {
    if (settled())
        daemon_.onSettled();
}

} // namespace mpathd
