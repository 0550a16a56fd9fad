#include "mpath/sys/executor.h"

#include "mpath/sys/thread_annotations.h"
#include "mpath/sys/unique_fd.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <pthread.h>
#include <set>
#include <sys/eventfd.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace mpath::sys {

/// One submitted job, shared by the queue and the worker running it.
struct Executor::Job {
    enum class State {
        Queued,    ///< waiting for a worker or for its key
        Running,   ///< a worker runs it, within its deadline
        Abandoned, ///< it timed out or was cancelled while running
    };

    JobId id{0};
    std::string key;
    std::function<void()> work;
    State state{State::Queued};
    bool timedOut{false}; ///< Abandoned by its deadline (its worker is stuck)
};

/// What the workers share with the executor. Workers hold it, so a stuck
/// worker that returns after the executor is gone still finds it.
struct Executor::Core {
    explicit Core(Options o) : options(o), wakeFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

    /// A finished job and how it ended.
    struct Finished {
        JobId id;
        Result<void> result;
    };

    const Options options;
    const UniqueFd wakeFd; ///< readable while finished jobs wait for the loop

    Mutex mutex;                      ///< protects everything below
    std::condition_variable_any wake; ///< queue or key changes, stopping
    std::deque<std::shared_ptr<Job>> queue MPATH_GUARDED_BY(mutex);
    std::unordered_map<JobId, std::shared_ptr<Job>> jobs MPATH_GUARDED_BY(mutex);
    std::set<std::string> busyKeys MPATH_GUARDED_BY(mutex);
    std::vector<Finished> finished MPATH_GUARDED_BY(mutex);
    std::vector<JobId> started MPATH_GUARDED_BY(mutex); ///< not yet seen by the loop
    unsigned threads MPATH_GUARDED_BY(mutex) = 0;
    unsigned busy MPATH_GUARDED_BY(mutex) = 0;
    unsigned stuck MPATH_GUARDED_BY(mutex) = 0;
    uint64_t startedCount MPATH_GUARDED_BY(mutex) = 0;
    uint64_t completed MPATH_GUARDED_BY(mutex) = 0;
    uint64_t timedOut MPATH_GUARDED_BY(mutex) = 0;
    uint64_t neverStarted MPATH_GUARDED_BY(mutex) = 0;
    bool stopping MPATH_GUARDED_BY(mutex) = false;
    std::condition_variable_any threadExited;

    /// The first queued job whose key is free, taken off the queue.
    std::shared_ptr<Job> takeRunnable() MPATH_REQUIRES(mutex) {
        for (auto it = queue.begin(); it != queue.end(); ++it) {
            if (!(*it)->key.empty() && busyKeys.count((*it)->key))
                continue;
            auto job = *it;
            queue.erase(it);
            return job;
        }
        return nullptr;
    }

    void wakeLoop() {
        const uint64_t one = 1;
        (void)!::write(wakeFd.get(), &one, sizeof(one));
    }

    /// Starts a worker thread, detached, with a small stack; the caller
    /// has counted it in threads (and this uncounts it when no thread can
    /// be made).
    static void startThread(const std::shared_ptr<Core> &core) MPATH_REQUIRES(core->mutex) {
        auto *arg = new std::shared_ptr<Core>(core);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, kStackSize);
        pthread_t t;
        const int r = pthread_create(
            &t, &attr,
            [](void *p) -> void * {
                std::unique_ptr<std::shared_ptr<Core>> c(static_cast<std::shared_ptr<Core> *>(p));
                (*c)->workerLoop();
                return nullptr;
            },
            arg);
        pthread_attr_destroy(&attr);
        if (r != 0) {
            delete arg;
            --core->threads; // work waits for the threads there are
        }
    }

    void workerLoop() MPATH_EXCLUDES(mutex) {
        mutex.lock();
        for (;;) {
            std::shared_ptr<Job> job;
            // Stuck threads are counted in threads but do not take work:
            // with nothing to run, retire when more would take work than
            // wanted (a stuck one came back, a burst is over).
            while (!stopping && !(job = takeRunnable()) && threads - stuck <= options.threads)
                wake.wait(mutex.native());
            if (!job) {
                --threads;
                threadExited.notify_all();
                mutex.unlock();
                return;
            }
            job->state = Job::State::Running;
            if (!job->key.empty())
                busyKeys.insert(job->key);
            ++busy;
            ++startedCount;
            started.push_back(job->id); // its running bound starts now
            wakeLoop();
            mutex.unlock();

            Result<void> result = ok();
            try {
                job->work();
            } catch (const std::exception &e) {
                result = Error{EIO, std::string("the job failed: ") + e.what()};
            } catch (...) {
                result = Error{EIO, "the job failed"};
            }
            job->work = nullptr; // release what it owns on this thread

            mutex.lock();
            if (!job->key.empty())
                busyKeys.erase(job->key);
            jobs.erase(job->id);
            if (job->state == Job::State::Abandoned && job->timedOut) {
                --stuck;
            } else {
                --busy;
                if (job->state == Job::State::Running) {
                    ++completed;
                    finished.push_back({job->id, std::move(result)});
                    wakeLoop();
                }
            }
            wake.notify_all(); // its key is free
        }
    }
};

