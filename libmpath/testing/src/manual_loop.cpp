#include "mpath/testing/manual_loop.h"

#include <poll.h>
#include <vector>

namespace mpath::testing {

struct ManualLoop::Timer {
    Clock::time_point when;
    std::function<void()> fn;
};

struct ManualLoop::Reader {
    int fd;
    std::function<void()> fn;
    short events{POLLIN}; ///< what it waits for: POLLIN or POLLOUT
};

// A source removes its entry when it goes; the maps outlive the loop's
// sources through shared ownership, so order of destruction is free.
class ManualLoop::TimerSource final : public Source {
public:
    TimerSource(std::weak_ptr<TimerMap> m, TimerKey key) : m_(std::move(m)), key_(key) {}
    ~TimerSource() override {
        if (auto m = m_.lock())
            m->erase(key_);
    }

private:
    std::weak_ptr<TimerMap> m_;
    TimerKey key_;
};

class ManualLoop::ReaderSource final : public Source {
public:
    ReaderSource(std::weak_ptr<std::map<uint64_t, std::shared_ptr<Reader>>> m, uint64_t id)
        : m_(std::move(m)), id_(id) {}
    ~ReaderSource() override {
        if (auto m = m_.lock())
            m->erase(id_);
    }

private:
    std::weak_ptr<std::map<uint64_t, std::shared_ptr<Reader>>> m_;
    uint64_t id_;
};

ManualLoop::ManualLoop()
    : now_(Clock::time_point{} + std::chrono::hours(1)), timers_(std::make_shared<TimerMap>()),
      readers_(std::make_shared<std::map<uint64_t, std::shared_ptr<Reader>>>()),
      afters_(std::make_shared<std::map<uint64_t, std::shared_ptr<Reader>>>()) {}

ManualLoop::~ManualLoop() = default;

sys::EventLoop::SourcePtr ManualLoop::addTimer(Clock::duration after, std::function<void()> fn) {
    const TimerKey key{now_ + after, nextId_++};
    timers_->emplace(key, std::make_shared<Timer>(Timer{key.first, std::move(fn)}));
    return std::make_unique<TimerSource>(timers_, key);
}

sys::EventLoop::SourcePtr ManualLoop::addReadable(int fd, std::function<void()> fn) {
    const uint64_t id = nextId_++;
    readers_->emplace(id, std::make_shared<Reader>(Reader{fd, std::move(fn)}));
    return std::make_unique<ReaderSource>(readers_, id);
}

sys::EventLoop::SourcePtr ManualLoop::addWritable(int fd, std::function<void()> fn) {
    const uint64_t id = nextId_++;
    readers_->emplace(id, std::make_shared<Reader>(Reader{fd, std::move(fn), POLLOUT}));
    return std::make_unique<ReaderSource>(readers_, id);
}

sys::EventLoop::SourcePtr ManualLoop::addAfterDispatch(std::function<void()> fn) {
    const uint64_t id = nextId_++;
    afters_->emplace(id, std::make_shared<Reader>(Reader{-1, std::move(fn)}));
    return std::make_unique<ReaderSource>(afters_, id);
}

void ManualLoop::afterDispatch() {
    std::vector<std::shared_ptr<Reader>> run;
    for (const auto &[id, a] : *afters_)
        run.push_back(a);
    for (const auto &a : run)
        a->fn();
}

void ManualLoop::advance(Clock::duration by) {
    const Clock::time_point end = now_ + by;
    for (;;) {
        // The earliest due timer; ties in the order they were added.
        if (timers_->empty() || timers_->begin()->first.first > end)
            break;
        std::shared_ptr<Timer> next = timers_->begin()->second;
        timers_->erase(timers_->begin()); // fired: its source's removal finds nothing
        if (next->when > now_)
            now_ = next->when;
        next->fn();
        afterDispatch();
    }
    now_ = end;
}

bool ManualLoop::dispatch(std::chrono::milliseconds wait) {
    std::vector<pollfd> fds;
    std::vector<std::shared_ptr<Reader>> readers;
    for (const auto &[id, r] : *readers_) {
        fds.push_back({r->fd, r->events, 0});
        readers.push_back(r);
    }
    if (fds.empty())
        return false;
    if (::poll(fds.data(), fds.size(), static_cast<int>(wait.count())) <= 0)
        return false;
    bool ran = false;
    for (size_t i = 0; i < fds.size(); ++i) {
        // A writer whose peer went calls back too, as epoll does: its
        // write says so.
        const short wake = fds[i].events == POLLOUT ? (POLLOUT | POLLHUP | POLLERR) : POLLIN;
        if (!(fds[i].revents & wake))
            continue;
        // Still registered? An earlier callback may have removed it.
        bool live = false;
        for (const auto &[id, r] : *readers_)
            live = live || r == readers[i];
        if (!live)
            continue;
        readers[i]->fn();
        afterDispatch();
        ran = true;
    }
    return ran;
}

bool ManualLoop::runUntil(const std::function<bool()> &done, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return done();
        dispatch(std::min(left, std::chrono::milliseconds(50)));
    }
    return true;
}

size_t ManualLoop::pendingTimers() const {
    return timers_->size();
}

} // namespace mpath::testing
