#include "mpath/checker.h"

#include "checker_worker.h"
#include "mpath/directio_checker.h"
#include "mpath/readsector0_checker.h"
#include "mpath/tur_checker.h"

#include <cerrno>
#include <poll.h>

namespace mpath {

Checker::Checker(std::string devnode)
    : devnode_(std::move(devnode)), worker_(std::make_unique<CheckerWorker>()) {}

Checker::~Checker() = default;

std::unique_ptr<Checker> Checker::create(std::string_view name, std::string devnode) {
    if (name == "tur")
        return std::make_unique<TurChecker>(std::move(devnode));
    if (name == "directio")
        return std::make_unique<DirectioChecker>(std::move(devnode));
    if (name == "readsector0")
        return std::make_unique<Readsector0Checker>(std::move(devnode));
    if (name == "none")
        return std::make_unique<NoneChecker>(std::move(devnode));
    return nullptr;
}

std::vector<std::string> Checker::names() {
    return {"tur", "directio", "readsector0", "none"};
}

int Checker::start(std::chrono::milliseconds timeout) {
    if (running_)
        return -EINPROGRESS;
    int r = inlineJob() ? worker_->post(job(timeout)()) : worker_->start(job(timeout), timeout);
    if (r < 0)
        return r;
    running_ = true;
    last_ = CheckOutcome{CheckerState::Pending, ""};
    return 0;
}

int Checker::fd() const {
    return worker_->fd();
}

CheckerState Checker::result() {
    if (running_) {
        CheckOutcome o;
        if (worker_->collect(o)) {
            last_ = std::move(o);
            running_ = false;
        }
    }
    return last_.state;
}

CheckerState Checker::check(std::chrono::milliseconds timeout) {
    if (int r = start(timeout); r < 0) {
        last_ = CheckOutcome{r == -EBUSY ? CheckerState::Timeout : CheckerState::Down,
                             r == -EBUSY ? "an earlier check is still in the kernel"
                                         : "could not start the check"};
        return last_.state;
    }
    while (result() == CheckerState::Pending) {
        struct pollfd p {
            fd(), POLLIN, 0
        };
        if (::poll(&p, 1, -1) < 0 && errno != EINTR)
            break;
    }
    return last_.state;
}

std::function<CheckOutcome()> NoneChecker::job(std::chrono::milliseconds) const {
    return [] { return CheckOutcome{CheckerState::Up, "not checked"}; };
}

} // namespace mpath
