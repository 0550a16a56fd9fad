#include "mpath/sys/executor.h"
#include "mpath/sys/sd_event_loop.h"
#include "mpath/testing/manual_loop.h"

#include <atomic>
#include <condition_variable>
#include <gtest/gtest.h>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

using namespace mpath;
using namespace std::chrono_literals;
using mpath::testing::ManualLoop;
using sys::Executor;

namespace {

/// Work that blocks until the test opens the gate: a device whose I/O
/// hangs. Shared by value, so it outlives the executor like hung I/O does.
class Gate {
public:
    void wait() {
        std::unique_lock<std::mutex> lock(m_);
        ++waiting_;
        cv_.wait(lock, [this] { return open_; });
        --waiting_;
    }
    void open() {
        std::lock_guard<std::mutex> lock(m_);
        open_ = true;
        cv_.notify_all();
    }
    int waiting() {
        std::lock_guard<std::mutex> lock(m_);
        return waiting_;
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    bool open_{false};
    int waiting_{0};
};

/// Waits (real time) until \a pred holds or 5 s pass.
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

TEST(Executor, RunsTheWorkOnAWorkerAndAnswersOnTheLoopThread) {
    ManualLoop loop;
    Executor ex(loop, {2, 4});
    std::thread::id worker, answered;
    std::optional<Result<void>> result;
    ex.submit(
        "", 10s, [&] { worker = std::this_thread::get_id(); },
        [&](Result<void> r) {
            answered = std::this_thread::get_id();
            result = r;
        });
    EXPECT_FALSE(result) << "done is never called from inside submit()";
    ASSERT_TRUE(loop.runUntil([&] { return result.has_value(); }));
    EXPECT_TRUE(*result);
    EXPECT_NE(worker, std::this_thread::get_id());
    EXPECT_EQ(answered, std::this_thread::get_id());
}

TEST(Executor, HandsTheWorksResultToDone) {
    ManualLoop loop;
    Executor ex(loop);
    std::optional<Result<int>> got;
    ex.run<int>(
        "", 10s, [] { return Result<int>(42); }, [&](Result<int> r) { got = r; });
    ASSERT_TRUE(loop.runUntil([&] { return got.has_value(); }));
    ASSERT_TRUE(*got);
    EXPECT_EQ(**got, 42);

    std::optional<Result<int>> failed;
    ex.run<int>(
        "", 10s,
        [] {
            return Result<int>(Error{ENODEV, "no device"});
        },
        [&](Result<int> r) { failed = r; });
    ASSERT_TRUE(loop.runUntil([&] { return failed.has_value(); }));
    EXPECT_EQ(failed->code(), ENODEV);
}

TEST(Executor, AJobThatHangsTimesOutAtItsDeadlineAndItsLateEndIsDropped) {
    ManualLoop loop;
    Executor ex(loop, {2, 4});
    auto gate = std::make_shared<Gate>();
    int calls = 0;
    std::optional<Result<void>> result;
    ex.submit(
        "sdb", 5s, [gate] { gate->wait(); },
        [&](Result<void> r) {
            ++calls;
            result = r;
        });
    ASSERT_TRUE(eventually([&] { return gate->waiting() == 1; }));
    loop.dispatch(50ms); // the loop learns that they started
    loop.advance(4999ms);
    EXPECT_FALSE(result) << "not before the deadline";
    loop.advance(1ms);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->code(), ETIMEDOUT);
    EXPECT_EQ(ex.stats().stuck, 1u);
    gate->open();
    ASSERT_TRUE(eventually([&] { return ex.stats().stuck == 0; }));
    loop.dispatch(100ms);
    EXPECT_EQ(calls, 1) << "the late end of a timed-out job reaches nobody";
}

TEST(Executor, ATimedOutWorkerIsReplacedSoOtherDevicesAreStillChecked) {
    ManualLoop loop;
    Executor ex(loop, {1, 4});
    auto gate = std::make_shared<Gate>();
    std::optional<Result<void>> hung, healthy;
    ex.submit(
        "sdb", 1s, [gate] { gate->wait(); }, [&](Result<void> r) { hung = r; });
    ASSERT_TRUE(eventually([&] { return gate->waiting() == 1; }));
    loop.dispatch(50ms); // the loop learns that they started
    loop.advance(1s);
    ASSERT_TRUE(hung);
    EXPECT_EQ(hung->code(), ETIMEDOUT);
    ex.submit(
        "sdc", 1s, [] {}, [&](Result<void> r) { healthy = r; });
    ASSERT_TRUE(loop.runUntil([&] { return healthy.has_value(); }));
    EXPECT_TRUE(*healthy) << "the one worker is stuck, its replacement runs sdc";
    EXPECT_EQ(ex.stats().threads, 2u);
    gate->open();
    ASSERT_TRUE(eventually([&] { return ex.stats().threads == 1; }))
        << "the stuck worker retires once its job returns: back to the pool's size";
}

TEST(Executor, AJobOfADeviceWhoseEarlierJobHangsTimesOutWithEbusyAndNeverRuns) {
    ManualLoop loop;
    Executor ex(loop, {2, 4});
    auto gate = std::make_shared<Gate>();
    std::optional<Result<void>> first, second;
    std::atomic<bool> secondRan{false};
    ex.submit(
        "sdb", 1s, [gate] { gate->wait(); }, [&](Result<void> r) { first = r; });
    ASSERT_TRUE(eventually([&] { return gate->waiting() == 1; }));
    loop.dispatch(50ms); // the loop learns that they started
    loop.advance(1s);
    ex.submit(
        "sdb", 1s, [&] { secondRan = true; }, [&](Result<void> r) { second = r; });
    loop.dispatch(50ms);
    EXPECT_FALSE(second) << "waits for the earlier job of its key";
    loop.advance(1s);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->code(), EBUSY);
    EXPECT_NE(second->error().message.find("sdb"), std::string::npos) << second->error().message;
    gate->open();
    ASSERT_TRUE(eventually([&] { return ex.stats().stuck == 0; }));
    loop.dispatch(50ms);
    EXPECT_FALSE(secondRan) << "a job past its deadline never starts";
}

