#include "checker_scheduler.h"

#include "daemon.h"
#include "dm_ops.h"
#include "log.h"
#include "map_policies.h"
#include "path_tracker.h"
#include "reconciler.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <mpath/discovery/discovery.h>
#include <mpath/discovery/vpd.h>
#include <mpath/dm/table.h>
#include <mpath/policy/planner.h>
#include <mpath/sys/device_io.h>
#include <mpath/sys/file.h>
#include <mpath/sys/path_io.h>

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
        rec.ioSample.reset();
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
    it->second.nextCheckAt = daemon_.loop().now() + after;
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
            countFailure(kernelName, rec, mapName);
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

const mpath::policy::PlannedMap *CheckerScheduler::plannedMapOf(const PathRecord &rec) const {
    // The map's, decided when it was planned: resolving a path's settings
    // at each check would walk the device table.
    const auto map = daemon_.state().maps.find(rec.mapWwid);
    return map != daemon_.state().maps.end() && map->second.planned ? &*map->second.planned
                                                                    : nullptr;
}

bool CheckerScheduler::othersUsable(const std::string &kernelName, const PathRecord &rec) const {
    for (const auto &[name, other] : daemon_.state().paths)
        if (name != kernelName && other.mapWwid == rec.mapWwid &&
            other.path.dmState == DmPathState::Active && !down(other.path.checkerState))
            return true;
    return false;
}

void CheckerScheduler::setMarginal(PathRecord &rec, bool marginal) {
    if (rec.path.marginal == marginal)
        return;
    rec.path.marginal = marginal;
    daemon_.reconciler().schedule(rec.mapWwid); // regrouped
}

