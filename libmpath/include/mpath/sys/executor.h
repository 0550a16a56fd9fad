#pragma once

#include "mpath/error.h"
#include "mpath/sys/event_loop.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mpath::sys {

/// Runs the work that may block (libdevmapper calls, the submission of a
/// path's I/O, prioritizers' commands) on a small pool of threads, and
/// hands each result back on the event loop's thread. A daemon keeps one
/// executor per lane, so that work of one kind can never take the
/// capacity another needs.
///
/// - Completions wake the loop through one eventfd, whatever the number of
///   jobs. No thread waits for a job.
/// - A job has two bounds (Limits): how long it may wait for a worker
///   (queued), and how long it may run once a worker took it (running),
///   counted from when the loop learnt that it started. Past the first, its
///   callback gets EBUSY (an earlier job of its key still runs) or EAGAIN
///   (every worker was busy), and it never starts; past the second, it gets
///   ETIMEDOUT (its I/O did not come back) and whatever the work returns
///   later is dropped.
/// - A worker whose job timed out is stuck in that job (a hung device);
///   another thread takes its place while fewer than maxStuckThreads are
///   stuck. Past that bound, new work waits for stuck jobs to return: the
///   number of threads never exceeds threads + maxStuckThreads +
///   burstThreads.
/// - With burstThreads, a burst of jobs gets more workers for as long as
///   it lasts.
/// - Jobs with the same key never run at the same time and start in the
///   order they were submitted: one device's checks, one map's
///   device-mapper calls.
/// - The work must own what it uses (capture by value): a stuck job
///   outlives its submitter, and the executor too, which detaches stuck
///   threads when it goes away instead of waiting for them.
class Executor {
public:
    struct Options {
        unsigned threads{4};          ///< workers kept ready
        unsigned maxStuckThreads{16}; ///< extra workers for stuck ones, at most
        /// Extra workers started while jobs wait and no worker is free,
        /// at most; each leaves as soon as it finds nothing to run. For
        /// work that mostly waits (a device-mapper call waiting for udev).
        unsigned burstThreads{0};
    };

    /// A job's two bounds (see the class).
    struct Limits {
        std::chrono::milliseconds queued; ///< waiting for a worker or for its key
        std::chrono::milliseconds running;
    };

    /// What the pool is doing, for status output and tests.
    struct Stats {
        unsigned threads{0}; ///< live worker threads, stuck ones included
        unsigned busy{0};    ///< running a job that has not timed out
        unsigned stuck{0};   ///< running a job that timed out
        size_t queued{0};    ///< waiting for a worker or for their key
        uint64_t started{0};
        uint64_t completed{0};
        uint64_t timedOut{0};     ///< ran past their running bound
        uint64_t neverStarted{0}; ///< waited past their queued bound
    };

    using JobId = uint64_t;

    /// Stack size of the workers: they run short library calls, and a
    /// daemon that locks its memory pays for every page of it.
    static constexpr size_t kStackSize = 512 * 1024;

    explicit Executor(EventLoop &loop, Options options);
    explicit Executor(EventLoop &loop) : Executor(loop, Options{}) {}
    ~Executor();
    Executor(const Executor &) = delete;
    Executor &operator=(const Executor &) = delete;

    /// Runs \a work on a worker, then \a done on the loop's thread with
    /// ok(), or with the EBUSY / EAGAIN / ETIMEDOUT error of a bound that
    /// passed first (see the class). \a done is never called from inside
    /// submit().
    /// \param key "" for work that may run beside anything
    JobId submit(std::string key, Limits limits, std::function<void()> work,
                 std::function<void(Result<void>)> done);
    /// submit() with \a timeout as both bounds.
    JobId submit(std::string key, std::chrono::milliseconds timeout, std::function<void()> work,
                 std::function<void(Result<void>)> done) {
        return submit(std::move(key), Limits{timeout, timeout}, std::move(work), std::move(done));
    }

    /// submit() for work with a result: \a done gets what \a work returned,
    /// or the bound's error.
    template <typename T>
    JobId run(std::string key, Limits limits, std::function<Result<T>()> work,
              std::function<void(Result<T>)> done) {
        auto slot = std::make_shared<std::optional<Result<T>>>();
        return submit(
            std::move(key), limits, [slot, work = std::move(work)] { slot->emplace(work()); },
            [slot, done = std::move(done)](Result<void> r) {
                if (r && slot->has_value())
                    done(std::move(**slot));
                else
                    done(r ? Error{EIO, "the job ended without a result"} : r.error());
            });
    }
    template <typename T>
    JobId run(std::string key, std::chrono::milliseconds timeout, std::function<Result<T>()> work,
              std::function<void(Result<T>)> done) {
        return run<T>(std::move(key), Limits{timeout, timeout}, std::move(work), std::move(done));
    }

    /// Whether an error a job's \a done got means that the job never ran
    /// (EBUSY, EAGAIN: it waited past its queued bound).
    static bool neverStarted(const Error &e) { return e.code == EBUSY || e.code == EAGAIN; }

    /// Forgets job \a id: its \a done is never called. A job that has not
    /// started never starts; a running one runs on, its result dropped.
    void cancel(JobId id);

    Stats stats() const;

private:
    struct Core;
    struct Job;
    struct LoopSide;
    void onCompletions();
    /// Arms the running bound of the jobs that started since the last call.
    void takeStarted();
    void onQueueDeadline(JobId id);
    void onRunDeadline(JobId id);

    EventLoop &loop_;
    std::shared_ptr<Core> core_;     ///< shared with the workers
    std::unique_ptr<LoopSide> side_; ///< callbacks and deadlines, loop thread only
    EventLoop::SourcePtr wakeup_;
};

} // namespace mpath::sys
