// The daemon's loop drives checkers, prioritizers and device-mapper calls
// for 1,000 paths whose I/O hangs, on one thread, and still answers a
// timer on time: nothing of libmpath blocks its caller on a device, and
// threads and descriptors stay bounded.
#include "mpath/checkers/checker.h"
#include "mpath/prio/prioritizer.h"
#include "mpath/sys/executor.h"
#include "mpath/sys/sd_event_loop.h"
#include "mpath/testing/fake_device_mapper.h"
#include "temp_dir.h"

#include <atomic>
#include <condition_variable>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mpath;
using namespace std::chrono_literals;
using model::CheckerState;

namespace {

constexpr int kPaths = 1000;
constexpr int kMaps = 250;

size_t entries(const char *dir) {
    size_t n = 0;
    if (DIR *d = ::opendir(dir)) {
        while (struct dirent *e = ::readdir(d))
            n += e->d_name[0] != '.';
        ::closedir(d);
    }
    return n;
}

size_t threads() {
    return entries("/proc/self/task");
}
size_t fds() {
    return entries("/proc/self/fd");
}

/// I/O that does not return until the test ends: a device that hangs.
struct Hang {
    std::mutex m;
    std::condition_variable cv;
    bool released{false};
    void wait() {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [this] { return released; });
    }
    void release() {
        std::lock_guard<std::mutex> lock(m);
        released = true;
        cv.notify_all();
    }
};

/// A device-mapper whose every reload hangs, like a suspend with I/O
/// stuck on a path that does not answer; the rest is the fake's.
class HangingDeviceMapper final : public dm::DeviceMapper {
public:
    explicit HangingDeviceMapper(std::shared_ptr<Hang> hang) : hang_(std::move(hang)) {}
    Result<std::vector<dm::Device>> listMultipath() override { return fake_.listMultipath(); }
    Result<dm::Device> info(const std::string &n) override { return fake_.info(n); }
    Result<std::vector<dm::TargetLine>> table(const std::string &n) override {
        return fake_.table(n);
    }
    Result<std::vector<dm::TargetLine>> status(const std::string &n) override {
        return fake_.status(n);
    }
    Result<void> create(const std::string &n, const std::string &u,
                        const std::vector<dm::TargetLine> &t) override {
        return fake_.create(n, u, t);
    }
    Result<void> reload(const std::string &name,
                        const std::vector<dm::TargetLine> &targets) override {
        (void)targets;
        hang_->wait();
        return Error{EIO, "reload " + name + ": the device went away"};
    }
    Result<std::string> message(const std::string &n, uint64_t s, const std::string &t) override {
        return fake_.message(n, s, t);
    }
    Result<void> remove(const std::string &n, bool d) override { return fake_.remove(n, d); }
    Result<void> suspend(const std::string &n) override { return fake_.suspend(n); }
    Result<void> resume(const std::string &n) override { return fake_.resume(n); }
    Result<void> rename(const std::string &n, const std::string &to) override {
        return fake_.rename(n, to);
    }

private:
    std::shared_ptr<Hang> hang_;
    mpath::testing::FakeDeviceMapper fake_;
};

} // namespace