TEST(Executor, JobsOfOneKeyNeverOverlapAndStartInOrder) {
    auto loop = sys::SdEventLoop::create();
    ASSERT_TRUE(loop);
    Executor ex(**loop, {4, 4});
    std::atomic<int> inside{0};
    std::atomic<int> overlaps{0};
    std::mutex orderMutex;
    std::vector<int> order;
    int done = 0;
    for (int i = 0; i < 50; ++i)
        ex.submit(
            "mpatha", 10s,
            [&, i] {
                if (++inside > 1)
                    ++overlaps;
                {
                    std::lock_guard<std::mutex> lock(orderMutex);
                    order.push_back(i);
                }
                std::this_thread::sleep_for(200us);
                --inside;
            },
            [&](Result<void> r) {
                EXPECT_TRUE(r);
                ++done;
            });
    while (done < 50)
        ASSERT_TRUE((*loop)->runOnce(5s));
    EXPECT_EQ(overlaps, 0);
    for (int i = 0; i < 50; ++i)
        EXPECT_EQ(order[i], i);
}

TEST(Executor, JobsOfDifferentKeysRunSideBySide) {
    ManualLoop loop;
    Executor ex(loop, {3, 0});
    auto gate = std::make_shared<Gate>();
    int done = 0;
    for (const char *key : {"sdb", "sdc", "sdd"})
        ex.submit(
            key, 10s, [gate] { gate->wait(); }, [&](Result<void>) { ++done; });
    EXPECT_TRUE(eventually([&] { return gate->waiting() == 3; }))
        << "three workers, three keys: all three run at once";
    gate->open();
    ASSERT_TRUE(loop.runUntil([&] { return done == 3; }));
}

TEST(Executor, WorkThatNeverStartsBecauseEveryWorkerIsStuckEndsWithEagain) {
    ManualLoop loop;
    Executor ex(loop, {1, 0}); // no replacements
    auto gate = std::make_shared<Gate>();
    std::optional<Result<void>> hung, waiting;
    std::atomic<bool> ran{false};
    ex.submit(
        "sdb", 1s, [gate] { gate->wait(); }, [&](Result<void> r) { hung = r; });
    ASSERT_TRUE(eventually([&] { return gate->waiting() == 1; }));
    loop.dispatch(50ms); // the loop learns that they started
    ex.submit(
        "sdc", 2s, [&] { ran = true; }, [&](Result<void> r) { waiting = r; });
    loop.advance(2s);
    ASSERT_TRUE(hung);
    EXPECT_EQ(hung->code(), ETIMEDOUT);
    ASSERT_TRUE(waiting);
    EXPECT_EQ(waiting->code(), EAGAIN);
    gate->open();
    ASSERT_TRUE(eventually([&] { return ex.stats().stuck == 0; }));
    EXPECT_FALSE(ran);
}