bool CheckerScheduler::heldAsShaky(const std::string &kernelName, PathRecord &rec,
                                   const std::string &mapName, bool wasDown) {
    const mpath::policy::PlannedMap *planned = plannedMapOf(rec);
    if (planned && planned->marginalPath.enabled()) {
        rec.sanPathErr = {}; // one detection at a time, as in multipath-tools
        return heldAsMarginal(kernelName, rec, mapName, planned->marginalPath);
    }
    if (rec.marginalPath.held || rec.ioSample) {
        rec.marginalPath = {}; // a reconfigure turned it off
        rec.ioSample.reset();
    }
    const mpath::policy::SanPathErrSettings s =
        planned ? planned->sanPathErr : mpath::policy::SanPathErrSettings{};
    // marginal_pathgroups on: a shaky path is not held failed but grouped
    // apart, after the other paths, where it takes I/O only when they
    // cannot.
    const bool grouped =
        daemon_.globals().marginalPathgroups.value == mpath::config::MarginalPathgroups::On;
    auto setMarginal = [&](bool marginal) { this->setMarginal(rec, marginal); };
    if (!s.enabled()) {
        rec.sanPathErr = {}; // a reconfigure turned it off
        setMarginal(false);
        return false;
    }
    if (!grouped)
        setMarginal(false);
    // Asked only while it is held: it walks the paths.
    const bool others = rec.sanPathErr.held && othersUsable(kernelName, rec);
    const bool wasHeld = rec.sanPathErr.held;
    const unsigned failures = rec.sanPathErr.failures;
    using Verdict = mpath::policy::SanPathErrVerdict;
    const Verdict verdict =
        mpath::policy::sanPathErrCheck(rec.sanPathErr, s, wasDown, others, daemon_.loop().now());
    if (verdict == Verdict::Reinstate) {
        if (wasHeld)
            logNotice(aboutPath(kernelName, mapName),
                      others ? "up for " + std::to_string(s.recoveryTime) +
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

namespace {

std::string perThousand(double rate) {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), "%.1f", rate);
    return text.data();
}

} // namespace

void CheckerScheduler::countFailure(const std::string &kernelName, PathRecord &rec,
                                    const std::string &mapName) {
    const mpath::policy::PlannedMap *planned = plannedMapOf(rec);
    if (!planned || !planned->marginalPath.enabled())
        return;
    const auto &s = planned->marginalPath;
    if (mpath::policy::marginalPathFailed(rec.marginalPath, s, daemon_.loop().now()))
        logWarning(aboutPath(kernelName, mapName),
                   "failed twice within " + std::to_string(s.doubleFailedTime) +
                       " s (marginal_path_double_failed_time): not reinstated until a sample "
                       "of its I/O has at most " +
                       std::to_string(s.rateThreshold) +
                       " errors per thousand reads (marginal_path_err_rate_threshold)");
}

bool CheckerScheduler::heldAsMarginal(const std::string &kernelName, PathRecord &rec,
                                      const std::string &mapName,
                                      const mpath::policy::MarginalPathSettings &s) {
    const bool grouped =
        daemon_.globals().marginalPathgroups.value == mpath::config::MarginalPathgroups::On;
    if (!rec.marginalPath.held) {
        setMarginal(rec, false);
        return false;
    }
    using Verdict = mpath::policy::MarginalPathVerdict;
    const Verdict verdict = mpath::policy::marginalPathCheck(
        rec.marginalPath, s, othersUsable(kernelName, rec), daemon_.loop().now());
    if (verdict == Verdict::Reinstate) {
        rec.ioSample.reset();
        logNotice(aboutPath(kernelName, mapName),
                  "held as marginal, but the map has no other usable path: reinstated without "
                  "waiting for a sample of its I/O");
        setMarginal(rec, false);
        return false;
    }
    if (verdict == Verdict::StartSampling) {
        logNotice(aboutPath(kernelName, mapName),
                  "up, but sampled for I/O errors before it is " +
                      std::string(grouped ? "regrouped" : "reinstated") + ": direct reads for " +
                      std::to_string(s.sampleTime) + " s (marginal_path_err_sample_time)");
        rec.ioSample = std::make_unique<PathRecord::IoSample>();
        rec.ioSample->id = nextSampleId_++;
        rec.ioSample->start = daemon_.loop().now();
        sampleNext(kernelName);
    }
    // Held: failed, or with marginal_pathgroups in a group of its own.
    setMarginal(rec, grouped);
    return !grouped;
}

void CheckerScheduler::sampleNext(const std::string &kernelName) {
    auto &paths = daemon_.mutableState().paths;
    auto it = paths.find(kernelName);
    if (it == paths.end() || !it->second.ioSample)
        return;
    PathRecord &rec = it->second;
    PathRecord::IoSample &sample = *rec.ioSample;
    const mpath::policy::PlannedMap *planned = plannedMapOf(rec);
    if (!rec.checker || !planned || !planned->marginalPath.enabled()) {
        // It left its map, or a reconfigure turned sampling off.
        rec.ioSample.reset();
        return;
    }
    using namespace std::chrono_literals;
    const auto sampleTime = std::chrono::seconds(planned->marginalPath.sampleTime);
    // As multipath-tools: a read may take a minute, and none is sent that
    // could outlast the sample (sample times are 120 s at least).
    const auto readTimeout = std::min<std::chrono::milliseconds>(60s, sampleTime / 2);
    const auto now = daemon_.loop().now();
    const auto end = sample.start + sampleTime;
    if (now + readTimeout >= end) {
        if (now >= end)
            return sampleEnded(kernelName, rec);
        sample.next =
            daemon_.loop().addTimer(end - now, [this, kernelName] { sampleNext(kernelName); });
        return;
    }
    sample.reading = true;
    sampleRead(rec.devnode, readTimeout,
               [this, kernelName, id = sample.id, sentAt = now](mpath::Result<void> r) {
                   auto &paths = daemon_.mutableState().paths;
                   auto it = paths.find(kernelName);
                   if (it == paths.end() || !it->second.ioSample || it->second.ioSample->id != id)
                       return; // the sample ended meanwhile
                   PathRecord::IoSample &sample = *it->second.ioSample;
                   sample.reading = false;
                   // A read that never reached the device (every worker
                   // busy, or one still hung in the kernel) is no evidence.
                   if (r || !mpath::sys::Executor::neverStarted(r.error()))
                       ++sample.reads;
                   if (!r && !mpath::sys::Executor::neverStarted(r.error()))
                       ++sample.errors;
                   const auto wait = sentAt + daemon_.env().sampleReadGap - daemon_.loop().now();
                   sample.next = daemon_.loop().addTimer(
                       std::max<mpath::sys::EventLoop::Clock::duration>(wait, 0ms),
                       [this, kernelName] { sampleNext(kernelName); });
               });
}

void CheckerScheduler::sampleRead(const std::string &devnode, std::chrono::milliseconds timeout,
                                  std::function<void(mpath::Result<void>)> done) {
    if (const auto &read = daemon_.env().sampleRead)
        return read(devnode, timeout, std::move(done));
    auto viaWorker = [this, devnode, timeout](std::function<void(mpath::Result<void>)> done) {
        daemon_.ioExecutor().run<bool>(
            devnode, timeout,
            [devnode]() -> mpath::Result<bool> {
                auto r = mpath::sys::directRead(devnode);
                if (!r)
                    return r.error();
                return true;
            },
            [done = std::move(done)](mpath::Result<bool> r) {
                done(r ? mpath::Result<void>{} : mpath::Result<void>(r.error()));
            });
    };
    mpath::sys::PathIo *io = daemon_.checkIo().pathIo;
    if (!io)
        return viaWorker(std::move(done));
    io->directRead(
        devnode, timeout,
        [viaWorker, done = std::move(done)](mpath::Result<std::chrono::nanoseconds> r) mutable {
            if (!r && r.code() == ENOSYS) // no Linux AIO here: a worker reads
                return viaWorker(std::move(done));
            done(r ? mpath::Result<void>{} : mpath::Result<void>(r.error()));
        });
}

void CheckerScheduler::sampleEnded(const std::string &kernelName, PathRecord &rec) {
    const std::unique_ptr<PathRecord::IoSample> sample = std::move(rec.ioSample);
    const mpath::policy::PlannedMap *planned = plannedMapOf(rec);
    if (!planned)
        return;
    const auto &s = planned->marginalPath;
    const bool others = othersUsable(kernelName, rec);
    const auto map = daemon_.state().maps.find(rec.mapWwid);
    const std::string mapName = map == daemon_.state().maps.end() ? "" : map->second.name;
    const std::string found =
        std::to_string(sample->errors) + " of " + std::to_string(sample->reads) +
        " reads failed (" +
        perThousand(mpath::policy::marginalPathErrorRate(sample->errors, sample->reads)) +
        " per thousand)";
    using Verdict = mpath::policy::MarginalPathVerdict;
    if (mpath::policy::marginalPathSampled(rec.marginalPath, s, sample->errors, sample->reads,
                                           others, daemon_.loop().now()) == Verdict::Reinstate) {
        logNotice(aboutPath(kernelName, mapName),
                  "sampled: " + found +
                      (others ? ", at most marginal_path_err_rate_threshold " +
                                    std::to_string(s.rateThreshold) + ": no longer held"
                              : "; the map has no other usable path: no longer held"));
        checkSoon(kernelName); // reinstated (or regrouped) by its next check
        return;
    }
    const bool grouped =
        daemon_.globals().marginalPathgroups.value == mpath::config::MarginalPathgroups::On;
    logWarning(aboutPath(kernelName, mapName),
               "sampled: " + found + ", more than marginal_path_err_rate_threshold " +
                   std::to_string(s.rateThreshold) + ": " +
                   (grouped ? "kept apart" : "held failed") + ", sampled again " +
                   std::to_string(s.recheckGapTime) +
                   " s from now (marginal_path_err_recheck_gap_time)");
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
        // Failed by the kernel on an I/O error while its checks answer (a
        // check that finds it down counts its own fail_path).
        const bool ioError = failed && !rec.adminFailed && !down(rec.path.checkerState);
        const bool wasFailed = rec.path.dmState == DmPathState::Failed;
        rec.path.dmState = failed ? DmPathState::Failed : DmPathState::Active;
        if (failed) {
            auto map = state.maps.find(wwid);
            if (map != state.maps.end() && !wasFailed)
                ++map->second.stats.pathFaults;
            const std::string mapName = map == state.maps.end() ? wwid : map->second.name;
            if (ioError)
                countFailure(name, rec, mapName);
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
