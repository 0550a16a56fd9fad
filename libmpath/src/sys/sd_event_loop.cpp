#include "mpath/sys/sd_event_loop.h"

#include <systemd/sd-event.h>

namespace mpath::sys {

namespace {

/// A registered sd-event source and its callback. The callback is moved
/// out before it runs, so a callback that destroys its own source (a
/// finished timer, the last read) does not free what is running.
class SdSource final : public EventLoop::Source {
public:
    explicit SdSource(std::function<void()> fn) : fn_(std::move(fn)) {}
    ~SdSource() override {
        if (source_) {
            (void)sd_event_source_set_enabled(source_, SD_EVENT_OFF);
            sd_event_source_unref(source_);
        }
    }
    SdSource(const SdSource &) = delete;
    SdSource &operator=(const SdSource &) = delete;

    void attach(sd_event_source *s) { source_ = s; }
    void call() {
        auto fn = fn_; // the source may be destroyed by fn
        fn();
    }

    static int onTime(sd_event_source *, uint64_t, void *self) {
        static_cast<SdSource *>(self)->call();
        return 0;
    }
    static int onPost(sd_event_source *, void *self) {
        static_cast<SdSource *>(self)->call();
        return 0;
    }
    static int onIo(sd_event_source *, int, uint32_t, void *self) {
        static_cast<SdSource *>(self)->call();
        return 0;
    }

private:
    std::function<void()> fn_;
    sd_event_source *source_{nullptr};
};

} // namespace

Result<std::unique_ptr<SdEventLoop>> SdEventLoop::create() {
    sd_event *e = nullptr;
    if (int r = sd_event_new(&e); r < 0)
        return Error::fromErrno(-r, "cannot create an event loop");
    return std::unique_ptr<SdEventLoop>(new SdEventLoop(e));
}

SdEventLoop::~SdEventLoop() {
    sd_event_unref(event_);
}

EventLoop::Clock::time_point SdEventLoop::now() const {
    // sd-event's CLOCK_MONOTONIC is steady_clock's clock on Linux.
    return Clock::now();
}

EventLoop::SourcePtr SdEventLoop::addTimer(Clock::duration after, std::function<void()> fn) {
    auto src = std::make_unique<SdSource>(std::move(fn));
    const auto usec = std::chrono::duration_cast<std::chrono::microseconds>(after).count();
    sd_event_source *s = nullptr;
    // 1 ms accuracy: timeouts and check intervals are meant to the
    // millisecond, not to sd-event's default 250 ms coalescing window.
    int r = sd_event_add_time_relative(event_, &s, CLOCK_MONOTONIC,
                                       static_cast<uint64_t>(usec > 0 ? usec : 0), 1000,
                                       &SdSource::onTime, src.get());
    if (r < 0)
        return nullptr;
    src->attach(s);
    return src;
}

EventLoop::SourcePtr SdEventLoop::addReadable(int fd, std::function<void()> fn) {
    auto src = std::make_unique<SdSource>(std::move(fn));
    sd_event_source *s = nullptr;
    if (sd_event_add_io(event_, &s, fd, EPOLLIN, &SdSource::onIo, src.get()) < 0)
        return nullptr;
    src->attach(s);
    return src;
}

EventLoop::SourcePtr SdEventLoop::addWritable(int fd, std::function<void()> fn) {
    auto src = std::make_unique<SdSource>(std::move(fn));
    sd_event_source *s = nullptr;
    if (sd_event_add_io(event_, &s, fd, EPOLLOUT, &SdSource::onIo, src.get()) < 0)
        return nullptr;
    src->attach(s);
    return src;
}

EventLoop::SourcePtr SdEventLoop::addAfterDispatch(std::function<void()> fn) {
    auto src = std::make_unique<SdSource>(std::move(fn));
    sd_event_source *s = nullptr;
    // A post source runs in every iteration that dispatched another source.
    if (sd_event_add_post(event_, &s, &SdSource::onPost, src.get()) < 0)
        return nullptr;
    src->attach(s);
    return src;
}

Result<int> SdEventLoop::run() {
    int r = sd_event_loop(event_);
    if (r < 0)
        return Error::fromErrno(-r, "event loop");
    return r;
}

Result<bool> SdEventLoop::runOnce(std::chrono::microseconds timeout) {
    int r = sd_event_run(event_, static_cast<uint64_t>(timeout.count()));
    if (r < 0)
        return Error::fromErrno(-r, "event loop");
    return r > 0;
}

void SdEventLoop::exit(int code) {
    (void)sd_event_exit(event_, code);
}

} // namespace mpath::sys
