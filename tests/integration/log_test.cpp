// The daemon's log never holds up its caller: a journal that does not take
// lines costs dropped lines, counted and reported, not a blocked loop.
#include "log.h"

#include <condition_variable>
#include <future>
#include <gtest/gtest.h>
#include <mutex>
#include <string>
#include <vector>

using namespace std::chrono_literals;

namespace {

/// A journal that takes no line until opened.
struct StalledJournal {
    std::mutex m;
    std::condition_variable cv;
    bool open{false};
    std::vector<std::string> lines;

    void take(const std::string &line) {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [this] { return open; });
        lines.push_back(line);
    }
    void release() {
        std::lock_guard<std::mutex> lock(m);
        open = true;
        cv.notify_all();
    }
};

} // namespace

TEST(Log, AJournalThatTakesNoLinesHoldsNoCallerAndDroppedLinesAreCounted) {
    auto journal = std::make_shared<StalledJournal>();
    mpathd::Log::setSink({});
    mpathd::Log::setup(mpathd::Level::Debug);
    mpathd::Log::setBackend([journal](mpathd::Level, const mpathd::Subject &,
                                      const std::string &m) { journal->take(m); });
    const uint64_t droppedBefore = mpathd::Log::dropped();
    constexpr int kLines = 10000;
    // The loop's thread logs a failover's worth of lines.
    auto writer = std::async(std::launch::async, [] {
        for (int i = 0; i < kLines; ++i)
            mpathd::logWarning(mpathd::aboutPath("sdb", "mpatha"), "line " + std::to_string(i));
    });
    const bool returned = writer.wait_for(5s) == std::future_status::ready;
    journal->release(); // whatever happened, let everything go
    writer.wait();
    EXPECT_TRUE(returned) << "logging waited for the journal";
    const uint64_t dropped = mpathd::Log::dropped() - droppedBefore;
    EXPECT_GE(dropped, uint64_t(kLines) - mpathd::Log::kQueueLimit - 1);
    mpathd::Log::flush(5s);
    {
        std::lock_guard<std::mutex> lock(journal->m);
        ASSERT_FALSE(journal->lines.empty());
        EXPECT_EQ(journal->lines.front(), "line 0") << "lines come out in order";
        bool said = false;
        for (const auto &l : journal->lines)
            said = said || l == std::to_string(dropped) +
                                    " log lines were dropped while the journal did not take them";
        EXPECT_TRUE(said) << "the loss is reported once the journal takes lines";
    }
    mpathd::Log::setBackend({});
}

TEST(Log, TheConfigurationsVerbosityDecidesUnlessTheCommandLineDid) {
    mpathd::Log::setSink({});
    // mpathd without -v: notices, until the configuration says otherwise.
    mpathd::Log::setupDefault(mpathd::Level::Notice);
    EXPECT_FALSE(mpathd::Log::enabled(mpathd::Level::Info));
    mpathd::Log::setConfigured(mpathd::Level::Debug);
    EXPECT_TRUE(mpathd::Log::enabled(mpathd::Level::Debug));
    mpathd::Log::setConfigured(mpathd::Level::Error);
    EXPECT_TRUE(mpathd::Log::enabled(mpathd::Level::Error));
    EXPECT_FALSE(mpathd::Log::enabled(mpathd::Level::Warning));
    // mpathd -v: the command line wins over any verbosity.
    mpathd::Log::setup(mpathd::Level::Info);
    mpathd::Log::setConfigured(mpathd::Level::Error);
    EXPECT_TRUE(mpathd::Log::enabled(mpathd::Level::Info));
    EXPECT_FALSE(mpathd::Log::enabled(mpathd::Level::Debug));
    mpathd::Log::setup(mpathd::Level::Debug);
}