TEST(HungIo, TheLoopAnswersOnTimeWhileAThousandPathsHang) {
    mpath_test::TempDir dir("mpath-hung");
    // Opening a FIFO for reading blocks until a writer comes: each is a
    // path whose directio check never returns.
    std::vector<std::unique_ptr<checkers::Checker>> checks;
    for (int i = 0; i < kPaths; ++i) {
        const std::string node = dir.file("sd" + std::to_string(i));
        ASSERT_EQ(::mkfifo(node.c_str(), 0600), 0);
        auto c = checkers::Checker::create("directio", node);
        ASSERT_TRUE(c);
        checks.push_back(std::move(*c));
    }
    auto hang = std::make_shared<Hang>();
    prio::Context ctx = prio::Context::noDevices();
    ctx.devDirectory = dir.str();
    ctx.scsiCommand = [hang](const std::string &, std::span<const uint8_t>, size_t,
                             std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        hang->wait();
        return std::vector<uint8_t>{};
    };
    auto alua = prio::Prioritizer::create("alua", "", ctx);
    ASSERT_TRUE(alua);
    // The device-mapper calls own their adapter, as the daemon's do.
    auto dmHang = std::make_shared<HangingDeviceMapper>(hang);

    const size_t threadsBefore = threads();
    const size_t fdsBefore = fds();

    auto loop = sys::SdEventLoop::create();
    ASSERT_TRUE(loop);
    sys::SdEventLoop &l = **loop;
    size_t maxThreads = 0, maxFds = 0;
    {
        sys::Executor ex(l, {4, 16});
        std::map<CheckerState, int> outcomes;
        int priorities = 0, reloads = 0;
        bool stop = false;

        // Every path is checked again as soon as its last check answers,
        // with a 200 ms deadline: five rounds a second for a thousand paths.
        std::function<void(int)> check = [&](int i) {
            if (stop)
                return;
            checkers::startCheck({l, ex}, *checks[i], 200ms, [&, i](checkers::CheckOutcome o) {
                ++outcomes[o.state];
                check(i);
            });
        };
        for (int i = 0; i < kPaths; ++i) {
            check(i);
            model::Path p;
            p.kernelName = "sd" + std::to_string(i);
            p.tpgs = 1;
            p.ids.targetPortGroup = 1;
            prio::startPriority(ex, **alua, p, 300ms, [&](Result<int> r) {
                EXPECT_FALSE(r);
                ++priorities;
            });
        }
        for (int m = 0; m < kMaps; ++m)
            ex.submit(
                "map" + std::to_string(m), 300ms,
                [dmHang, m] { (void)dmHang->reload("map" + std::to_string(m), {}); },
                [&](Result<void> r) {
                    EXPECT_FALSE(r);
                    ++reloads;
                });

        // A 10 ms heartbeat for two seconds: how late does it fire?
        auto lateness = 0us;
        auto expected = l.now() + 10ms;
        int beats = 0;
        sys::EventLoop::SourcePtr beat;
        std::function<void()> tick = [&] {
            lateness =
                std::max(lateness,
                         std::chrono::duration_cast<std::chrono::microseconds>(l.now() - expected));
            maxThreads = std::max(maxThreads, threads());
            maxFds = std::max(maxFds, fds());
            if (++beats == 200) {
                stop = true;
                l.exit(0);
                return;
            }
            expected = l.now() + 10ms;
            beat = l.addTimer(10ms, tick);
        };
        beat = l.addTimer(10ms, tick);
        ASSERT_TRUE(l.run());

        // Hung I/O stalls nothing but itself: a beat late by a deadline
        // would mean the loop waited for a device.
        EXPECT_LT(lateness, 150ms) << "the loop was held up";
        EXPECT_EQ(priorities, kPaths);
        EXPECT_EQ(reloads, kMaps);
        EXPECT_EQ(outcomes[CheckerState::Up], 0);
        EXPECT_GE(outcomes[CheckerState::Timeout] + outcomes[CheckerState::Unchecked], kPaths);
        RecordProperty("heartbeat_lateness_us", static_cast<int>(lateness.count()));
        RecordProperty("checks_answered",
                       outcomes[CheckerState::Timeout] + outcomes[CheckerState::Unchecked]);
        std::cout << "1000 hung paths: heartbeat lateness " << lateness.count() << " us, "
                  << maxThreads - threadsBefore << " threads and " << maxFds - fdsBefore
                  << " descriptors over the test's own, "
                  << outcomes[CheckerState::Timeout] + outcomes[CheckerState::Unchecked]
                  << " checks answered in 2 s\n";
    }
    EXPECT_LE(maxThreads - threadsBefore, 4u + 16u) << "not a thread per path";
    EXPECT_LE(maxFds - fdsBefore, 4u + 16u + 8u) << "not descriptors per path";

    // Let the hung I/O return: writers for the FIFOs, the gate open.
    hang->release();
    for (int i = 0; i < kPaths; ++i) {
        int w = ::open(dir.file("sd" + std::to_string(i)).c_str(), O_WRONLY | O_NONBLOCK);
        if (w >= 0)
            ::close(w);
    }
    const auto end = std::chrono::steady_clock::now() + 10s;
    while (threads() > threadsBefore && std::chrono::steady_clock::now() < end)
        std::this_thread::sleep_for(10ms);
    EXPECT_LE(threads(), threadsBefore) << "stuck workers end once their I/O returns";
}
