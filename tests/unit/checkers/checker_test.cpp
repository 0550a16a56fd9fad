#include "mpath/checkers/checker.h"
#include "mpath/checkers/scsi_sense.h"
#include "mpath/sys/executor.h"
#include "mpath/testing/manual_loop.h"

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mpath;
using namespace mpath::checkers;
using model::CheckerState;
using mpath::testing::ManualLoop;
using sys::ScsiCompletion;
using namespace std::chrono_literals;

namespace {

// Sense data as SPC-4 lays it out and as scsi_debug and ALUA arrays send
// it: fixed format 0x70 (key in byte 2, ASC/ASCQ in 12/13), descriptor
// format 0x72 (key, ASC, ASCQ in bytes 1..3).
std::vector<uint8_t> fixedSense(uint8_t key, uint8_t asc, uint8_t ascq) {
    std::vector<uint8_t> s(18, 0);
    s[0] = 0x70;
    s[2] = key;
    s[7] = 10;
    s[12] = asc;
    s[13] = ascq;
    return s;
}

std::vector<uint8_t> descriptorSense(uint8_t key, uint8_t asc, uint8_t ascq) {
    return {0x72, key, asc, ascq, 0, 0, 0, 0};
}

ScsiCompletion checkCondition(std::vector<uint8_t> sense) {
    ScsiCompletion c;
    c.status = 0x02;
    c.driverStatus = 0x08;
    c.sense = std::move(sense);
    return c;
}

CheckerState decode(const ScsiCompletion &c, bool *retryOut = nullptr) {
    bool retry = false;
    CheckerState s = decodeScsiCompletion(c, retry).state;
    if (retryOut)
        *retryOut = retry;
    return s;
}

/// A checker whose I/O is a sleep, to drive the asynchronous machinery.
class SleepChecker final : public Checker {
public:
    SleepChecker(std::string devnode, std::chrono::milliseconds sleep,
                 std::shared_ptr<std::atomic<bool>> release)
        : Checker(std::move(devnode)), sleep_(sleep), release_(std::move(release)) {}
    std::string_view name() const override { return "sleep"; }
    std::function<CheckOutcome()> job(std::chrono::milliseconds) const override {
        return [sleep = sleep_, release = release_] {
            auto until = std::chrono::steady_clock::now() + sleep;
            while (std::chrono::steady_clock::now() < until && !*release)
                std::this_thread::sleep_for(5ms);
            return CheckOutcome{CheckerState::Up, "slept"};
        };
    }

private:
    std::chrono::milliseconds sleep_;
    std::shared_ptr<std::atomic<bool>> release_;
};

/// A file in the build tree (tmpfs refuses O_DIRECT), or "" with a reason.
std::string directFile(std::string &why) {
    auto p = std::filesystem::current_path() / ("checker-test-" + std::to_string(getpid()));
    {
        std::ofstream out(p);
        out << std::string(8192, 'x');
    }
    int fd = ::open(p.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0) {
        why = "the file system of " + p.parent_path().string() + " refuses O_DIRECT";
        std::filesystem::remove(p);
        return "";
    }
    ::close(fd);
    return p.string();
}

} // namespace

TEST(ScsiSense, ReadsFixedAndDescriptorFormats) {
    ScsiSense f = ScsiSense::parse(fixedSense(0x2, 0x04, 0x0b));
    EXPECT_TRUE(f.valid);
    EXPECT_EQ(f.key, 0x2);
    EXPECT_EQ(f.asc, 0x04);
    EXPECT_EQ(f.ascq, 0x0b);
    ScsiSense d = ScsiSense::parse(descriptorSense(0x6, 0x29, 0x00));
    EXPECT_TRUE(d.valid);
    EXPECT_EQ(d.key, 0x6);
    EXPECT_EQ(d.asc, 0x29);
}

TEST(ScsiSense, IgnoresUnknownResponseCodes) {
    EXPECT_FALSE(ScsiSense::parse({0x00, 0x02, 0x04, 0x0b}).valid);
    EXPECT_FALSE(ScsiSense::parse({}).valid);
}

TEST(TurDecoding, GoodStatusIsUp) {
    EXPECT_EQ(decode(ScsiCompletion{}), CheckerState::Up);
}

TEST(TurDecoding, AluaStandbyIsGhost) {
    EXPECT_EQ(decode(checkCondition(fixedSense(0x2, 0x04, 0x0b))), CheckerState::Ghost);
}

TEST(TurDecoding, AluaTransitioningIsGhostInBothSenseFormats) {
    EXPECT_EQ(decode(checkCondition(fixedSense(0x2, 0x04, 0x0a))), CheckerState::Ghost);
    EXPECT_EQ(decode(checkCondition(descriptorSense(0x2, 0x04, 0x0a))), CheckerState::Ghost);
}

