// Forced interleavings of dm-lmpath's lock-free group switch, I/O
// holding and quiescing (kmod/lmpath-path.c, in its userspace build),
// under ThreadSanitizer.  Each case drives bio-mode map, the drain work,
// the pg_init work and postsuspend's and dtr's waits through the shipped
// code; lmpath_race_point() lets a case stop one thread in the middle of
// its stores and run another one there.  Afterwards every pending work
// item is run until none is left, and the case checks what a user would
// see: a bio that waits must have something that will run it (a pg_init
// activation started), a bio with no path and no queue_if_no_path fails,
// and once suspend or dtr has waited nothing of the map runs any more.
//
// usage: lmpath_hold_race [CASE...]: every case, or those named; exits 1
// when a case fails (TSAN: 66 on a race, ASan: 1 with its report).

#include "lmpath-user.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

// The block-layer side: work items are only noted here, and run by
// settle() afterwards, as a workqueue would run them.
struct World {
    std::atomic<int> drainKicks{0};
    std::atomic<bool> drainPending{false}, pgInitPending{false};
    std::atomic<int> activations{0};
    std::mutex actMu;
    std::string activated; // " name" for each activation queued

    // race point: the thread marked `stopper` stops at `where` once, lets
    // `other` run to its end, then goes on (after at most 1 s, in case
    // `other` waits for a lock the stopped thread holds).
    std::string where;
    std::function<void()> other;
    std::mutex mu;
    std::condition_variable cv;
    bool otherDone = false;
    std::atomic<bool> stopped{false};
    std::atomic<bool> resumed{false};   // the stopped thread went on
    bool otherDoneWhileStopped = false; // `other` did not wait for it
    // or, when set, every race point of every thread calls this instead
    std::function<void(const char *)> onRacePoint;

    // lmpath-target.c's side of the quiescing cases: the table event is
    // queued, the no-path timer is armed.
    lmpath *m = nullptr;
    std::atomic<bool> eventPending{false}, timerArmed{false};
    std::string flushed; // " [what]" for each lmpath_flush(), in order

    // Path failure and reinstatement, under actMu: the paths whose
    // failure report is queued, and the uevents sent, in order.
    struct PathEvent {
        bool failed;
        std::string path;
        int nrValid;
    };
    std::set<std::string> failWork;
    std::vector<PathEvent> events;
    // activations started and not ended by the case; with
    // endActivationsOnFlush, lmpath_flush("activations") ends them as
    // flush_workqueue() would (each completes with pg_init_done())
    std::vector<std::string> running;
    bool endActivationsOnFlush = false;
};

World *world;
thread_local bool stopper = false;

void kickQueuedIo(void *) {
    world->drainKicks++;
    world->drainPending = true;
}
void queuePgInitWork(void *) {
    world->pgInitPending = true;
}
bool queueActivation(void *, const char *path) {
    world->activations++;
    std::lock_guard<std::mutex> lock(world->actMu);
    world->activated += std::string(" ") + path;
    world->running.push_back(path);
    return true;
}
// Run the failure reports queued so far; true if there were any.
bool runFailWork() {
    std::set<std::string> queued;
    {
        std::lock_guard<std::mutex> lock(world->actMu);
        queued.swap(world->failWork);
    }
    for (const auto &path : queued)
        lmpath_user_report_failure(world->m, path.c_str());
    return !queued.empty();
}

// lmpath_flush(): wait for a kind of work item, as flush_work() does, by
// running it here if it is pending.
void flush(void *, const char *what) {
    World &w = *world;
    const std::string kind(what);
    {
        std::lock_guard<std::mutex> lock(w.actMu);
        w.flushed += " [" + kind + "]";
    }
    if (kind == "pg_init work") {
        if (w.pgInitPending.exchange(false))
            lmpath_user_pg_init_work(w.m);
    } else if (kind == "queued io") {
        if (w.drainPending.exchange(false))
            lmpath_user_drain(w.m);
    } else if (kind == "fail work") {
        runFailWork();
    } else if (kind == "event") {
        w.eventPending = false;
    } else if (kind == "nopath timer") {
        // timer_delete_sync() waits for a timer function that is running:
        // lmpath_nopath_timeout() fails queued I/O, which kicks the drain
        if (w.timerArmed.exchange(false))
            w.drainPending = true;
    }
    // "activations": started when queued; a case ends them (pg_init_done)
    if (kind == "activations" && w.endActivationsOnFlush) {
        std::vector<std::string> ending;
        {
            std::lock_guard<std::mutex> lock(w.actMu);
            ending.swap(w.running);
        }
        for (const auto &path : ending)
            lmpath_user_pg_init_done(w.m, path.c_str());
    }
}