TEST(Executor, ThreadsStayBoundedWhateverNumberOfDevicesHang) {
    ManualLoop loop;
    Executor ex(loop, {4, 16});
    auto gate = std::make_shared<Gate>();
    int answered = 0;
    for (int i = 0; i < 1000; ++i)
        ex.submit(
            "dev" + std::to_string(i), 1s, [gate] { gate->wait(); },
            [&](Result<void>) { ++answered; });
    ASSERT_TRUE(eventually([&] { return gate->waiting() == 4; }));
    loop.dispatch(50ms); // the loop learns that they started
    loop.advance(1s);
    EXPECT_EQ(answered, 1000) << "every job answered at its deadline";
    const auto s = ex.stats();
    EXPECT_LE(s.threads, 4u + 16u) << "replacements for stuck workers stop at maxStuckThreads";
    EXPECT_LE(gate->waiting(), 20);
    EXPECT_EQ(s.queued, 0u) << "jobs past their deadline leave the queue";
    gate->open();
    ASSERT_TRUE(eventually([&] { return ex.stats().threads == 4; }));
}

TEST(Executor, ABurstOfWaitingJobsGetsBurstWorkersThatLeaveWhenItIsOver) {
    ManualLoop loop;
    Executor ex(loop, {2, 4, 6}); // 2 kept, up to 6 more for a burst
    auto gate = std::make_shared<Gate>();
    int done = 0;
    for (int i = 0; i < 12; ++i)
        ex.submit(
            "map" + std::to_string(i), 10s, [gate] { gate->wait(); },
            [&](Result<void> r) { done += r ? 1 : 0; });
    EXPECT_TRUE(eventually([&] { return gate->waiting() == 8; }))
        << "2 workers and 6 burst workers run 8 of the 12 jobs at once, not " << gate->waiting();
    EXPECT_EQ(ex.stats().threads, 8u);
    EXPECT_EQ(ex.stats().queued, 4u);
    gate->open();
    ASSERT_TRUE(loop.runUntil([&] { return done == 12; }));
    EXPECT_TRUE(eventually([&] { return ex.stats().threads == 2; }))
        << "the burst workers leave: " << ex.stats().threads << " threads";
}

TEST(Executor, BurstWorkersStayBoundedWhateverNumberOfDevicesHang) {
    ManualLoop loop;
    Executor ex(loop, {4, 16, 8});
    auto gate = std::make_shared<Gate>();
    int answered = 0;
    for (int i = 0; i < 1000; ++i)
        ex.submit(
            "dev" + std::to_string(i), 1s, [gate] { gate->wait(); },
            [&](Result<void>) { ++answered; });
    ASSERT_TRUE(eventually([&] { return gate->waiting() == 12; }));
    loop.dispatch(50ms); // the loop learns that they started
    loop.advance(1s);
    EXPECT_EQ(answered, 1000);
    for (int i = 0; i < 1000; ++i) // more work while every worker is stuck
        ex.submit(
            "late" + std::to_string(i), 1s, [gate] { gate->wait(); }, [&](Result<void>) {});
    loop.advance(1s);
    EXPECT_LE(ex.stats().threads, 4u + 8u + 16u);
    EXPECT_LE(gate->waiting(), 28);
    gate->open();
    ASSERT_TRUE(eventually([&] { return ex.stats().threads == 4; }));
}

TEST(Executor, WithoutBurstWorkersABurstWaitsForTheFixedPool) {
    ManualLoop loop;
    Executor ex(loop, {2, 4});
    auto gate = std::make_shared<Gate>();
    int done = 0;
    for (int i = 0; i < 12; ++i)
        ex.submit(
            "map" + std::to_string(i), 10s, [gate] { gate->wait(); },
            [&](Result<void>) { ++done; });
    ASSERT_TRUE(eventually([&] { return gate->waiting() == 2; }));
    loop.dispatch(50ms); // the loop learns that they started
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(gate->waiting(), 2);
    EXPECT_EQ(ex.stats().threads, 2u);
    gate->open();
    ASSERT_TRUE(loop.runUntil([&] { return done == 12; }));
}

