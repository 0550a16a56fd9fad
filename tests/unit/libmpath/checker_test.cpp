#include "mpath/checker.h"
#include "mpath/checker_scsi.h"
#include "mpath/directio_checker.h"
#include "mpath/tur_checker.h"

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mpath;
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

bool readable(int fd, int ms) {
    struct pollfd p {
        fd, POLLIN, 0
    };
    return poll(&p, 1, ms) == 1;
}

/// A checker whose I/O is a sleep, to drive the asynchronous machinery.
class SleepChecker final : public Checker {
public:
    SleepChecker(std::chrono::milliseconds sleep, std::shared_ptr<std::atomic<bool>> release)
        : Checker("/dev/null"), sleep_(sleep), release_(std::move(release)) {}
    const char *name() const override { return "sleep"; }

protected:
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
        EXPECT_EQ(c->name(), n);
    }
    EXPECT_FALSE(Checker::create("emc_clariion", "/dev/null"));
}

TEST(Checker, NoneIsUpAtOnceThroughItsDescriptor) {
    auto c = Checker::create("none", "/dev/whatever");
    EXPECT_EQ(c->result(), CheckerState::Unchecked);
    ASSERT_EQ(c->start(1s), 0);
    EXPECT_TRUE(readable(c->fd(), 0));
    EXPECT_EQ(c->result(), CheckerState::Up);
    EXPECT_FALSE(readable(c->fd(), 0)) << "collecting the result clears the readiness";
    EXPECT_EQ(c->result(), CheckerState::Up);
}

TEST(Checker, IsPendingUntilTheJobFinishesThenReportsItsResult) {
    auto release = std::make_shared<std::atomic<bool>>(false);
    SleepChecker c(10s, release);
    ASSERT_EQ(c.start(10s), 0);
    EXPECT_EQ(c.result(), CheckerState::Pending);
    EXPECT_EQ(c.start(10s), -EINPROGRESS);
    *release = true;
    ASSERT_TRUE(readable(c.fd(), 5000));
    EXPECT_EQ(c.result(), CheckerState::Up);
}

TEST(Checker, ReportsTimeoutOnTimeWhenTheIoNeverReturns) {
    auto release = std::make_shared<std::atomic<bool>>(false);
    SleepChecker c(60s, release);
    auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(c.start(100ms), 0);
    ASSERT_TRUE(readable(c.fd(), 5000));
    EXPECT_EQ(c.result(), CheckerState::Timeout);
    auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_GE(took, 90ms);
    EXPECT_LT(took, 2s);
    EXPECT_EQ(c.start(100ms), -EBUSY) << "the hung I/O must finish before the next check";
    *release = true;
    auto deadline = std::chrono::steady_clock::now() + 5s;
    int r = -EBUSY;
    while (r == -EBUSY && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(10ms);
        r = c.start(5s);
    }
    ASSERT_EQ(r, 0);
    ASSERT_TRUE(readable(c.fd(), 5000));
    EXPECT_EQ(c.result(), CheckerState::Up);
}

TEST(Checker, LateCompletionOfATimedOutJobDoesNotWakeTheCaller) {
    auto release = std::make_shared<std::atomic<bool>>(false);
    SleepChecker c(60s, release);
    ASSERT_EQ(c.start(50ms), 0);
    ASSERT_TRUE(readable(c.fd(), 5000));
    EXPECT_EQ(c.result(), CheckerState::Timeout);
    *release = true;
    EXPECT_FALSE(readable(c.fd(), 200));
    EXPECT_EQ(c.result(), CheckerState::Timeout);
}

TEST(Checker, CanBeDestroyedWhileItsIoHangs) {
    auto release = std::make_shared<std::atomic<bool>>(false);
    auto t0 = std::chrono::steady_clock::now();
    {
        SleepChecker c(60s, release);
        ASSERT_EQ(c.start(10s), 0);
    }
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
    *release = true;
}

TEST(DirectioChecker, ReadsAFileWithODirect) {
    std::string why;
    std::string file = directFile(why);
    if (file.empty())
        GTEST_SKIP() << why;
    DirectioChecker c(file);
    EXPECT_EQ(c.check(5s), CheckerState::Up) << c.message();
    std::filesystem::remove(file);
}

TEST(DirectioChecker, IsDownWhenTheDeviceIsGone) {
    DirectioChecker c("/nonexistent/sdq");
    EXPECT_EQ(c.check(5s), CheckerState::Down);
    EXPECT_NE(c.message().find("open"), std::string::npos) << c.message();
}

TEST(DirectioChecker, TimesOutWhenOpeningBlocksForever) {
    // Opening a FIFO for reading blocks until a writer comes: I/O that
    // does not return, without needing a broken device.
    auto fifo = std::filesystem::current_path() / ("checker-fifo-" + std::to_string(getpid()));
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    DirectioChecker c(fifo.string());
    EXPECT_EQ(c.check(100ms), CheckerState::Timeout);
    // Let the stuck open finish so the worker thread ends.
    int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0)
        ::close(w);
    std::filesystem::remove(fifo);
}

TEST(TurChecker, IsDownOnSomethingThatIsNotScsi) {
    TurChecker c("/dev/null");
    EXPECT_EQ(c.check(2s), CheckerState::Down);
    EXPECT_NE(c.message().find("SG_IO"), std::string::npos) << c.message();
}
