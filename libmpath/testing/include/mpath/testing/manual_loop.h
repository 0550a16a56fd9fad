#pragma once

#include "mpath/sys/event_loop.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <utility>

namespace mpath::testing {

/// An EventLoop for deterministic tests: timers fire only when the test
/// moves the clock with advance(); readable descriptors (the executor's
/// completions, a fake udev monitor) are dispatched by dispatch() and
/// runUntil(), which poll them for real.
class ManualLoop final : public sys::EventLoop {
public:
    ManualLoop();
    ~ManualLoop() override;

    Clock::time_point now() const override { return now_; }
    SourcePtr addTimer(Clock::duration after, std::function<void()> fn) override;
    SourcePtr addReadable(int fd, std::function<void()> fn) override;
    SourcePtr addWritable(int fd, std::function<void()> fn) override;
    SourcePtr addAfterDispatch(std::function<void()> fn) override;

    /// Moves the clock forward by \a by, firing every timer that falls due,
    /// in order of its time, with now() at that time.
    void advance(Clock::duration by);

    /// Calls the callbacks of the descriptors that are readable, waiting up
    /// to \a wait (real time) for the first one.
    /// \return true when a callback ran
    bool dispatch(std::chrono::milliseconds wait = std::chrono::milliseconds(0));

    /// Dispatches readable descriptors until \a done() is true or \a limit
    /// (real time) has passed. The clock does not move.
    /// \return done()
    bool runUntil(const std::function<bool()> &done,
                  std::chrono::milliseconds limit = std::chrono::seconds(10));

    /// Timers registered and not fired or removed.
    size_t pendingTimers() const;

private:
    struct Timer;
    struct Reader;
    class TimerSource;
    class ReaderSource;

    Clock::time_point now_;
    uint64_t nextId_{1};
    /// Timers by when they are due, then in the order they were added.
    using TimerKey = std::pair<Clock::time_point, uint64_t>;
    using TimerMap = std::map<TimerKey, std::shared_ptr<Timer>>;
    std::shared_ptr<TimerMap> timers_;
    std::shared_ptr<std::map<uint64_t, std::shared_ptr<Reader>>> readers_;
    std::shared_ptr<std::map<uint64_t, std::shared_ptr<Reader>>> afters_; ///< fd unused

    void afterDispatch();
};

} // namespace mpath::testing