TEST(Executor, CancelledJobsAreNeverAnswered) {
    ManualLoop loop;
    Executor ex(loop, {1, 0});
    auto gate = std::make_shared<Gate>();
    bool firstAnswered = false, secondAnswered = false;
    std::atomic<bool> secondRan{false};
    auto first = ex.submit(
        "a", 10s, [gate] { gate->wait(); }, [&](Result<void>) { firstAnswered = true; });
    auto second = ex.submit(
        "b", 10s, [&] { secondRan = true; }, [&](Result<void>) { secondAnswered = true; });
    ASSERT_TRUE(eventually([&] { return gate->waiting() == 1; }));
    loop.dispatch(50ms); // the loop learns that they started
    ex.cancel(first);
    ex.cancel(second);
    gate->open();
    loop.dispatch(100ms);
    loop.advance(20s);
    EXPECT_FALSE(firstAnswered);
    EXPECT_FALSE(secondAnswered);
    EXPECT_FALSE(secondRan) << "a cancelled job that had not started never starts";
}

TEST(Executor, AJobThatThrowsIsAnsweredWithItsError) {
    ManualLoop loop;
    Executor ex(loop);
    std::optional<Result<void>> r;
    ex.submit(
        "", 1s, [] { throw std::runtime_error("boom"); }, [&](Result<void> x) { r = x; });
    ASSERT_TRUE(loop.runUntil([&] { return r.has_value(); }));
    ASSERT_FALSE(*r);
    EXPECT_NE(r->error().message.find("boom"), std::string::npos);
}

TEST(Executor, GoesAwayAtOnceWhileAJobHangs) {
    auto gate = std::make_shared<Gate>();
    const auto t0 = std::chrono::steady_clock::now();
    {
        ManualLoop loop;
        Executor ex(loop, {2, 2});
        ex.submit(
            "sdb", 60s, [gate] { gate->wait(); },
            [](Result<void>) { ADD_FAILURE() << "answered after the executor went away"; });
        ASSERT_TRUE(eventually([&] { return gate->waiting() == 1; }));
        loop.dispatch(50ms); // the loop learns that they started
    }
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
    gate->open(); // the detached worker ends on its own, touching nothing freed
    ASSERT_TRUE(eventually([&] { return gate->waiting() == 0; }));
    std::this_thread::sleep_for(20ms);
}

TEST(Executor, TheRunningBoundCountsFromTheStartNotFromTheSubmission) {
    ManualLoop loop;
    Executor ex(loop, {2, 4});
    auto first = std::make_shared<Gate>();
    auto second = std::make_shared<Gate>();
    std::optional<Result<void>> a, b;
    ex.submit(
        "map", 10s, [first] { first->wait(); }, [&](Result<void> r) { a = r; });
    ASSERT_TRUE(eventually([&] { return first->waiting() == 1; }));
    // Queued behind the first job of its key for 5 s, then 2 s to run.
    ex.submit(
        "map", Executor::Limits{20s, 2s}, [second] { second->wait(); },
        [&](Result<void> r) { b = r; });
    loop.dispatch(50ms);
    loop.advance(5s);
    EXPECT_FALSE(b) << "still queued, within its queued bound";
    first->open();
    ASSERT_TRUE(eventually([&] { return second->waiting() == 1; }));
    loop.dispatch(50ms);
    ASSERT_TRUE(a);
    EXPECT_TRUE(*a);
    loop.advance(1900ms);
    EXPECT_FALSE(b) << "5 s in the queue do not count against its 2 s of running";
    loop.advance(200ms);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->code(), ETIMEDOUT);
    second->open();
    ASSERT_TRUE(eventually([&] { return ex.stats().stuck == 0; }));
}

TEST(Executor, AJobQueuedPastItsBoundNeverStartsAndSaysHowLongItWaited) {
    ManualLoop loop;
    Executor ex(loop, {1, 0});
    auto gate = std::make_shared<Gate>();
    std::optional<Result<void>> waiting;
    std::atomic<bool> ran{false};
    ex.submit(
        "a", 60s, [gate] { gate->wait(); }, [](Result<void>) {});
    ASSERT_TRUE(eventually([&] { return gate->waiting() == 1; }));
    loop.dispatch(50ms);
    ex.submit(
        "b", Executor::Limits{3s, 60s}, [&] { ran = true; }, [&](Result<void> r) { waiting = r; });
    loop.advance(3s);
    ASSERT_TRUE(waiting);
    EXPECT_EQ(waiting->code(), EAGAIN);
    EXPECT_TRUE(Executor::neverStarted(waiting->error()));
    EXPECT_NE(waiting->error().message.find("queued 3000 ms"), std::string::npos)
        << waiting->error().message;
    EXPECT_EQ(ex.stats().neverStarted, 1u);
    gate->open();
    ASSERT_TRUE(eventually([&] { return ex.stats().busy == 0; }));
    EXPECT_FALSE(ran);
}
