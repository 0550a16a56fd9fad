#pragma once

#include "mpath/checker.h"

#include <chrono>
#include <functional>
#include <memory>

namespace mpath {

/// The descriptors behind Checker::fd(): an epoll set holding a timerfd
/// for the deadline and the eventfd of the running job. The job's
/// result lives in a block shared with its thread, so a job that never
/// returns only keeps that block alive.
class CheckerWorker {
public:
    CheckerWorker();
    ~CheckerWorker();
    CheckerWorker(const CheckerWorker &) = delete;
    CheckerWorker &operator=(const CheckerWorker &) = delete;

    /// 0, or a negative error code when the descriptors could not be made.
    int error() const { return error_; }
    int fd() const { return epollFd_; }

    /// True while the thread of an earlier, timed-out job still runs.
    bool stuck() const;

    /// Arms the deadline and runs \p job on a new thread.
    int start(std::function<CheckOutcome()> job, std::chrono::milliseconds timeout);

    /// Posts \p outcome as if a job had finished, without a thread.
    int post(CheckOutcome outcome);

    /// False while the job runs and the deadline has not passed; else true
    /// with \p out set (Timeout when the deadline won) and readiness cleared.
    bool collect(CheckOutcome &out);

private:
    struct Run;
    void detach();

    int error_{0};
    int epollFd_{-1};
    int timerFd_{-1};
    std::shared_ptr<Run> run_;   ///< the job being waited for
    std::shared_ptr<Run> stuck_; ///< a job that timed out, until it returns
};

} // namespace mpath