/// The loop's side of the jobs: callbacks and deadlines. Only the loop's
/// thread touches it.
struct Executor::LoopSide {
    struct Pending {
        std::function<void(Result<void>)> done;
        EventLoop::SourcePtr deadline; ///< the queued bound, then the running one
        Limits limits{};
        EventLoop::Clock::time_point submitted{};
        bool running{false}; ///< the loop knows that it started
    };
    std::unordered_map<JobId, Pending> pending;
    JobId nextId{1};
};

namespace {

Executor::Options normalized(Executor::Options o) {
    o.threads = std::max(1u, o.threads);
    return o;
}

} // namespace

Executor::Executor(EventLoop &loop, Options options)
    : loop_(loop), core_(std::make_shared<Core>(normalized(options))),
      side_(std::make_unique<LoopSide>()) {
    wakeup_ = loop_.addReadable(core_->wakeFd.get(), [this] { onCompletions(); });
    MutexLock lock(core_->mutex);
    for (unsigned i = 0; i < core_->options.threads; ++i) {
        ++core_->threads;
        Core::startThread(core_);
    }
}

Executor::~Executor() {
    wakeup_.reset();
    side_->pending.clear();
    MutexLock lock(core_->mutex);
    core_->stopping = true;
    for (auto &job : core_->queue)
        core_->jobs.erase(job->id);
    core_->queue.clear();
    // Running jobs are abandoned: their threads finish on their own.
    for (auto &[id, job] : core_->jobs)
        job->state = Job::State::Abandoned;
    core_->wake.notify_all();
    // Wait for the idle workers only; a busy one may be stuck for good.
    while (core_->threads > core_->busy + core_->stuck)
        core_->threadExited.wait(core_->mutex.native());
}

Executor::JobId Executor::submit(std::string key, Limits limits, std::function<void()> work,
                                 std::function<void(Result<void>)> done) {
    auto job = std::make_shared<Job>();
    job->id = side_->nextId++;
    job->key = std::move(key);
    job->work = std::move(work);
    const JobId id = job->id;

    LoopSide::Pending p;
    p.done = std::move(done);
    p.limits = limits;
    p.submitted = loop_.now();
    p.deadline = loop_.addTimer(limits.queued, [this, id] { onQueueDeadline(id); });
    side_->pending.emplace(id, std::move(p));

    MutexLock lock(core_->mutex);
    core_->jobs.emplace(id, job);
    core_->queue.push_back(std::move(job));
    // More jobs waiting than free workers: a burst worker, while there may
    // be one. Not while stuck workers hold the pool below its size (they
    // are past maxStuckThreads): then work waits, as it does without a
    // burst.
    const unsigned working = core_->threads - core_->stuck;
    if (core_->queue.size() > working - core_->busy && working >= core_->options.threads &&
        working < core_->options.threads + core_->options.burstThreads) {
        ++core_->threads;
        Core::startThread(core_);
    }
    core_->wake.notify_all();
    return id;
}

