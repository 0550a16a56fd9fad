#include "map_policies.h"

#include "daemon.h"
#include "dm_ops.h"
#include "log.h"
#include "reconciler.h"

#include <algorithm>

namespace mpathd {

using mpath::config::Failback;
using mpath::config::NoPathRetry;
using mpath::model::CheckerState;
using mpath::model::DmPathState;

namespace {

bool usable(const PathRecord &p) {
    return (p.path.checkerState == CheckerState::Up || p.path.checkerState == CheckerState::Ghost ||
            p.path.checkerState == CheckerState::Unchecked) &&
           p.path.dmState != DmPathState::Failed;
}

} // namespace

unsigned MapPolicies::usablePaths(const std::string &wwid) const {
    // A map's paths are those its plan has (a pass gives each of them its
    // mapWwid): found by name, not by going over every path.
    const State &state = daemon_.state();
    auto map = state.maps.find(wwid);
    if (map == state.maps.end() || !map->second.planned)
        return 0;
    unsigned n = 0;
    for (const auto &g : map->second.planned->map.groups)
        for (const auto &pp : g.paths)
            if (auto it = state.paths.find(pp.kernelName);
                it != state.paths.end() && it->second.mapWwid == wwid && usable(it->second))
                ++n;
    return n;
}

void MapPolicies::update(const std::string &wwid) {
    State &state = daemon_.mutableState();
    auto it = state.maps.find(wwid);
    if (it == state.maps.end() || !it->second.live)
        return;
    if (daemon_.stopping())
        return; // queueing was turned off for good: nobody would end a wait
    MapRecord &rec = it->second;
    const unsigned usableNow = usablePaths(wwid);
    const NoPathRetry retry = rec.retry;
    if (usableNow > 0) {
        rec.hadUsablePath = true;
        rec.outageRetry.reset();
        rec.retryTimer.reset();
        rec.countdownEnded(daemon_.loop().now());
        if (rec.queueingDisabled) {
            rec.queueingDisabled = false;
            if (retry.kind != NoPathRetry::Kind::Fail) {
                logNotice(aboutMap(rec.name, wwid),
                          "a path returned: I/O queues again when none is left");
                setQueueing(wwid, true);
            }
        }
        return;
    }
    // Its last path was removed under flush_on_last_del: queueing stays off
    // until a path comes back (its deferred removal is then cancelled).
    if (rec.deferredRemoval && rec.flushOnLastDel && rec.queueingDisabled)
        return;
    // No usable path: an outage starts, or its setting changed (an
    // administrator's D-Bus call, a reconfigure): the countdown starts,
    // restarts or stops as the value now says.
    if (!rec.hadUsablePath && rec.outageRetry && *rec.outageRetry == retry)
        return;
    const bool changed = !rec.hadUsablePath && rec.outageRetry;
    rec.hadUsablePath = false;
    rec.outageRetry = retry;
    rec.retryTimer.reset();
    rec.countdownEnded(daemon_.loop().now());
    const bool wasDisabled = rec.queueingDisabled;
    rec.queueingDisabled = false;
    // An outage that fails I/O, at once or in the end, counts as the
    // map's failure, as multipathd counts them.
    if (!changed && retry.kind != NoPathRetry::Kind::Queue)
        ++rec.stats.mapFailures;
    const std::string now =
        changed ? "no_path_retry is " + mpath::config::toString(retry) + ": " : "no usable path: ";
    switch (retry.kind) {
    case NoPathRetry::Kind::Queue:
        logWarning(aboutMap(rec.name, wwid), now + "I/O queues until a path returns");
        if (wasDisabled)
            setQueueing(wwid, true);
        break;
    case NoPathRetry::Kind::Fail:
        logWarning(aboutMap(rec.name, wwid), now + "I/O fails");
        break;
    case NoPathRetry::Kind::Retries: {
        const auto interval =
            std::chrono::seconds(std::max(1u, daemon_.globals().pollingInterval.value));
        logWarning(aboutMap(rec.name, wwid), now + "I/O queues for " +
                                                 std::to_string(retry.retries) + " checks of " +
                                                 std::to_string(interval.count()) + " s");
        if (wasDisabled)
            setQueueing(wwid, true);
        // A count that would overflow the clock's nanoseconds means "for
        // as long as anyone will wait": a century.
        const auto countdown = std::min<std::chrono::seconds>(
            interval * static_cast<int64_t>(retry.retries), std::chrono::hours(24 * 365 * 100));
        rec.stats.queueingSince = daemon_.loop().now();
        rec.retryTimer = daemon_.loop().addTimer(countdown, [this, wwid] {
            auto &maps = daemon_.mutableState().maps;
            auto m = maps.find(wwid);
            if (m == maps.end())
                return;
            m->second.retryTimer.reset();
            m->second.queueingDisabled = true;
            m->second.countdownEnded(daemon_.loop().now());
            ++m->second.stats.queueTimeouts;
            logWarning(aboutMap(m->second.name, wwid),
                       "no path returned in time: queued I/O fails now");
            failQueuedIo(wwid);
        });
        break;
    }
    }
}

void MapPolicies::settingsChanged() {
    std::vector<std::string> wwids;
    for (const auto &[wwid, rec] : daemon_.state().maps)
        wwids.push_back(wwid);
    for (const auto &wwid : wwids)
        update(wwid);
}

void MapPolicies::setQueueing(const std::string &wwid, bool queue) {
    auto &maps = daemon_.mutableState().maps;
    auto it = maps.find(wwid);
    if (it == maps.end())
        return;
    const std::string text = queue ? "queue_if_no_path" : "fail_if_no_path";
    daemon_.dmOps().message(wwid, it->second.name, text,
                            [this, wwid, queue](mpath::Result<void> r) {
                                if (!r)
                                    return; // the next change or pass asks again
                                // What the kernel now prints: a pass finds the table as planned
                                // and sends no reload for it.
                                auto &maps = daemon_.mutableState().maps;
                                if (auto m = maps.find(wwid); m != maps.end())
                                    setQueueingFeature(m->second.liveMap.features, queue);
                            });
}

void setQueueingFeature(std::vector<std::string> &features, bool queue) {
    // The kernel prints queue_if_no_path first among the features.
    features.erase(std::remove(features.begin(), features.end(), "queue_if_no_path"),
                   features.end());
    if (queue)
        features.insert(features.begin(), "queue_if_no_path");
}

void MapPolicies::failQueuedIo(const std::string &wwid) {
    auto &maps = daemon_.mutableState().maps;
    auto it = maps.find(wwid);
    if (it == maps.end())
        return;
    daemon_.dmOps().message(
        wwid, it->second.name, "fail_if_no_path", [this, wwid](mpath::Result<void> r) {
            auto &maps = daemon_.mutableState().maps;
            auto m = maps.find(wwid);
            if (r && m != maps.end())
                setQueueingFeature(m->second.liveMap.features, false);
            if (r || m == maps.end() || !m->second.queueingDisabled)
                return;
            // Still queueing in the kernel: I/O would wait for good. Again
            // after a checker interval.
            const auto interval =
                std::chrono::seconds(std::max(1u, daemon_.globals().pollingInterval.value));
            m->second.retryTimer = daemon_.loop().addTimer(interval, [this, wwid] {
                auto &maps = daemon_.mutableState().maps;
                if (auto m = maps.find(wwid); m != maps.end()) {
                    m->second.retryTimer.reset();
                    if (m->second.queueingDisabled)
                        failQueuedIo(wwid);
                }
            });
        });
}

void MapPolicies::pathRestored(const std::string &wwid, const std::string &kernelName) {
    State &state = daemon_.mutableState();
    auto it = state.maps.find(wwid);
    if (it == state.maps.end() || !it->second.live || !it->second.planned)
        return;
    MapRecord &rec = it->second;
    const auto pathIt = state.paths.find(kernelName);
    if (pathIt == state.paths.end())
        return;
    const Failback mode = daemon_.config().effective(pathIt->second.path).failback.value;
    switch (mode.kind) {
    case Failback::Kind::Manual:
        return;
    case Failback::Kind::Immediate:
        failback(wwid);
        return;
    case Failback::Kind::Followover: {
        // Only when this path is the first of its group to come back.
        for (const auto &g : rec.planned->map.groups) {
            bool inGroup = false;
            unsigned others = 0;
            for (const auto &p : g.paths) {
                if (p.kernelName == kernelName) {
                    inGroup = true;
                    continue;
                }
                auto o = state.paths.find(p.kernelName);
                if (o != state.paths.end() && usable(o->second))
                    ++others;
            }
            if (inGroup && others == 0)
                failback(wwid);
        }
        return;
    }
    case Failback::Kind::Seconds:
        rec.failbackTimer =
            daemon_.loop().addTimer(std::chrono::seconds(mode.seconds), [this, wwid] {
                auto &maps = daemon_.mutableState().maps;
                if (auto m = maps.find(wwid); m != maps.end()) {
                    m->second.failbackTimer.reset();
                    failback(wwid);
                }
            });
        return;
    }
}

void MapPolicies::failback(const std::string &wwid) {
    // Which group does I/O go to now? Ask the kernel, then switch when a
    // better group (earlier: groups are in priority order) is usable.
    auto &maps = daemon_.mutableState().maps;
    auto it = maps.find(wwid);
    if (it == maps.end())
        return;
    const std::string name = it->second.name;
    daemon_.dmOps().read(wwid, name, [this, wwid, name](mpath::Result<LiveMap> live) {
        State &state = daemon_.mutableState();
        auto m = state.maps.find(wwid);
        if (m == state.maps.end() || !live || !m->second.planned)
            return;
        m->second.liveMap = live->map;
        m->second.liveStatus = live->status;
        m->second.devt = live->device.devt;
        m->second.suspended = live->device.suspended;
        const auto &groups = m->second.planned->map.groups;
        unsigned best = 0;
        for (unsigned g = 0; g < groups.size() && best == 0; ++g)
            for (const auto &p : groups[g].paths) {
                auto rec = state.paths.find(p.kernelName);
                if (rec != state.paths.end() && usable(rec->second)) {
                    best = g + 1;
                    break;
                }
            }
        const unsigned current = live->status.nextGroup;
        if (best == 0 || best == current || (current != 0 && current < best))
            return;
        logNotice(aboutMap(name, wwid), "failback to group " + std::to_string(best) +
                                            " from group " + std::to_string(current));
        daemon_.dmOps().message(wwid, name, "switch_group " + std::to_string(best));
    });
}

} // namespace mpathd
