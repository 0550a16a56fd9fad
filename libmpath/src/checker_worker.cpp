#include "checker_worker.h"

#include <cerrno>
#include <mutex>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <thread>
#include <unistd.h>

namespace mpath {

/// Shared by a checker and the thread running its job. The eventfd is
/// closed when the last of the two lets go.
struct CheckerWorker::Run {
    Run() : eventFd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
    ~Run() {
        if (eventFd >= 0)
            ::close(eventFd);
    }
    Run(const Run &) = delete;
    Run &operator=(const Run &) = delete;

    void finish(CheckOutcome o) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            outcome = std::move(o);
            done = true;
        }
        uint64_t one = 1;
        (void)!::write(eventFd, &one, sizeof(one));
    }

    bool finished(CheckOutcome *out) {
        std::lock_guard<std::mutex> lock(mutex);
        if (done && out)
            *out = outcome;
        return done;
    }

    const int eventFd;
    std::mutex mutex; ///< protects outcome and done
    CheckOutcome outcome;
    bool done{false};
};

CheckerWorker::CheckerWorker() {
    epollFd_ = epoll_create1(EPOLL_CLOEXEC);
    timerFd_ = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (epollFd_ < 0 || timerFd_ < 0) {
        error_ = -errno;
        return;
    }
    struct epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.fd = timerFd_;
    if (epoll_ctl(epollFd_, EPOLL_CTL_ADD, timerFd_, &ev) < 0)
        error_ = -errno;
}

CheckerWorker::~CheckerWorker() {
    if (timerFd_ >= 0)
        ::close(timerFd_);
    if (epollFd_ >= 0)
        ::close(epollFd_);
}

bool CheckerWorker::stuck() const {
    return stuck_ && !stuck_->finished(nullptr);
}

void CheckerWorker::detach() {
    if (!run_)
        return;
    (void)epoll_ctl(epollFd_, EPOLL_CTL_DEL, run_->eventFd, nullptr);
    run_.reset();
    struct itimerspec off {};
    (void)timerfd_settime(timerFd_, 0, &off, nullptr);
    uint64_t v;
    (void)!::read(timerFd_, &v, sizeof(v));
}

int CheckerWorker::post(CheckOutcome outcome) {
    if (error_)
        return error_;
    detach();
    auto run = std::make_shared<Run>();
    if (run->eventFd < 0)
        return -errno;
    struct epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.fd = run->eventFd;
    if (epoll_ctl(epollFd_, EPOLL_CTL_ADD, run->eventFd, &ev) < 0)
        return -errno;
    run->finish(std::move(outcome));
    run_ = std::move(run);
    return 0;
}

int CheckerWorker::start(std::function<CheckOutcome()> job, std::chrono::milliseconds timeout) {
    if (error_)
        return error_;
    if (stuck())
        return -EBUSY;
    stuck_.reset();
    detach();
    auto run = std::make_shared<Run>();
    if (run->eventFd < 0)
        return -errno;
    struct epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.fd = run->eventFd;
    if (epoll_ctl(epollFd_, EPOLL_CTL_ADD, run->eventFd, &ev) < 0)
        return -errno;
    auto ms = timeout.count() > 0 ? timeout.count() : 1;
    struct itimerspec when {};
    when.it_value.tv_sec = ms / 1000;
    when.it_value.tv_nsec = (ms % 1000) * 1000000;
    if (timerfd_settime(timerFd_, 0, &when, nullptr) < 0) {
        int e = -errno;
        (void)epoll_ctl(epollFd_, EPOLL_CTL_DEL, run->eventFd, nullptr);
        return e;
    }
    try {
        std::thread([run, job = std::move(job)]() {
            CheckOutcome o;
            try {
                o = job();
            } catch (...) {
                o = CheckOutcome{CheckerState::Down, "checker failed"};
            }
            run->finish(std::move(o));
        }).detach();
    } catch (const std::system_error &e) {
        detach();
        return -e.code().value();
    }
    run_ = std::move(run);
    return 0;
}

bool CheckerWorker::collect(CheckOutcome &out) {
    if (!run_)
        return false;
    if (run_->finished(&out)) {
        detach();
        return true;
    }
    uint64_t expirations = 0;
    if (::read(timerFd_, &expirations, sizeof(expirations)) == sizeof(expirations) &&
        expirations > 0) {
        // Check once more: the job may have finished just now.
        if (run_->finished(&out)) {
            detach();
            return true;
        }
        out = CheckOutcome{CheckerState::Timeout, "no answer within the timeout"};
        stuck_ = run_;
        detach();
        return true;
    }
    return false;
}

} // namespace mpath
