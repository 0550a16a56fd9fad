#pragma once

#include <chrono>
#include <functional>
#include <memory>

namespace mpath::sys {

/// The loop libmpath's asynchronous parts run on. One thread runs it and
/// every callback; nothing registered here may block. SdEventLoop runs it
/// on sd-event; tests drive mpath::testing::ManualLoop, whose clock moves
/// only when the test moves it.
class EventLoop {
public:
    using Clock = std::chrono::steady_clock;

    /// A registered callback; destroying it unregisters the callback, also
    /// from inside the callback itself.
    class Source {
    public:
        virtual ~Source() = default;
    };
    using SourcePtr = std::unique_ptr<Source>;

    virtual ~EventLoop() = default;

    /// The loop's monotonic time.
    virtual Clock::time_point now() const = 0;

    /// Calls \a fn once, \a after from now(). Like addReadable(), returns
    /// null only when the loop cannot take another source (out of memory).
    virtual SourcePtr addTimer(Clock::duration after, std::function<void()> fn) = 0;

    /// Calls \a fn each time \a fd polls readable, until the source goes.
    /// The caller keeps \a fd open while the source lives.
    virtual SourcePtr addReadable(int fd, std::function<void()> fn) = 0;

    /// Calls \a fn each time \a fd polls writable, until the source goes:
    /// for an answer longer than a socket takes at once.
    virtual SourcePtr addWritable(int fd, std::function<void()> fn) = 0;

    /// Calls \a fn after each callback the loop runs (a timer, a readable
    /// descriptor), so that what they changed can be published at once.
    virtual SourcePtr addAfterDispatch(std::function<void()> fn) = 0;
};

} // namespace mpath::sys
