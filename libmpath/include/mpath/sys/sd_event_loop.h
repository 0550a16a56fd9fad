#pragma once

#include "mpath/error.h"
#include "mpath/sys/event_loop.h"

#include <memory>

struct sd_event;

namespace mpath::sys {

/// EventLoop over sd-event: timers on CLOCK_MONOTONIC, I/O sources on
/// epoll. The daemon adds its own sources (sd-bus, signals, the
/// watchdog) to event().
class SdEventLoop final : public EventLoop {
public:
    /// A new loop of its own (not the thread's default loop).
    static Result<std::unique_ptr<SdEventLoop>> create();
    ~SdEventLoop() override;
    SdEventLoop(const SdEventLoop &) = delete;
    SdEventLoop &operator=(const SdEventLoop &) = delete;

    Clock::time_point now() const override;
    SourcePtr addTimer(Clock::duration after, std::function<void()> fn) override;
    SourcePtr addReadable(int fd, std::function<void()> fn) override;
    SourcePtr addWritable(int fd, std::function<void()> fn) override;
    SourcePtr addAfterDispatch(std::function<void()> fn) override;

    /// Runs until exit(). \return the code given to exit(), or an error
    Result<int> run();
    /// Runs one iteration, waiting at most \a timeout for an event.
    /// \return true when something was dispatched
    Result<bool> runOnce(std::chrono::microseconds timeout);
    /// Makes run() return \a code after the current callback.
    void exit(int code);

    /// The loop itself, to attach sd-bus or add signal sources.
    sd_event *event() const { return event_; }

private:
    explicit SdEventLoop(sd_event *event) : event_(event) {}
    sd_event *event_;
};

} // namespace mpath::sys