void queueFailWork(void *, const char *path) {
    std::lock_guard<std::mutex> lock(world->actMu);
    world->failWork.insert(path);
}
void pathEvent(void *, bool failed, const char *path, int nrValid) {
    std::lock_guard<std::mutex> lock(world->actMu);
    world->events.push_back({failed, path, nrValid});
}
void tableEvent(void *) {
    world->eventPending = true;
}
void nopathTimer(void *, bool arm) {
    world->timerArmed = arm;
}

void racePoint(void *, const char *where) {
    World &w = *world;
    if (w.onRacePoint) {
        w.onRacePoint(where);
        return;
    }
    if (!stopper || w.where != where || w.stopped.exchange(true))
        return;
    std::thread other([&] {
        w.other();
        std::lock_guard<std::mutex> lock(w.mu);
        w.otherDone = true;
        w.cv.notify_all();
    });
    {
        std::unique_lock<std::mutex> lock(w.mu);
        w.cv.wait_for(lock, std::chrono::seconds(1), [&] { return w.otherDone; });
        w.otherDoneWhileStopped = w.otherDone;
    }
    w.resumed = true;
    other.detach();
}

struct Case {
    const char *name;
    lmpath *m = nullptr;
    World w;
    int failures = 0;

    // attached: the scsi_dh handler the paths have attached (bio mode
    // uses such a handler; it sets none itself), or none
    Case(const char *n, const char *table, const char *attached = nullptr) : name(n) {
        world = &w;
        lmpath_user_set_attached_handler(attached);
        lmpath_user_hooks hooks{kickQueuedIo, queuePgInitWork, queueActivation, racePoint,
                                flush,        queueFailWork,   pathEvent,       tableEvent,
                                nopathTimer,  nullptr};
        lmpath_user_set_hooks(&hooks);
        const char *error = nullptr;
        if (lmpath_user_create(table, &m, &error)) {
            std::fprintf(stderr, "%s: table rejected: %s\n", name, error);
            std::exit(1);
        }
        lmpath_user_set_attached_handler(nullptr);
        w.m = m;
    }
    ~Case() {
        // a detached "other" thread may still be finishing its map
        for (int i = 0; i < 200; ++i) {
            std::lock_guard<std::mutex> lock(w.mu);
            if (w.otherDone || !w.stopped)
                break;
        }
        lmpath_user_destroy(m);
    }

    // Run the work items the hooks noted until none is pending.
    void settle() {
        for (int i = 0; i < 100; ++i) {
            bool ran = false;
            if (w.pgInitPending.exchange(false)) {
                lmpath_user_pg_init_work(m);
                ran = true;
            }
            if (w.drainPending.exchange(false)) {
                lmpath_user_drain(m);
                ran = true;
            }
            if (runFailWork())
                ran = true;
            if (!ran)
                return;
        }
        check(false, "the work items keep kicking each other");
    }