TEST(TurDecoding, AluaUnavailableAndOtherNotReadyAreDown) {
    EXPECT_EQ(decode(checkCondition(fixedSense(0x2, 0x04, 0x0c))), CheckerState::Down);
    EXPECT_EQ(decode(checkCondition(fixedSense(0x2, 0x3a, 0x00))), CheckerState::Down);
}

TEST(TurDecoding, UnitAttentionAsksForARetry) {
    bool retry = false;
    decode(checkCondition(fixedSense(0x6, 0x29, 0x00)), &retry);
    EXPECT_TRUE(retry);
}

TEST(TurDecoding, RecoveredErrorIsUp) {
    EXPECT_EQ(decode(checkCondition(fixedSense(0x1, 0x5d, 0x00))), CheckerState::Up);
}

TEST(TurDecoding, CheckConditionSeenOnlyInTheStatusByteIsDecoded) {
    ScsiCompletion c = checkCondition(fixedSense(0x2, 0x04, 0x0b));
    c.driverStatus = 0; // newer kernels may leave DRIVER_SENSE out
    EXPECT_EQ(decode(c), CheckerState::Ghost);
}

TEST(TurDecoding, NoConnectIsDownWithoutRetry) {
    ScsiCompletion c;
    c.hostStatus = 0x01; // DID_NO_CONNECT: the device went offline
    bool retry = true;
    EXPECT_EQ(decode(c, &retry), CheckerState::Down);
    EXPECT_FALSE(retry);
}

TEST(TurDecoding, TransportDisruptedAndBusyAreRetried) {
    ScsiCompletion c;
    c.hostStatus = 0x0e;
    bool retry = false;
    decode(c, &retry);
    EXPECT_TRUE(retry);
    ScsiCompletion busy;
    busy.status = 0x08;
    decode(busy, &retry);
    EXPECT_TRUE(retry);
}

TEST(TurDecoding, CheckConditionWithoutSenseIsDown) {
    EXPECT_EQ(decode(checkCondition({})), CheckerState::Down);
}

TEST(Checker, CreatesTheFourKnownCheckersAndNothingElse) {
    for (const auto &n : Checker::names()) {
        auto c = Checker::create(n, "/dev/null");
        ASSERT_TRUE(c) << n;
        EXPECT_EQ((*c)->name(), n);
        EXPECT_EQ((*c)->devnode(), "/dev/null");
    }
    auto unknown = Checker::create("emc_clariion", "/dev/null");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.code(), EINVAL);
    EXPECT_NE(unknown.error().message.find("emc_clariion"), std::string::npos);
}

TEST(Checker, NoneIsUpWithoutIo) {
    auto c = Checker::create("none", "/dev/whatever");
    ASSERT_TRUE(c);
    EXPECT_EQ(checkNow(**c, 1s).state, CheckerState::Up);
}

TEST(Checker, AnswersOnTheLoopWhenTheIoEnds) {
    ManualLoop loop;
    sys::Executor ex(loop);
    auto release = std::make_shared<std::atomic<bool>>(false);
    SleepChecker c("/dev/sdb", 10s, release);
    std::optional<CheckOutcome> o;
    startCheck({loop, ex}, c, 10s, [&](CheckOutcome x) { o = x; });
    loop.dispatch(50ms);
    EXPECT_FALSE(o) << "still running";
    *release = true;
    ASSERT_TRUE(loop.runUntil([&] { return o.has_value(); }));
    EXPECT_EQ(o->state, CheckerState::Up);
    EXPECT_EQ(o->message, "slept");
}

TEST(Checker, ATimedOutCheckIsTimeoutAndTheNextOneWaitsForItsIo) {
    ManualLoop loop;
    sys::Executor ex(loop);
    auto release = std::make_shared<std::atomic<bool>>(false);
    SleepChecker c("/dev/sdb", 60s, release);
    std::optional<CheckOutcome> first, second;
    startCheck({loop, ex}, c, 100ms, [&](CheckOutcome x) { first = x; });
    loop.dispatch(20ms);
    loop.advance(100ms);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->state, CheckerState::Timeout);
    EXPECT_EQ(first->message, "no answer within 100 ms");
    // The device still holds the first check's I/O: the second cannot start.
    startCheck({loop, ex}, c, 100ms, [&](CheckOutcome x) { second = x; });
    loop.dispatch(20ms);
    loop.advance(100ms);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->state, CheckerState::Timeout);
    EXPECT_EQ(second->message, "the previous check is still in the kernel");
    *release = true;
    std::optional<CheckOutcome> third;
    const auto end = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < end && ex.stats().stuck > 0)
        std::this_thread::sleep_for(5ms);
    startCheck({loop, ex}, c, 5s, [&](CheckOutcome x) { third = x; });
    ASSERT_TRUE(loop.runUntil([&] { return third.has_value(); }));
    EXPECT_EQ(third->state, CheckerState::Up) << "the device answered: checks go on";
}

