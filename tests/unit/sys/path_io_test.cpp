// A path's I/O with no thread waiting for it: reads through Linux AIO,
// answered on the loop; a device whose I/O hangs holds a request, not a
// thread, and its next request is refused at once.
#include "mpath/checkers/checker.h"
#include "mpath/sys/executor.h"
#include "mpath/sys/path_io.h"
#include "mpath/testing/manual_loop.h"
#include "temp_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <future>
#include <gtest/gtest.h>
#include <optional>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mpath;
using namespace std::chrono_literals;
using mpath::testing::ManualLoop;
using sys::Executor;
using sys::PathIo;

namespace {

size_t threads() {
    size_t n = 0;
    if (DIR *d = ::opendir("/proc/self/task")) {
        while (dirent *e = ::readdir(d))
            n += e->d_name[0] != '.';
        ::closedir(d);
    }
    return n;
}

/// A file of one block that O_DIRECT can read, or "" when the file
/// system here cannot (tmpfs).
std::string directFile(mpath_test::TempDir &dir) {
    const std::string f = dir.file("disk");
    std::ofstream(f) << std::string(4096, 'x');
    const int fd = ::open(f.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0)
        return "";
    ::close(fd);
    return f;
}

bool eventually(const std::function<bool()> &pred) {
    const auto end = std::chrono::steady_clock::now() + 5s;
    while (!pred()) {
        if (std::chrono::steady_clock::now() > end)
            return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

} // namespace

TEST(PathIo, AReadIsAnsweredOnTheLoopWhenTheKernelEndsIt) {
    mpath_test::TempDir dir("pathio");
    const std::string f = directFile(dir);
    if (f.empty())
        GTEST_SKIP() << "this file system takes no O_DIRECT reads";
    ManualLoop loop;
    Executor ex(loop, {1, 1});
    PathIo io(loop, ex);
    std::optional<Result<std::chrono::nanoseconds>> r;
    io.directRead(f, 5s, [&](Result<std::chrono::nanoseconds> x) { r = x; });
    EXPECT_FALSE(r) << "never from inside the call";
    ASSERT_TRUE(loop.runUntil([&] { return r.has_value(); }));
    ASSERT_TRUE(*r) << r->error().message;
    EXPECT_EQ(io.inFlight(), 0u);
}

TEST(PathIo, ADirectioCheckThroughPathIoIsUp) {
    mpath_test::TempDir dir("pathio");
    const std::string f = directFile(dir);
    if (f.empty())
        GTEST_SKIP() << "this file system takes no O_DIRECT reads";
    ManualLoop loop;
    Executor ex(loop, {1, 1});
    PathIo io(loop, ex);
    auto c = checkers::Checker::create("directio", f);
    ASSERT_TRUE(c);
    std::optional<checkers::CheckOutcome> o;
    checkers::startCheck({loop, ex, &io}, **c, 5s, [&](checkers::CheckOutcome x) { o = x; });
    ASSERT_TRUE(loop.runUntil([&] { return o.has_value(); }));
    EXPECT_EQ(o->state, model::CheckerState::Up) << o->message;
}

TEST(PathIo, ADeviceWithoutAnSgNodeIsNamedAndNoCommandIsSent) {
    mpath_test::TempDir dir("pathio");
    ManualLoop loop;
    Executor ex(loop, {1, 1});
    PathIo io(loop, ex);
    const std::string f = dir.file("notablockdevice");
    std::ofstream(f) << "x";
    auto node = io.sgNode(f);
    ASSERT_FALSE(node);
    EXPECT_EQ(node.code(), ENODEV);
    EXPECT_NE(node.error().message.find(f), std::string::npos) << node.error().message;
    std::optional<Result<sys::ScsiCompletion>> r;
    io.scsi(f, {0, 0, 0, 0, 0, 0}, 0, 1s,
            [&](Result<sys::ScsiCompletion> x, std::vector<uint8_t>) { r = x; });
    EXPECT_FALSE(r) << "never from inside the call";
    loop.advance(0ms);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->code(), ENODEV);
    EXPECT_EQ(io.inFlight(), 0u);
}

TEST(PathIo, AHungDeviceTimesOutHoldsOneRequestAndItsNextOneIsRefusedAtOnce) {
    mpath_test::TempDir dir("pathio");
    ManualLoop loop;
    Executor ex(loop, {2, 2});
    PathIo io(loop, ex);
    // Opening a FIFO for reading waits for a writer: a device whose I/O
    // does not come back, stuck on its way into the kernel.
    const std::string fifo = dir.file("sdb");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::optional<Result<std::chrono::nanoseconds>> first, second, third;
    io.directRead(fifo, 1s, [&](Result<std::chrono::nanoseconds> x) { first = x; });
    // Its submission started, and the loop knows it: the timeout counts.
    ASSERT_TRUE(eventually([&] { return ex.stats().busy == 1; }));
    loop.dispatch();
    loop.advance(1s);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->code(), ETIMEDOUT) << first->error().message;
    EXPECT_EQ(io.orphans(), 1u) << "nobody waits, the request stays until it ends";
    io.directRead(fifo, 1s, [&](Result<std::chrono::nanoseconds> x) { second = x; });
    loop.advance(0ms);
    ASSERT_TRUE(second) << "refused at once, without a deadline's wait";
    EXPECT_EQ(second->code(), EBUSY);
    EXPECT_NE(second->error().message.find("still in the kernel"), std::string::npos);
    // The device answers at last: its orphan goes, and checks go on.
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    ASSERT_GE(writer, 0);
    ASSERT_TRUE(eventually([&] { return ex.stats().stuck == 0; }));
    io.directRead(fifo, 1s, [&](Result<std::chrono::nanoseconds> x) { third = x; });
    ASSERT_TRUE(loop.runUntil([&] { return third.has_value(); }));
    ::close(writer);
    // A FIFO takes no O_DIRECT read: the request fails, but it was made.
    EXPECT_NE(third->code(), EBUSY) << "the orphan that ended was dropped";
    EXPECT_EQ(io.orphans(), 0u);
}

