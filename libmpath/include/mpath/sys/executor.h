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

/// Runs the work that may block (path I/O of checkers and prioritizers,
/// libdevmapper calls) on a small fixed pool of threads, and hands each
/// result back on the event loop's thread.
///
/// - Completions wake the loop through one eventfd, whatever the number of
///   jobs; each job's deadline is a loop timer. No thread waits for a job.
/// - When a job's deadline passes first, its callback gets ETIMEDOUT (the
///   work had started: its I/O did not come back), EBUSY (it never
///   started: an earlier job of its key still runs) or EAGAIN (it never
///   started: every worker was busy), and whatever the work returns later
///   is dropped.
/// - A worker whose job timed out is stuck in that job (a hung device);
///   another thread takes its place while fewer than maxStuckThreads are
///   stuck, so a few hung devices do not stop the checks of the others.
///   Past that bound, new work waits for stuck jobs to return.
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

    /// What the pool is doing, for status output and tests.
    struct Stats {
        unsigned threads{0}; ///< live worker threads, stuck ones included
        unsigned busy{0};    ///< running a job that has not timed out
        unsigned stuck{0};   ///< running a job that timed out
        size_t queued{0};    ///< waiting for a worker or for their key
        uint64_t completed{0};
        uint64_t timedOut{0};
    };

    using JobId = uint64_t;

    explicit Executor(EventLoop &loop, Options options);
    explicit Executor(EventLoop &loop) : Executor(loop, Options{}) {}
    ~Executor();
    Executor(const Executor &) = delete;
    Executor &operator=(const Executor &) = delete;

    /// Runs \a work on a worker, then \a done on the loop's thread with
    /// ok(), or with the ETIMEDOUT / EBUSY / EAGAIN error when \a timeout passed
    /// first (see the class). \a done is never called from inside
    /// submit().
    /// \param key "" for work that may run beside anything
    JobId submit(std::string key, std::chrono::milliseconds timeout, std::function<void()> work,
                 std::function<void(Result<void>)> done);

    /// submit() for work with a result: \a done gets what \a work returned,
    /// or the timeout's error.
    template <typename T>
    JobId run(std::string key, std::chrono::milliseconds timeout, std::function<Result<T>()> work,
              std::function<void(Result<T>)> done) {
        auto slot = std::make_shared<std::optional<Result<T>>>();
        return submit(
            std::move(key), timeout, [slot, work = std::move(work)] { slot->emplace(work()); },
            [slot, done = std::move(done)](Result<void> r) {
                if (r && slot->has_value())
                    done(std::move(**slot));
                else
                    done(r ? Error{EIO, "the job ended without a result"} : r.error());
            });
    }

    /// Forgets job \a id: its \a done is never called. A job that has not
    /// started never starts; a running one runs on, its result dropped.
    void cancel(JobId id);

    Stats stats() const;

private:
    struct Core;
    struct Job;
    struct LoopSide;
    void onCompletions();
    void onDeadline(JobId id);

    EventLoop &loop_;
    std::shared_ptr<Core> core_;     ///< shared with the workers
    std::unique_ptr<LoopSide> side_; ///< callbacks and deadlines, loop thread only
    EventLoop::SourcePtr wakeup_;
};

} // namespace mpath::sys