TEST(Checker, ACheckThatCannotStartForOtherHungDevicesBringsNoNews) {
    ManualLoop loop;
    sys::Executor ex(loop, {1, 0});
    auto release = std::make_shared<std::atomic<bool>>(false);
    SleepChecker hung("/dev/sdb", 60s, release);
    SleepChecker other("/dev/sdc", 0ms, release);
    std::optional<CheckOutcome> a, b;
    startCheck({loop, ex}, hung, 1s, [&](CheckOutcome x) { a = x; });
    loop.dispatch(20ms);
    startCheck({loop, ex}, other, 1s, [&](CheckOutcome x) { b = x; });
    loop.advance(1s);
    ASSERT_TRUE(a);
    ASSERT_TRUE(b);
    EXPECT_EQ(a->state, CheckerState::Timeout);
    EXPECT_EQ(b->state, CheckerState::Unchecked) << b->message;
    *release = true;
}

TEST(Checker, CheckNowReturnsOnTimeWhenTheIoNeverReturns) {
    auto release = std::make_shared<std::atomic<bool>>(false);
    SleepChecker c("/dev/sdb", 60s, release);
    auto t0 = std::chrono::steady_clock::now();
    CheckOutcome o = checkNow(c, 100ms);
    auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(o.state, CheckerState::Timeout);
    EXPECT_GE(took, 90ms);
    EXPECT_LT(took, 2s);
    *release = true;
}

TEST(DirectioChecker, ReadsAFileWithODirect) {
    std::string why;
    std::string file = directFile(why);
    if (file.empty())
        GTEST_SKIP() << why;
    auto c = Checker::create("directio", file);
    ASSERT_TRUE(c);
    CheckOutcome o = checkNow(**c, 5s);
    EXPECT_EQ(o.state, CheckerState::Up) << o.message;
    std::filesystem::remove(file);
}

TEST(DirectioChecker, IsDownWhenTheDeviceIsGone) {
    auto c = Checker::create("directio", "/nonexistent/sdq");
    ASSERT_TRUE(c);
    CheckOutcome o = checkNow(**c, 5s);
    EXPECT_EQ(o.state, CheckerState::Down);
    EXPECT_EQ(o.message, "open /nonexistent/sdq: No such file or directory");
}

TEST(DirectioChecker, TimesOutWhenOpeningBlocksForever) {
    // Opening a FIFO for reading blocks until a writer comes: I/O that
    // does not return, without needing a broken device.
    auto fifo = std::filesystem::current_path() / ("checker-fifo-" + std::to_string(getpid()));
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    auto c = Checker::create("directio", fifo.string());
    ASSERT_TRUE(c);
    EXPECT_EQ(checkNow(**c, 100ms).state, CheckerState::Timeout);
    // Let the stuck open finish so the worker thread ends.
    int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0)
        ::close(w);
    std::filesystem::remove(fifo);
}

TEST(TurChecker, IsDownOnSomethingThatIsNotScsi) {
    auto c = Checker::create("tur", "/dev/null");
    ASSERT_TRUE(c);
    CheckOutcome o = checkNow(**c, 2s);
    EXPECT_EQ(o.state, CheckerState::Down);
    EXPECT_NE(o.message.find("SG_IO"), std::string::npos) << o.message;
}

TEST(DeviceState, AnNvmeControllerThatIsNotLiveIsDownWhateverTheChecker) {
    using model::Transport;
    EXPECT_FALSE(outcomeOfDeviceState(Transport::Nvme, "live"));
    for (std::string_view s : {"connecting", "resetting", "dead", "whatever"}) {
        auto o = outcomeOfDeviceState(Transport::Nvme, s);
        ASSERT_TRUE(o) << s;
        EXPECT_EQ(o->state, CheckerState::Down) << s;
        EXPECT_EQ(o->message, "the kernel says the device is " + std::string(s));
    }
    for (std::string_view s : {"new", "deleting", "deleting (no IO)"}) {
        auto o = outcomeOfDeviceState(Transport::Nvme, s);
        ASSERT_TRUE(o) << s;
        EXPECT_EQ(o->state, CheckerState::Unchecked) << s << ": it waits, as multipath-tools";
    }
}

TEST(DeviceState, AnOfflineScsiDeviceIsDownAndABlockedOneIsStillChecked) {
    using model::Transport;
    for (Transport t : {Transport::Iscsi, Transport::FibreChannel, Transport::Scsi}) {
        EXPECT_EQ(outcomeOfDeviceState(t, "offline")->state, CheckerState::Down);
        EXPECT_EQ(outcomeOfDeviceState(t, "transport-offline")->state, CheckerState::Down);
        EXPECT_FALSE(outcomeOfDeviceState(t, "running"));
        EXPECT_FALSE(outcomeOfDeviceState(t, "blocked")) << "a check that hangs fails it sooner";
    }
    EXPECT_FALSE(outcomeOfDeviceState(Transport::Virtio, "")) << "no state: the checker decides";
}