TEST(PathIo, ACheckThatWaitedForAWorkerPastItsTimeoutIsNotCheckedNotTimedOut) {
    mpath_test::TempDir dir("pathio");
    ManualLoop loop;
    Executor ex(loop, {1, 1});
    PathIo io(loop, ex);
    // The only worker is busy (the submission of another device's I/O):
    // a healthy device's check waits its whole timeout for it.
    auto gate = std::make_shared<std::promise<void>>();
    std::shared_future<void> opened = gate->get_future().share();
    ex.submit(
        "/dev/sdz", 1h, [opened] { opened.wait(); }, [](Result<void>) {});
    ASSERT_TRUE(eventually([&] { return ex.stats().busy == 1; }));
    const std::string disk = dir.file("sdb");
    std::ofstream(disk) << std::string(4096, 'x');
    auto c = checkers::Checker::create("directio", disk);
    ASSERT_TRUE(c);
    std::optional<checkers::CheckOutcome> o;
    checkers::startCheck({loop, ex, &io}, **c, 1s, [&](checkers::CheckOutcome x) { o = x; });
    loop.dispatch();
    loop.advance(999ms);
    EXPECT_FALSE(o) << "still waiting for a worker";
    loop.advance(1ms);
    ASSERT_TRUE(o);
    // Not "no answer": the device was never asked, and a path whose
    // checks cannot start is not to be failed for it.
    EXPECT_EQ(o->state, model::CheckerState::Unchecked) << o->message;
    EXPECT_NE(o->message.find("every worker was busy"), std::string::npos) << o->message;
    EXPECT_NE(o->message.find(disk), std::string::npos) << o->message;
    EXPECT_EQ(io.inFlight(), 0u) << "a request that never started leaves nothing behind";
    gate->set_value();
    ASSERT_TRUE(eventually([&] {
        loop.dispatch();
        return ex.stats().busy == 0;
    }));
}

TEST(PathIo, ThreadsStayBoundedWhateverNumberOfDevicesHang) {
    mpath_test::TempDir dir("pathio");
    ManualLoop loop;
    Executor ex(loop, {2, 4});
    PathIo io(loop, ex);
    const size_t before = threads();
    int answered = 0;
    std::vector<std::string> fifos;
    for (int i = 0; i < 100; ++i) {
        fifos.push_back(dir.file("sd" + std::to_string(i)));
        ASSERT_EQ(::mkfifo(fifos.back().c_str(), 0600), 0);
    }
    for (int round = 0; round < 3; ++round) {
        for (const auto &f : fifos)
            io.directRead(f, 1s, [&](Result<std::chrono::nanoseconds>) { ++answered; });
        loop.dispatch(50ms);
        loop.advance(1s);
        loop.advance(1s);
    }
    // A submission that started after the loop last looked has its
    // deadline counted from when the loop learns of it.
    for (int i = 0; i < 20 && answered < 300; ++i) {
        loop.dispatch(10ms);
        loop.advance(1s);
    }
    EXPECT_EQ(answered, 300) << "every request answered by its deadline";
    EXPECT_LE(threads(), before + 2 + 4) << "the lane's bound, not one per hung device";
    // Let the stuck submissions go.
    std::vector<int> writers;
    for (const auto &f : fifos)
        writers.push_back(::open(f.c_str(), O_WRONLY | O_NONBLOCK));
    eventually([&] { return ex.stats().stuck == 0; });
    for (int w : writers)
        if (w >= 0)
            ::close(w);
}
