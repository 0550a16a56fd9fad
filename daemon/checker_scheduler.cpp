#include "checker_scheduler.h"

#include "daemon.h"
#include "dm_ops.h"
#include "log.h"
#include "map_policies.h"
#include "path_tracker.h"
#include "reconciler.h"

#include <array>
#include <cstring>
#include <mpath/discovery/discovery.h>
#include <mpath/discovery/vpd.h>
#include <mpath/dm/table.h>
#include <mpath/policy/planner.h>
#include <mpath/sys/file.h>

namespace mpathd {

using mpath::model::CheckerState;
using mpath::model::DmPathState;

namespace {

bool up(CheckerState s) {
    return s == CheckerState::Up || s == CheckerState::Ghost;
}
bool down(CheckerState s) {
    return s == CheckerState::Down || s == CheckerState::Timeout;
}

} // namespace

std::chrono::milliseconds CheckerScheduler::commandTimeout() const {
    const unsigned t = daemon_.globals().checkerTimeout.value;
    return std::chrono::seconds(t > 0 ? t : 30);
}

std::chrono::milliseconds CheckerScheduler::checkDeadline() const {
    const auto interval =
        std::chrono::seconds(std::max(1u, daemon_.globals().pollingInterval.value));
    return std::min<std::chrono::milliseconds>(interval, commandTimeout());
}

void CheckerScheduler::sync() {
    for (auto &[name, rec] : daemon_.mutableState().paths)
        syncPath(name, rec);
}

void CheckerScheduler::sync(const std::string &wwid) {
    State &state = daemon_.mutableState();
    auto map = state.maps.find(wwid);
    if (map == state.maps.end() || !map->second.planned)
        return;
    for (const auto &g : map->second.planned->map.groups)
        for (const auto &p : g.paths)
            if (auto it = state.paths.find(p.kernelName); it != state.paths.end())
                syncPath(it->first, it->second);
}

void CheckerScheduler::sync(const std::set<std::string> &kernelNames) {
    auto &paths = daemon_.mutableState().paths;
    for (const auto &name : kernelNames)
        if (auto it = paths.find(name); it != paths.end())
            syncPath(it->first, it->second);
}

void CheckerScheduler::syncPath(const std::string &name, PathRecord &rec) {
    State &state = daemon_.mutableState();
    const auto map = state.maps.find(rec.mapWwid);
    const bool inLiveMap = !rec.mapWwid.empty() && map != state.maps.end() && map->second.live;
    if (!inLiveMap) {
        rec.checker.reset();
        rec.nextCheck.reset();
        return;
    }
    const auto eff = daemon_.config().effective(rec.path);
    const std::string wanted = mpath::policy::choosePathPolicy(eff, rec.path).checker;
    if (rec.checker && rec.checker->name() == wanted && rec.checker->devnode() == rec.devnode)
        return;
    auto checker = daemon_.env().checkers(wanted, rec.devnode);
    if (!checker) {
        logError(aboutPath(name, map->second.name), checker.error().message);
        return;
    }
    rec.checker = std::move(*checker);
    rec.checkedOnce = false;
    rec.interval = std::chrono::seconds(daemon_.globals().pollingInterval.value);
    arm(name, std::chrono::milliseconds(0));
}

void CheckerScheduler::arm(const std::string &kernelName, std::chrono::milliseconds after) {
    auto &paths = daemon_.mutableState().paths;
    auto it = paths.find(kernelName);
    if (it == paths.end())
        return;
    it->second.nextCheck =
        daemon_.loop().addTimer(after, [this, kernelName] { check(kernelName); });
}

void CheckerScheduler::checkSoon(const std::string &kernelName) {
    auto &paths = daemon_.mutableState().paths;
    auto it = paths.find(kernelName);
    if (it == paths.end() || !it->second.checker || it->second.checking)
        return;
    arm(kernelName, std::chrono::milliseconds(0));
}

void CheckerScheduler::check(const std::string &kernelName) {
    auto &paths = daemon_.mutableState().paths;
    auto it = paths.find(kernelName);
    if (it == paths.end() || !it->second.checker)
        return;
    PathRecord &rec = it->second;
    rec.nextCheck.reset();
    if (rec.checking)
        return;
    rec.checking = true;
    // What the kernel says of the device first: no I/O to a device it has
    // taken offline, and an NVMe controller that is not live is down even
    // for checker none.
    mpath::discovery::Discovery discovery{mpath::discovery::Sysfs(daemon_.env().sysfsRoot)};
    if (auto state = discovery.deviceStateText(rec.path)) {
        if (auto known = mpath::checkers::outcomeOfDeviceState(rec.path.transport, *state)) {
            if (known->state == CheckerState::Unchecked) {
                rec.checking = false;
                arm(kernelName, std::chrono::seconds(daemon_.globals().pollingInterval.value));
                return;
            }
            return onResult(kernelName, rec.generation, std::move(*known));
        }
    }
    warnIfNoSgNode(rec, kernelName);
    // The check ends at its deadline (a polling interval at most); its
    // SCSI command keeps checker_timeout in the kernel, as multipathd's.
    auto io = daemon_.checkIo();
    io.commandTimeout = commandTimeout();
    mpath::checkers::startCheck(
        io, *rec.checker, checkDeadline(),
        [this, kernelName, generation = rec.generation](mpath::checkers::CheckOutcome o) {
            onResult(kernelName, generation, std::move(o));
        });
}

void CheckerScheduler::noteNotStarted() {
    ++daemon_.mutableCounters().checksNotStarted;
    ++notStarted_;
    if (notStartedReport_)
        return;
    notStartedReport_ = daemon_.loop().addTimer(std::chrono::seconds(1), [this] {
        logWarning({}, std::to_string(notStarted_) +
                           " path checks could not start within their timeout: every path I/O "
                           "worker was busy; those paths keep their state and are checked "
                           "again");
        notStarted_ = 0;
        notStartedReport_.reset();
    });
}

void CheckerScheduler::onResult(const std::string &kernelName, uint64_t generation,
                                mpath::checkers::CheckOutcome outcome) {
    State &state = daemon_.mutableState();
    auto it = state.paths.find(kernelName);
    if (it == state.paths.end())
        return; // the device went away meanwhile
    if (it->second.generation != generation) {
        logDebug(aboutPath(kernelName), "an answer for the device that had this name before");
        return;
    }
    PathRecord &rec = it->second;
    rec.checking = false;
    ++daemon_.mutableCounters().checks;
    if (!rec.checker)
        return; // left its map meanwhile
    const auto polling = std::chrono::seconds(daemon_.globals().pollingInterval.value);
    const auto maxPolling = std::chrono::seconds(daemon_.globals().maxPollingInterval.value);
    if (outcome.state == CheckerState::Unchecked) {
        // No news (every worker busy, with hung devices or a burst of
        // checks): the path keeps its state, and is asked again.
        noteNotStarted();
        arm(kernelName, polling);
        return;
    }
    const CheckerState before = rec.path.checkerState;
    const bool first = !rec.checkedOnce;
    rec.checkedOnce = true;
    rec.path.checkerState = outcome.state;
    auto map = state.maps.find(rec.mapWwid);
    const bool live = map != state.maps.end() && map->second.live;
    const std::string mapName = live ? map->second.name : "";
    const std::string devt = rec.path.devtString();

    if (down(outcome.state)) {
        rec.wwidRechecked = false;
        if (!down(before) || first)
            logWarning(aboutPath(kernelName, mapName),
                       "checker " + std::string(rec.checker->name()) + " says " +
                           std::string(mpath::model::toString(outcome.state)) + ": " +
                           outcome.message);
        if (live && rec.path.dmState != DmPathState::Failed) {
            rec.path.dmState = DmPathState::Failed;
            daemon_.dmOps().message(rec.mapWwid, mapName, "fail_path " + devt,
                                    [this, kernelName](mpath::Result<void> r) {
                                        // Not failed after all: the next
                                        // check that finds it down says so
                                        // again.
                                        if (!r)
                                            setDmState(kernelName, DmPathState::Unknown);
                                    });
        }
    } else if (up(outcome.state)) {
        const bool restored = down(before) || rec.path.dmState == DmPathState::Failed;
        const auto now = daemon_.loop().now();
        const auto hold = reinstateHold(rec);
        if (restored && live && !rec.adminFailed && now < rec.reinstatedAt + hold) {
            // The kernel failed it again soon after the last reinstate
            // (its check answers, its I/O does not): not before the hold
            // ends, when it is checked again.
            logDebug(aboutPath(kernelName, mapName), "reinstate held back while it flaps");
            rec.interval = std::chrono::duration_cast<std::chrono::seconds>(
                rec.reinstatedAt + hold - now + std::chrono::milliseconds(999));
            arm(kernelName, rec.interval);
            daemon_.policies().update(rec.mapWwid);
            return;
        }
        if (restored && live && !rec.adminFailed && !rec.changedWwid.empty()) {
            // Another LUN answers behind it: never reinstated.
        } else if (restored && live && !rec.adminFailed && !rec.wwidRechecked &&
                   recheckWwidApplies(rec)) {
            recheckWwid(kernelName, rec, mapName);
        } else if (live && !rec.adminFailed &&
                   heldAsShaky(kernelName, rec, mapName,
                               rec.sanPathErr.held ? down(before) : restored)) {
            // Checked at the base interval until its recovery time is over.
            rec.interval = polling;
            arm(kernelName, rec.interval);
            daemon_.policies().update(rec.mapWwid);
            daemon_.reconciler().readStatus(rec.mapWwid);
            return;
        } else if (restored && live && !rec.adminFailed) {
            rec.wwidRechecked = false; // the next restore asks again
            const bool quiet = rec.flaps > 1;
            const std::string text = "checker " + std::string(rec.checker->name()) + " says " +
                                     std::string(mpath::model::toString(outcome.state)) +
                                     ": reinstating";
            if (quiet)
                logInfo(aboutPath(kernelName, mapName), text);
            else
                logNotice(aboutPath(kernelName, mapName), text);
            rec.reinstatedAt = now;
            rec.path.dmState = DmPathState::Active;
            const std::string wwid = rec.mapWwid;
            daemon_.dmOps().message(wwid, mapName, "reinstate_path " + devt,
                                    [this, wwid, kernelName](mpath::Result<void> r) {
                                        if (r)
                                            daemon_.policies().pathRestored(wwid, kernelName);
                                        else // still failed: the next check asks again
                                            setDmState(kernelName, DmPathState::Failed);
                                    });
            daemon_.paths().reprioritize(kernelName);
        } else if (live) {
            daemon_.paths().reprioritize(kernelName); // its port state may have changed
        }
    }
    if (live) {
        daemon_.policies().update(rec.mapWwid);
        daemon_.reconciler().readStatus(rec.mapWwid);
    }

    // Steady and up: check less often; any change, or down: at the base.
    if (outcome.state == before && up(outcome.state))
        rec.interval = std::min(rec.interval * 2, maxPolling);
    else
        rec.interval = polling;
    arm(kernelName, rec.interval);
}

bool CheckerScheduler::heldAsShaky(const std::string &kernelName, PathRecord &rec,
                                   const std::string &mapName, bool wasDown) {
    // The map's, decided when it was planned: resolving a path's settings
    // at each check would walk the device table.
    const auto map = daemon_.state().maps.find(rec.mapWwid);
    const mpath::policy::SanPathErrSettings s =
        map != daemon_.state().maps.end() && map->second.planned
            ? map->second.planned->sanPathErr
            : mpath::policy::SanPathErrSettings{};
    // marginal_pathgroups on: a shaky path is not held failed but grouped
    // apart, after the other paths, where it takes I/O only when they
    // cannot.
    const bool grouped =
        daemon_.globals().marginalPathgroups.value == mpath::config::MarginalPathgroups::On;
    auto setMarginal = [&](bool marginal) {
        if (rec.path.marginal == marginal)
            return;
        rec.path.marginal = marginal;
        daemon_.reconciler().schedule(rec.mapWwid); // regrouped
    };
    if (!s.enabled()) {
        rec.sanPathErr = {}; // a reconfigure turned it off
        setMarginal(false);
        return false;
    }
    if (!grouped)
        setMarginal(false);
    // Another path of the map that can take I/O: device-mapper has it
    // active and its last check did not find it down.
    bool othersUsable = false;
    if (rec.sanPathErr.held)
        for (const auto &[name, other] : daemon_.state().paths)
            othersUsable = othersUsable || (name != kernelName && other.mapWwid == rec.mapWwid &&
                                            other.path.dmState == DmPathState::Active &&
                                            !down(other.path.checkerState));
    const bool wasHeld = rec.sanPathErr.held;
    const unsigned failures = rec.sanPathErr.failures;
    using Verdict = mpath::policy::SanPathErrVerdict;
    const Verdict verdict = mpath::policy::sanPathErrCheck(rec.sanPathErr, s, wasDown, othersUsable,
                                                           daemon_.loop().now());
    if (verdict == Verdict::Reinstate) {
        if (wasHeld)
            logNotice(aboutPath(kernelName, mapName),
                      othersUsable ? "up for " + std::to_string(s.recoveryTime) +
                                         " s since it was held (san_path_err_recovery_time)"
                                   : "held as shaky, but the map has no other usable path "
                                     "(after " +
                                         std::to_string(failures) + " failures)");
        setMarginal(false);
        return false;
    }
    if (verdict == Verdict::HoldNow)
        logWarning(aboutPath(kernelName, mapName),
                   "up again, but failed " + std::to_string(rec.sanPathErr.failures) +
                       " times (more than san_path_err_threshold " + std::to_string(s.threshold) +
                       "): " +
                       (grouped ? "grouped apart, after the other paths (marginal_pathgroups), "
                                : "held failed ") +
                       "until it has been up " + std::to_string(s.recoveryTime) +
                       " s (san_path_err_recovery_time)");
    else if (wasDown)
        logInfo(aboutPath(kernelName, mapName),
                "failed again while held: up " + std::to_string(s.recoveryTime) +
                    " s from now before it is " + (grouped ? "regrouped" : "reinstated") +
                    " (san_path_err_recovery_time)");
    // Held: failed, or with marginal_pathgroups in a group of its own.
    setMarginal(grouped);
    return !grouped;
}

bool CheckerScheduler::recheckWwidApplies(const PathRecord &rec) const {
    // As multipath-tools: SCSI devices whose WWID is udev's ID_SERIAL
    // (the default) or page 0x83 itself, which a fresh INQUIRY gives again.
    if (rec.path.scsiAddress.empty() || rec.path.wwid.empty())
        return false;
    const auto eff = daemon_.config().effective(rec.path);
    const std::string &uid = eff.uidAttribute.value;
    return eff.recheckWwid.value && (uid.empty() || uid == "ID_SERIAL");
}

void CheckerScheduler::recheckWwid(const std::string &kernelName, PathRecord &rec,
                                   const std::string &mapName) {
    if (rec.wwidChecking)
        return;
    auto send = daemon_.env().prio.scsiCommand;
    if (!send) {
        rec.wwidRechecked = true;
        return checkSoon(kernelName);
    }
    rec.wwidChecking = true;
    logInfo(aboutPath(kernelName, mapName), "up again: reading its WWID from the device before "
                                            "reinstating it (recheck_wwid)");
    const mpath::model::Path path = rec.path;
    const auto timeout = commandTimeout();
    daemon_.ioExecutor().run<std::string>(
        daemon_.env().prio.devDirectory + "/" + kernelName, checkDeadline(),
        [send, path, timeout]() -> mpath::Result<std::string> {
            // INQUIRY, EVPD page 0x83, read fresh: sysfs keeps the page
            // the kernel read when it found the device.
            constexpr uint16_t kLength = 4096;
            const std::array<uint8_t, 6> cdb{
                0x12, 0x01, 0x83, uint8_t(kLength >> 8), uint8_t(kLength & 0xff), 0};
            auto page = send(path.kernelName, cdb, kLength, timeout);
            if (!page)
                return page.error();
            namespace vpd = mpath::discovery::vpd;
            // udev gives ID_SERIAL in one of two orders (with and without
            // sg3-utils' rules): the same device is either.
            auto wwid = vpd::wwidFromPage83(*page, vpd::Order::Udev, path.vendor, path.product);
            if (!wwid)
                return wwid.error();
            if (*wwid == path.wwid)
                return *wwid;
            if (auto other =
                    vpd::wwidFromPage83(*page, vpd::Order::ScsiId, path.vendor, path.product);
                other && *other == path.wwid)
                return *other;
            return *wwid;
        },
        [this, kernelName, mapName, generation = rec.generation](mpath::Result<std::string> r) {
            auto &paths = daemon_.mutableState().paths;
            auto it = paths.find(kernelName);
            if (it == paths.end() || it->second.generation != generation)
                return;
            PathRecord &rec = it->second;
            rec.wwidChecking = false;
            if (!r) {
                // As multipath-tools: no answer is no evidence of a change.
                logWarning(aboutPath(kernelName, mapName), "cannot read its WWID again (" +
                                                               r.error().message +
                                                               "): reinstated as the same device");
            } else if (*r != rec.path.wwid) {
                wwidChanged(kernelName, rec, *r);
                return;
            }
            rec.wwidRechecked = true;
            checkSoon(kernelName);
        });
}

void CheckerScheduler::wwidChanged(const std::string &kernelName, PathRecord &rec,
                                   const std::string &fresh) {
    const auto map = daemon_.state().maps.find(rec.mapWwid);
    const std::string mapName = map != daemon_.state().maps.end() ? map->second.name : "";
    logError(aboutPath(kernelName, mapName),
             "came back with WWID " + fresh + " instead of " + rec.path.wwid +
                 ": another LUN is behind it now. Not reinstated; it leaves " +
                 (mapName.empty() ? std::string("its map") : mapName) +
                 " and is described again (recheck_wwid)");
    rec.changedWwid = fresh;
    daemon_.reconciler().schedule(rec.mapWwid);
    // As multipath-tools: the kernel reads the device's identity again,
    // and udev describes it anew, with its new WWID.
    const std::string sysfs = daemon_.env().sysfsRoot + "/block/" + kernelName;
    daemon_.ioExecutor().run<std::string>(
        daemon_.env().prio.devDirectory + "/" + kernelName, commandTimeout(),
        [sysfs]() -> mpath::Result<std::string> {
            std::string failed;
            if (int err = mpath::sys::writeAttribute(sysfs + "/device/rescan", "1"))
                failed = "rescan: " + std::string(std::strerror(err));
            if (int err = mpath::sys::writeAttribute(sysfs + "/uevent", "add"))
                failed +=
                    (failed.empty() ? "" : "; ") + std::string("add event: ") + std::strerror(err);
            return failed;
        },
        [kernelName](mpath::Result<std::string> r) {
            const std::string why = r ? *r : r.error().message;
            if (!why.empty())
                logWarning(aboutPath(kernelName),
                           "asking the kernel and udev to describe it again failed: " + why);
        });
}

std::chrono::milliseconds CheckerScheduler::reinstateHold(const PathRecord &rec) const {
    // polling_interval, doubling with each flap, up to max_polling_interval.
    const auto polling = std::chrono::milliseconds(
        std::chrono::seconds(std::max(1u, daemon_.globals().pollingInterval.value)));
    const auto most = std::max<std::chrono::milliseconds>(
        polling, std::chrono::seconds(daemon_.globals().maxPollingInterval.value));
    auto hold = polling;
    for (unsigned i = 1; i < rec.flaps && hold < most; ++i)
        hold *= 2;
    return std::min(hold, most);
}

void CheckerScheduler::warnIfNoSgNode(const PathRecord &rec, const std::string &kernelName) {
    if (warnedNoSg_ || rec.checkedOnce || !daemon_.checkIo().pathIo)
        return; // asked at a path's first check only
    const std::string_view checker = rec.checker->name();
    if (checker != "tur" && checker != "readsector0")
        return;
    if (daemon_.checkIo().pathIo->sgNode(rec.checker->devnode()))
        return;
    warnedNoSg_ = true;
    logWarning(aboutPath(kernelName, ""),
               "has no sg node (is the sg driver loaded? mpathd's modules-load.d file "
               "loads it at boot): checks of such paths run as blocking jobs, and a path "
               "that hangs holds one of 12 workers until its check times out");
}

void CheckerScheduler::setDmState(const std::string &kernelName, DmPathState s) {
    auto &paths = daemon_.mutableState().paths;
    if (auto it = paths.find(kernelName); it != paths.end())
        it->second.path.dmState = s;
}

void CheckerScheduler::dmPathEvent(const std::string &wwid, const std::string &devt, bool failed) {
    State &state = daemon_.mutableState();
    auto number = mpath::dm::parseDeviceNumber(devt);
    if (!number)
        return;
    std::string found;
    state.forEachPathWithDevt(wwid, *number, [&](const std::string &name, PathRecord &rec) {
        if (found.empty() && rec.mapWwid == wwid)
            found = name;
    });
    if (auto it = state.paths.find(found); it != state.paths.end()) {
        const std::string &name = it->first;
        PathRecord &rec = it->second;
        rec.path.dmState = failed ? DmPathState::Failed : DmPathState::Active;
        if (failed) {
            auto map = state.maps.find(wwid);
            const std::string mapName = map == state.maps.end() ? wwid : map->second.name;
            const auto now = daemon_.loop().now();
            if (rec.reinstatedAt != mpath::sys::EventLoop::Clock::time_point{} &&
                now < rec.reinstatedAt + reinstateHold(rec)) {
                // Failed again within its hold: it flaps. Said once, then
                // held back longer each time, up to max_polling_interval.
                if (++rec.flaps == 1)
                    logWarning(aboutPath(name, mapName),
                               "device-mapper failed it again soon after it was reinstated: "
                               "reinstated again no sooner than " +
                                   std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                                      reinstateHold(rec))
                                                      .count()) +
                                   " s from now, backing off while it keeps failing");
                else
                    logInfo(aboutPath(name, mapName), "device-mapper failed it again");
            } else {
                rec.flaps = 0;
                logWarning(aboutPath(name, mapName), "device-mapper failed it");
            }
            checkSoon(name); // is it down, or was it one I/O error?
        }
        daemon_.policies().update(wwid);
        daemon_.reconciler().readStatus(wwid, true);
        return;
    }
}

} // namespace mpathd