void Executor::cancel(JobId id) {
    side_->pending.erase(id);
    MutexLock lock(core_->mutex);
    auto it = core_->jobs.find(id);
    if (it == core_->jobs.end())
        return;
    auto job = it->second;
    if (job->state == Job::State::Queued) {
        core_->queue.erase(std::find(core_->queue.begin(), core_->queue.end(), job));
        core_->jobs.erase(it);
    } else {
        job->state = Job::State::Abandoned; // runs on; nobody hears of it
    }
}

void Executor::takeStarted() {
    std::vector<JobId> started;
    {
        MutexLock lock(core_->mutex);
        started.swap(core_->started);
    }
    for (JobId id : started) {
        auto p = side_->pending.find(id);
        if (p == side_->pending.end() || p->second.running)
            continue; // cancelled, or answered already
        p->second.running = true;
        p->second.deadline =
            loop_.addTimer(p->second.limits.running, [this, id] { onRunDeadline(id); });
    }
}

void Executor::onQueueDeadline(JobId id) {
    // A start the loop has not heard of yet: its running bound applies.
    takeStarted();
    auto p = side_->pending.find(id);
    if (p == side_->pending.end() || p->second.running)
        return;
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(loop_.now() - p->second.submitted);
    Error why;
    {
        MutexLock lock(core_->mutex);
        auto it = core_->jobs.find(id);
        if (it == core_->jobs.end())
            return; // it finished just now: its completion is on the way
        auto job = it->second;
        if (job->state != Job::State::Queued)
            return; // it started after takeStarted(): its start is on the way
        core_->queue.erase(std::find(core_->queue.begin(), core_->queue.end(), job));
        core_->jobs.erase(it);
        ++core_->neverStarted;
        const std::string after = " (queued " + std::to_string(waited.count()) + " ms)";
        if (!job->key.empty() && core_->busyKeys.count(job->key))
            why =
                Error{EBUSY, "not started: an earlier job for " + job->key + " still runs" + after};
        else
            why = Error{EAGAIN, "not started: every worker was busy" + after};
    }
    auto done = std::move(p->second.done);
    side_->pending.erase(p);
    done(std::move(why));
}

void Executor::onRunDeadline(JobId id) {
    auto p = side_->pending.find(id);
    if (p == side_->pending.end())
        return;
    {
        MutexLock lock(core_->mutex);
        auto it = core_->jobs.find(id);
        if (it == core_->jobs.end())
            return; // it finished just now: its completion is on the way
        auto job = it->second;
        job->state = Job::State::Abandoned;
        job->timedOut = true;
        --core_->busy;
        ++core_->stuck;
        ++core_->timedOut;
        // Keep options.threads workers taking jobs while the stuck ones
        // are few.
        if (core_->stuck <= core_->options.maxStuckThreads &&
            core_->threads - core_->stuck < core_->options.threads) {
            ++core_->threads;
            Core::startThread(core_);
        }
    }
    auto done = std::move(p->second.done);
    const auto ran = p->second.limits.running;
    side_->pending.erase(p);
    done(Error{ETIMEDOUT, "no answer within " + std::to_string(ran.count()) + " ms of starting"});
}

void Executor::onCompletions() {
    uint64_t count = 0;
    (void)!::read(core_->wakeFd.get(), &count, sizeof(count));
    takeStarted();
    std::vector<Core::Finished> finished;
    {
        MutexLock lock(core_->mutex);
        finished.swap(core_->finished);
    }
    for (auto &f : finished) {
        auto p = side_->pending.find(f.id);
        if (p == side_->pending.end())
            continue; // cancelled, or a bound passed first
        auto done = std::move(p->second.done);
        side_->pending.erase(p);
        done(std::move(f.result));
    }
}

Executor::Stats Executor::stats() const {
    MutexLock lock(core_->mutex);
    Stats s;
    s.threads = core_->threads;
    s.busy = core_->busy;
    s.stuck = core_->stuck;
    s.queued = core_->queue.size();
    s.started = core_->startedCount;
    s.completed = core_->completed;
    s.timedOut = core_->timedOut;
    s.neverStarted = core_->neverStarted;
    return s;
}

} // namespace mpath::sys