    // Stop this thread at `where` and run `other` there, then go on.
    void interleave(const char *where, const std::function<void()> &self,
                    const std::function<void()> &other) {
        w.where = where;
        w.other = other;
        std::thread t([&] {
            stopper = true;
            self();
        });
        t.join();
        for (int i = 0; i < 2000; ++i) { // `other` may be blocked until now
            {
                std::lock_guard<std::mutex> lock(w.mu);
                if (w.otherDone)
                    break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        check(w.stopped, std::string("never reached the race point '") + where + "'");
    }

    void check(bool ok, const std::string &what) {
        if (ok)
            return;
        std::fprintf(stderr, "%s: FAILED: %s\n", name, what.c_str());
        failures++;
    }

    // A held bio must have something that runs it: a pg_init activation.
    void checkNotStranded(lmpath_user_io *io, const char *who) {
        const int st = lmpath_user_io_state(io);
        check(st != LMPATH_USER_IO_QUEUED || lmpath_user_pg_init_in_progress(m) > 0,
              std::string(who) + " stays queued with no pg_init running and nothing to kick it" +
                  " (I/O held: " + std::to_string(lmpath_user_io_held(m)) +
                  ", activations started: " + std::to_string(w.activations.load()) + ")");
    }
};

// No hardware handler: the constructor holds I/O until the first mapper
// has chosen a group.  A second mapper that runs while the first has
// published its path but still holds I/O queues its bio; that bio must be
// run when the first mapper stops holding I/O.
int firstSwitchLeavesNoBioQueued() {
    Case c("FirstGroupSwitchLeavesNoBioQueued",
           "2 queue_mode bio 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
    lmpath_user_io *a = lmpath_user_io_new(), *b = lmpath_user_io_new();
    c.interleave(
        "switch published", [&] { lmpath_user_map_bio(c.m, a); },
        [&] { lmpath_user_map_bio(c.m, b); });
    c.settle();
    c.check(lmpath_user_io_state(a) == LMPATH_USER_IO_MAPPED, "the first bio was not mapped");
    c.check(lmpath_user_io_state(b) == LMPATH_USER_IO_MAPPED,
            "the second bio was not mapped (state " + std::to_string(lmpath_user_io_state(b)) +
                ", I/O held: " + std::to_string(lmpath_user_io_held(c.m)) +
                ", drain kicks: " + std::to_string(c.w.drainKicks.load()) + ")");
    lmpath_user_io_free(a);
    lmpath_user_io_free(b);
    return c.failures;
}

// Hardware handler (attached alua): a mapper that found no path clears the current path
// and group while another, after a reinstate, switches to a group.  The
// pair must stay consistent, or the held bio waits for a pg_init of no
// group.
int noPathExitKeepsPathAndGroupTogether() {
    Case c("NoPathExitKeepsPathAndGroupTogether",
           "2 queue_mode bio 0 1 1 round-robin 0 2 1 8:16 1 8:32 1", "alua");
    lmpath_user_io *a = lmpath_user_io_new(), *b = lmpath_user_io_new();
    lmpath_user_fail_all_paths(c.m);
    c.interleave(
        "no path", [&] { lmpath_user_map_bio(c.m, a); },
        [&] {
            lmpath_user_reinstate_all_paths(c.m);
            lmpath_user_map_bio(c.m, b);
        });
    // The reinstate takes the lock the stopped mapper holds: it cannot
    // have run while that mapper was between its two stores.
    c.check(!c.w.otherDoneWhileStopped,
            "the reinstate and the map ran while the mapper that found no path was stopped "
            "between clearing current_path and current_pg");
    c.check(lmpath_user_current_pair_consistent(c.m),
            "current_path is not a path of current_pg after the race");
    c.settle();
    c.check(lmpath_user_io_state(a) == LMPATH_USER_IO_FAILED,
            "the bio that found no path did not fail");
    c.checkNotStranded(b, "the bio mapped after the reinstate");
    // and I/O mapped from now on is not held forever either
    lmpath_user_io *d = lmpath_user_io_new();
    lmpath_user_map_bio(c.m, d);
    c.settle();
    c.checkNotStranded(d, "a later bio");
    lmpath_user_io_free(a);
    lmpath_user_io_free(b);
    lmpath_user_io_free(d);
    return c.failures;
}

// Hardware handler (attached alua): the bio waits for pg_init, but by the time the pg_init
// work runs the group was dropped (disable_group).  The bio must not wait
// for a pg_init that nothing starts.
int pgInitWorkWithoutGroupReleasesHeldBio() {
    Case c("PgInitWorkWithoutGroupReleasesHeldBio",
           "2 queue_mode bio 0 2 1 round-robin 0 1 1 8:16 1 round-robin 0 1 1 8:32 1", "alua");
    lmpath_user_io *b = lmpath_user_io_new();
    lmpath_user_map_bio(c.m, b);
    c.check(lmpath_user_io_state(b) == LMPATH_USER_IO_QUEUED, "the bio did not wait for pg_init");
    lmpath_user_forget_group(c.m);
    c.settle();
    c.checkNotStranded(b, "the bio held for pg_init");
    lmpath_user_io_free(b);
    return c.failures;
}

// Hardware handler (attached alua), no queue_if_no_path: the bio waits for pg_init, and
// every path fails before the pg_init work runs.  The bio must fail with
// EIO, as with no path and no queueing.
int heldBioFailsWhenEveryPathFailedFirst() {
    Case c("HeldBioFailsWhenEveryPathFailedFirst",
           "2 queue_mode bio 0 1 1 round-robin 0 2 1 8:16 1 8:32 1", "alua");
    lmpath_user_io *b = lmpath_user_io_new();
    lmpath_user_map_bio(c.m, b);
    c.check(lmpath_user_io_state(b) == LMPATH_USER_IO_QUEUED, "the bio did not wait for pg_init");
    lmpath_user_fail_all_paths(c.m);
    c.settle();
    c.check(lmpath_user_io_state(b) == LMPATH_USER_IO_FAILED,
            "the bio did not fail with EIO (state " + std::to_string(lmpath_user_io_state(b)) +
                ", I/O held: " + std::to_string(lmpath_user_io_held(c.m)) + ")");
    lmpath_user_io_free(b);
    return c.failures;
}

// Hardware handler (attached alua), two groups: group 1's activation
// ends while a mapper, its group 1 path failed, switches to group 2.  The
// end of pg_init for group 1 must not release I/O that now waits for
// group 2's: no bio may go to 8:32 before its activation ended.
int pgInitDoneDoesNotReleaseIoOfTheNextGroup() {
    Case c("PgInitDoneDoesNotReleaseIoOfTheNextGroup",
           "2 queue_mode bio 0 2 1 round-robin 0 1 1 8:16 1 round-robin 0 1 1 8:32 1", "alua");
    lmpath_user_io *a = lmpath_user_io_new(), *b = lmpath_user_io_new();
    lmpath_user_map_bio(c.m, a);
    c.settle(); // group 1's activation starts (and does not end yet)
    c.check(c.w.activated == " 8:16", "group 1's activation did not start:" + c.w.activated);
    lmpath_user_fail_path(c.m, "8:16");
    c.interleave(
        "pg_init done", [&] { lmpath_user_pg_init_done(c.m, "8:16"); },
        [&] { lmpath_user_map_bio(c.m, b); });
    c.settle();
    for (auto *io : {a, b}) {
        const char *path = lmpath_user_io_path(io);
        c.check(lmpath_user_io_state(io) != LMPATH_USER_IO_MAPPED || !path ||
                    std::strcmp(path, "8:32") != 0,
                "a bio went to 8:32 while its activation had not ended (activations:" +
                    c.w.activated + ")");
    }
    c.checkNotStranded(b, "the bio mapped during the switch");
    lmpath_user_io_free(a);
    lmpath_user_io_free(b);
    return c.failures;
}

// Hardware handler (attached alua): a request held for pg_init is
// requeued (dm core does not wait for it at suspend) and its pg_init work
// is still pending when postsuspend runs.  Postsuspend must not return
// with an activation running: dtr would free the map under it.
int suspendStartsNoPgInitFromAPendingKick() {
    Case c("SuspendStartsNoPgInitFromAPendingKick",
           "2 queue_mode bio 0 1 1 round-robin 0 2 1 8:16 1 8:32 1", "alua");
    lmpath_user_io *b = lmpath_user_io_new();
    lmpath_user_map_bio(c.m, b);
    c.check(lmpath_user_io_state(b) == LMPATH_USER_IO_QUEUED, "the bio did not wait for pg_init");
    c.check(c.w.pgInitPending, "map did not kick the pg_init work");
    lmpath_user_flush_all(c.m);
    c.check(lmpath_user_pg_init_in_progress(c.m) == 0 && c.w.activations == 0,
            "postsuspend returned with " + std::to_string(lmpath_user_pg_init_in_progress(c.m)) +
                " activation(s) running, started by the kick it flushed (activations:" +
                c.w.activated + "; flushed:" + c.w.flushed + ")");
    lmpath_user_io_free(b);
    return c.failures;
}

// Hardware handler (attached alua): the last activation has dropped
// pg_init_in_progress to 0 and is in pg_init_done's locked tail (it
// releases held I/O, wakes the waiter) when postsuspend starts.
// Postsuspend must not return before that tail is done with the map.
int suspendWaitsForTheTailOfPgInitDone() {
    Case c("SuspendWaitsForTheTailOfPgInitDone", "2 queue_mode bio 0 1 1 round-robin 0 1 1 8:16 1",
           "alua");
    lmpath_user_io *b = lmpath_user_io_new();
    lmpath_user_map_bio(c.m, b);
    c.settle(); // the activation of 8:16 starts and does not end yet
    c.check(c.w.activated == " 8:16", "the activation did not start:" + c.w.activated);
    bool tailDone = false;
    c.interleave(
        "pg_init done", [&] { lmpath_user_pg_init_done(c.m, "8:16"); },
        [&] {
            lmpath_user_flush_all(c.m);
            tailDone = c.w.resumed;
        });
    c.check(tailDone, "postsuspend returned while pg_init_done still held the map's lock");
    c.settle();
    c.check(lmpath_user_io_state(b) == LMPATH_USER_IO_MAPPED, "the held bio was not mapped");
    lmpath_user_io_free(b);
    return c.failures;
}

// Wait up to 1 s for `done`.
void awaitFlag(const std::atomic<bool> &done) {
    for (int i = 0; i < 1000 && !done; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

thread_local const char *role = "";

// Hardware handler (attached alua): postsuspend has disabled new pg_init
// when the last activation ends; pg_init_done drops pg_init_in_progress to
// 0 and is still in its locked tail while postsuspend waits.  Postsuspend
// must not return before that tail is done with the map.
int suspendWaitsForAPgInitDoneThatEndsWhileItWaits() {
    Case c("SuspendWaitsForAPgInitDoneThatEndsWhileItWaits",
           "2 queue_mode bio 0 1 1 round-robin 0 1 1 8:16 1", "alua");
    lmpath_user_io *b = lmpath_user_io_new();
    lmpath_user_map_bio(c.m, b);
    c.settle(); // the activation of 8:16 starts and does not end yet
    c.check(c.w.activated == " 8:16", "the activation did not start:" + c.w.activated);
    std::atomic<bool> doneStopped{false}, suspendReturned{false}, doneResumed{false};
    std::thread done;
    c.w.onRacePoint = [&](const char *where) {
        if (!std::strcmp(role, "suspend") && !std::strcmp(where, "pg_init disabled")) {
            // pg_init is disabled: the activation ends now, and its
            // pg_init_done stops in its tail, holding the lock
            done = std::thread([&] {
                role = "done";
                lmpath_user_pg_init_done(c.m, "8:16");
            });
            awaitFlag(doneStopped);
        } else if (!std::strcmp(role, "done") && !std::strcmp(where, "pg_init done")) {
            doneStopped = true;
            awaitFlag(suspendReturned); // or 1 s, if suspend waits for us
            doneResumed = true;
        }
    };
    bool tailDone = false;
    std::thread suspend([&] {
        role = "suspend";
        lmpath_user_flush_all(c.m);
        tailDone = doneResumed;
        suspendReturned = true;
    });
    suspend.join();
    if (done.joinable())
        done.join();
    c.w.onRacePoint = nullptr;
    c.check(doneStopped, "pg_init_done never reached the race point 'pg_init done'");
    c.check(tailDone, "postsuspend returned while pg_init_done still held the map's lock");
    lmpath_user_io_free(b);
    return c.failures;
}

int countFailed(const Case &c) {
    int n = 0;
    for (const auto &e : c.w.events)
        n += e.failed;
    return n;
}

// Both paths failed by I/O errors, their failure reports still queued,
// when the table is destroyed.  The report of the last one arms the
// no-path timer (and each queues the table event); dtr must stop the
// timer after the reports, and then run the drain the timer's function
// kicks, so that nothing of the map runs after dtr.  The reports are
// lmpath-path.c's; World::flush models the timer's function.
int dtrStopsTheTimerAfterTheFailReport() {
    Case c("DtrStopsTheTimerAfterTheFailReport",
           "3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
    lmpath_user_io_error(c.m, "8:16");
    lmpath_user_io_error(c.m, "8:32");
    c.check(c.w.failWork.size() == 2, "the failures did not queue their reports");
    lmpath_user_stop(c.m);
    const std::string order = " (flushed:" + c.w.flushed + ")";
    c.check(c.w.failWork.empty() && countFailed(c) == 2,
            "a failure report was left queued" + order);
    c.check(!c.w.timerArmed, "the no-path timer is armed after dtr" + order);
    c.check(!c.w.eventPending, "a table event was left queued" + order);
    c.check(!c.w.drainPending, "the drain work was left queued" + order);
    return c.failures;
}

// Wait up to 1 s for `done()`.
void awaitTrue(const std::function<bool()> &done) {
    for (int i = 0; i < 1000 && !done(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// The uevents sent since the case began, checked as a user sees them:
// starting from `start` valid paths, every PATH_FAILED carries one less
// than the event before, every PATH_REINSTATED one more.
std::string checkEventCounts(Case &c, int start) {
    std::string seen;
    int n = start;
    bool ok = true;
    for (const auto &e : c.w.events) {
        n += e.failed ? -1 : 1;
        seen += std::string(" ") + (e.failed ? "FAILED " : "REINSTATED ") + e.path + " " +
                std::to_string(e.nrValid);
        if (e.nrValid != n || n < 0)
            ok = false;
        n = e.nrValid;
    }
    c.check(ok, "uevents do not count the valid paths (" + std::to_string(start) +
                    " at first):" + seen);
    return seen;
}

thread_local std::string actor;

// One path, queue_if_no_path.  An I/O error on 8:16 (A) takes the path out
// of use and stops right after; a reinstate_path message comes and stops
// once the path is usable again; another I/O on 8:16 fails (B) and runs
// to its end; then A, then the reinstate go on.  Two failures and one
// reinstatement happened: each must be reported once, with the count of
// valid paths it left, nr_valid_paths must end at 0, and the no-path timer
// must run, as after any last path lost under queue_if_no_path.
int failureAcrossReinstateIsReportedOnceWithItsCount() {
    Case c("FailureAcrossReinstateIsReportedOnceWithItsCount",
           "3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 1 1 8:16 1");
    std::atomic<bool> aStopped{false}, rStopped{false}, bDone{false}, aDone{false}, rDone{false};
    std::thread r;
    c.w.onRacePoint = [&](const char *where) {
        const std::string at(where);
        if (actor == "A" && at == "path failing" && !aStopped.exchange(true)) {
            r = std::thread([&] {
                actor = "R";
                lmpath_user_reinstate_path(c.m, "8:16");
                rDone = true;
            });
            awaitTrue([&] { return bDone || rDone; });
        } else if (actor == "R" && at == "path usable" && !rStopped.exchange(true)) {
            std::thread b([&] {
                actor = "B";
                lmpath_user_io_error(c.m, "8:16");
            });
            b.join();
            bDone = true;
            awaitTrue([&] { return aDone.load(); });
        }
    };
    std::thread a([&] {
        actor = "A";
        lmpath_user_io_error(c.m, "8:16");
        aDone = true;
    });
    a.join();
    if (r.joinable())
        r.join();
    c.w.onRacePoint = nullptr;
    c.check(aStopped && rStopped && bDone, "the interleaving did not happen");
    c.settle();
    const std::string seen = checkEventCounts(c, 1);
    c.check(countFailed(c) == 2,
            "2 failures, " + std::to_string(countFailed(c)) + " PATH_FAILED sent:" + seen);
    c.check(lmpath_user_fail_count(c.m, "8:16") == 2,
            "fail count " + std::to_string(lmpath_user_fail_count(c.m, "8:16")) +
                " after 2 failures");
    c.check(lmpath_user_nr_valid_paths(c.m) == 0 && !lmpath_user_path_usable(c.m, "8:16"),
            "nr_valid_paths is " + std::to_string(lmpath_user_nr_valid_paths(c.m)) +
                " with the only path failed");
    c.check(c.w.timerArmed, "the no-path timer is not running with no path left");
    return c.failures;
}

// One path.  An I/O error takes it out of use and stops right after; a
// reinstate_path message runs to its end there.  The reinstate reports
// the failure first: PATH_FAILED with 0, then PATH_REINSTATED with 1.
int reinstateDuringAFailureSendsItsCounts() {
    Case c("ReinstateDuringAFailureSendsItsCounts",
           "2 queue_mode bio 0 1 1 round-robin 0 1 1 8:16 1");
    c.interleave(
        "path failing", [&] { lmpath_user_io_error(c.m, "8:16"); },
        [&] { lmpath_user_reinstate_path(c.m, "8:16"); });
    c.settle();
    const std::string seen = checkEventCounts(c, 1);
    c.check(countFailed(c) == 1,
            "1 failure, " + std::to_string(countFailed(c)) + " PATH_FAILED sent:" + seen);
    c.check(lmpath_user_nr_valid_paths(c.m) == 1 && lmpath_user_path_usable(c.m, "8:16"),
            "nr_valid_paths is " + std::to_string(lmpath_user_nr_valid_paths(c.m)) +
                " with the path reinstated");
    return c.failures;
}

// One path, queue_if_no_path, failed and reported (the no-path timer
// runs).  A reinstate_path message stops once it has unlocked; the path
// fails again there and that failure is reported, arming the timer.  The
// reinstate must not stop the timer of that newer failure: with no path
// left, queued I/O would wait for ever.
int reinstateLeavesTheTimerOfANewerFailure() {
    Case c("ReinstateLeavesTheTimerOfANewerFailure",
           "3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 1 1 8:16 1");
    lmpath_user_io_error(c.m, "8:16");
    c.settle();
    c.check(c.w.timerArmed, "the first failure did not start the no-path timer");
    c.interleave(
        "reinstate unlocked", [&] { lmpath_user_reinstate_path(c.m, "8:16"); },
        [&] {
            lmpath_user_io_error(c.m, "8:16");
            runFailWork();
        });
    c.settle();
    checkEventCounts(c, 1);
    c.check(lmpath_user_nr_valid_paths(c.m) == 0 && lmpath_user_queue_if_no_path(c.m),
            "the path did not end failed with queue_if_no_path set");
    c.check(c.w.timerArmed, "the no-path timer is stopped with no path left under "
                            "queue_if_no_path: queued I/O waits for ever");
    return c.failures;
}

// Hardware handler (attached alua), one group of two paths, both failed.
// A mapper finds no valid path and stops before it acts on that; the paths
// are reinstated, a bio switches to the group (I/O held for pg_init) and
// the pg_init work starts both activations.  The mapper goes on: it must
// not release I/O held for those activations.  Another bio is mapped
// where it stops again, between its clears of current_path and
// current_pg (or after it returned, if it leaves them alone): that bio
// must wait for pg_init too.
int staleNoPathLeavesTheSwitchHoldingIo() {
    Case c("StaleNoPathLeavesTheSwitchHoldingIo",
           "2 queue_mode bio 0 1 1 round-robin 0 2 1 8:16 1 8:32 1", "alua");
    lmpath_user_io *a = lmpath_user_io_new(), *b = lmpath_user_io_new(), *d = lmpath_user_io_new();
    lmpath_user_fail_path_message(c.m, "8:16");
    lmpath_user_fail_path_message(c.m, "8:32");
    int inProgressAtD = -1;
    bool firstStop = false, secondStop = false;
    c.w.onRacePoint = [&](const char *where) {
        const std::string at(where);
        if (actor != "M1")
            return;
        if (at == "no path found" && !firstStop) {
            firstStop = true;
            std::thread other([&] {
                lmpath_user_reinstate_path(c.m, "8:16");
                lmpath_user_reinstate_path(c.m, "8:32");
                lmpath_user_map_bio(c.m, b);
                if (c.w.pgInitPending.exchange(false))
                    lmpath_user_pg_init_work(c.m);
            });
            other.join();
        } else if (at == "no path" && !secondStop) {
            secondStop = true;
            std::thread other([&] { lmpath_user_map_bio(c.m, d); });
            other.join();
            inProgressAtD = lmpath_user_pg_init_in_progress(c.m);
        }
    };
    std::thread m1([&] {
        actor = "M1";
        lmpath_user_map_bio(c.m, a);
    });
    m1.join();
    c.w.onRacePoint = nullptr;
    c.check(firstStop, "the mapper did not stop at 'no path found'");
    if (!secondStop) {
        lmpath_user_map_bio(c.m, d);
        inProgressAtD = lmpath_user_pg_init_in_progress(c.m);
    }
    c.check(c.w.activations == 2, "pg_init did not start both activations (" +
                                      std::to_string(c.w.activations.load()) + ")");
    const char *path = lmpath_user_io_path(d);
    c.check(lmpath_user_io_state(d) != LMPATH_USER_IO_MAPPED || inProgressAtD == 0,
            std::string("a bio went to ") + (path ? path : "?") + " while " +
                std::to_string(inProgressAtD) + " activation(s) of its group were running");
    // the activations end: the held bios are mapped
    lmpath_user_pg_init_done(c.m, "8:16");
    lmpath_user_pg_init_done(c.m, "8:32");
    c.settle();
    c.check(lmpath_user_io_state(b) == LMPATH_USER_IO_MAPPED, "the switching bio was not mapped");
    c.check(lmpath_user_io_state(d) == LMPATH_USER_IO_MAPPED, "the later bio was not mapped");
    lmpath_user_io_free(a);
    lmpath_user_io_free(b);
    lmpath_user_io_free(d);
    return c.failures;
}

// Bio mode, two paths, queue_if_no_path.  A bio fails on its path and
// end_io hands it to the drain work, then stops.  There the drain maps it
// to the other path, it completes, and the device is suspended and its
// table destroyed (postsuspend, dtr, free), as dm core may do once the
// last bio completed.  end_io must be done with the map by then (under
// AddressSanitizer, touching the freed map aborts).
int endIoIsDoneWithTheMapOnceTheDrainHasItsBio() {
    Case c("EndIoIsDoneWithTheMapOnceTheDrainHasItsBio",
           "3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
    lmpath_user_io *a = lmpath_user_io_new();
    lmpath_user_map_bio(c.m, a);
    c.settle();
    c.check(lmpath_user_io_state(a) == LMPATH_USER_IO_MAPPED, "the bio was not mapped");
    c.interleave(
        "bio handed over", [&] { lmpath_user_end_io_error(c.m, a); },
        [&] {
            lmpath_user_drain(c.m);
            if (lmpath_user_io_state(a) != LMPATH_USER_IO_MAPPED)
                return;
            // the bio completed: suspend, then the table goes
            lmpath_user_flush_all(c.m);
            lmpath_user_stop(c.m);
            lmpath_user_destroy(c.m);
            c.m = nullptr;
            c.w.m = nullptr;
        });
    c.check(lmpath_user_io_state(a) == LMPATH_USER_IO_MAPPED,
            "the drain did not map the bio again (state " +
                std::to_string(lmpath_user_io_state(a)) + ")");
    c.check(!c.w.otherDoneWhileStopped,
            "the map was freed while end_io, having handed its bio over, was not done with it");
    lmpath_user_io_free(a);
    return c.failures;
}

// Hardware handler (attached alua): an activation asks for a retry;
// pg_init_done has decremented pg_init_in_progress to 0 and stops as it
// starts pg_init again (it passed the test of PG_INIT_DISABLED).  A
// postsuspend runs there.  It must not return with an activation running
// (dtr would free the map under it): it waits for the restart, then for
// the activation it started (which ends when the handler queue is
// flushed).
int suspendWaitsForAPgInitRestart() {
    Case c("SuspendWaitsForAPgInitRestart", "2 queue_mode bio 0 1 1 round-robin 0 1 1 8:16 1",
           "alua");
    lmpath_user_io *b = lmpath_user_io_new();
    lmpath_user_map_bio(c.m, b);
    c.settle(); // the activation of 8:16 starts and does not end yet
    c.check(c.w.activated == " 8:16", "the activation did not start:" + c.w.activated);
    {
        std::lock_guard<std::mutex> lock(c.w.actMu);
        c.w.running.clear(); // this case ends it below
    }
    c.w.endActivationsOnFlush = true;
    int afterSuspend = -1;
    c.interleave(
        "pg_init starting", [&] { lmpath_user_pg_init_retry(c.m, "8:16"); },
        [&] {
            lmpath_user_flush_all(c.m);
            afterSuspend = lmpath_user_pg_init_in_progress(c.m);
        });
    c.check(afterSuspend == 0, "postsuspend returned with " + std::to_string(afterSuspend) +
                                   " activation(s) running (activations:" + c.w.activated +
                                   "; flushed:" + c.w.flushed + ")");
    c.w.endActivationsOnFlush = false;
    lmpath_user_io_free(b);
    return c.failures;
}

} // namespace

int main(int argc, char **argv) {
    struct {
        const char *name;
        int (*fn)();
    } const cases[] = {
        {"FirstGroupSwitchLeavesNoBioQueued", firstSwitchLeavesNoBioQueued},
        {"NoPathExitKeepsPathAndGroupTogether", noPathExitKeepsPathAndGroupTogether},
        {"PgInitWorkWithoutGroupReleasesHeldBio", pgInitWorkWithoutGroupReleasesHeldBio},
        {"HeldBioFailsWhenEveryPathFailedFirst", heldBioFailsWhenEveryPathFailedFirst},
        {"PgInitDoneDoesNotReleaseIoOfTheNextGroup", pgInitDoneDoesNotReleaseIoOfTheNextGroup},
        {"SuspendStartsNoPgInitFromAPendingKick", suspendStartsNoPgInitFromAPendingKick},
        {"SuspendWaitsForTheTailOfPgInitDone", suspendWaitsForTheTailOfPgInitDone},
        {"SuspendWaitsForAPgInitDoneThatEndsWhileItWaits",
         suspendWaitsForAPgInitDoneThatEndsWhileItWaits},
        {"DtrStopsTheTimerAfterTheFailReport", dtrStopsTheTimerAfterTheFailReport},
        {"FailureAcrossReinstateIsReportedOnceWithItsCount",
         failureAcrossReinstateIsReportedOnceWithItsCount},
        {"ReinstateDuringAFailureSendsItsCounts", reinstateDuringAFailureSendsItsCounts},
        {"ReinstateLeavesTheTimerOfANewerFailure", reinstateLeavesTheTimerOfANewerFailure},
        {"StaleNoPathLeavesTheSwitchHoldingIo", staleNoPathLeavesTheSwitchHoldingIo},
        {"EndIoIsDoneWithTheMapOnceTheDrainHasItsBio", endIoIsDoneWithTheMapOnceTheDrainHasItsBio},
        {"SuspendWaitsForAPgInitRestart", suspendWaitsForAPgInitRestart},
    };
    lmpath_user_set_nr_cpus(4, 1);
    int failed = 0, ran = 0;
    for (const auto &c : cases) {
        bool wanted = argc < 2;
        for (int i = 1; i < argc; ++i)
            wanted = wanted || !std::strcmp(argv[i], c.name);
        if (!wanted)
            continue;
        failed += c.fn();
        ran++;
    }
    if (!ran) {
        std::fprintf(stderr, "lmpath_hold_race: no such case\n");
        return 2;
    }
    std::printf("lmpath_hold_race: %d case(s), %d check(s) failed\n", ran, failed);
    return failed ? 1 : 0;
}
