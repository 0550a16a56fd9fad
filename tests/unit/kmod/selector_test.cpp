// Path selector behaviour, on the kernel selector code built in userspace:
// distribution, repeat_count, queue length, relative throughput, history,
// CPU affinity, and fail/reinstate while other threads keep selecting.

#include "lmpath-ps.h"
#include "lmpath_map.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <gtest/gtest.h>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using lmpath_test::construct;
using lmpath_test::infoOf;
using lmpath_test::MapPtr;
using lmpath_test::tableOf;

namespace {

// One priority group of a constructed map, driven the way the core does:
// fail clears LMPP_USABLE then calls fail_path; reinstate calls
// reinstate_path then sets LMPP_USABLE (lmpath-ps.h).
class Group {
public:
    explicit Group(const std::string &table, unsigned pg = 0) {
        auto r = construct(table);
        if (!r.map)
            throw std::runtime_error(table + ": " + r.what);
        map_ = std::move(r.map);
        ps_ = lmpath_user_ps(map_.get(), pg);
        for (unsigned i = 0; i < lmpath_user_nr_paths(map_.get(), pg); ++i)
            paths_.push_back(lmpath_user_path(map_.get(), pg, i));
    }

    lmpath_ps_path *select(size_t bytes = 4096) { return ps_->type->select_path(ps_, bytes); }
    void start(lmpath_ps_path *p, size_t bytes = 4096) {
        if (ps_->type->start_io)
            ps_->type->start_io(ps_, p, bytes);
    }
    void end(lmpath_ps_path *p, size_t bytes = 4096, u64 startNs = 0) {
        if (ps_->type->end_io)
            ps_->type->end_io(ps_, p, bytes, startNs ? startNs : ktime_get_ns());
    }
    void fail(lmpath_ps_path *p) {
        std::lock_guard<std::mutex> lock(slowPath_);
        if (!test_and_clear_bit(LMPP_USABLE, &p->flags))
            return;
        if (ps_->type->fail_path)
            ps_->type->fail_path(ps_, p);
    }
    void reinstate(lmpath_ps_path *p) {
        std::lock_guard<std::mutex> lock(slowPath_);
        if (test_bit(LMPP_USABLE, &p->flags))
            return;
        if (ps_->type->reinstate_path)
            ps_->type->reinstate_path(ps_, p);
        set_bit(LMPP_USABLE, &p->flags);
    }

    lmpath_ps_path *path(size_t i) const { return paths_.at(i); }
    size_t index(const lmpath_ps_path *p) const {
        for (size_t i = 0; i < paths_.size(); ++i)
            if (paths_[i] == p)
                return i;
        return paths_.size();
    }
    size_t size() const { return paths_.size(); }
    lmpath *map() const { return map_.get(); }

private:
    MapPtr map_;
    lmpath_ps *ps_ = nullptr;
    std::vector<lmpath_ps_path *> paths_;
    std::mutex slowPath_; // stands for the map lock around fail/reinstate
};

const char *const kSelectors[] = {"round-robin", "queue-length", "service-time",
                                  "historical-service-time", "io-affinity"};

// A one-group table of @paths paths for @selector; io-affinity maps each
// path to its own CPU (4 CPUs).
std::string tableFor(const std::string &selector, int paths) {
    static const char *const devs[] = {"8:16", "8:32", "8:48", "8:64"};
    std::string t = "0 0 1 1 " + selector + " 0 " + std::to_string(paths);
    t += selector == "io-affinity" ? " 1" : " 0";
    for (int i = 0; i < paths; ++i) {
        t += std::string(" ") + devs[i];
        if (selector == "io-affinity")
            t += " " + std::to_string(1 << i);
    }
    return t;
}

class SelectorTest : public testing::Test {
protected:
    void SetUp() override {
        lmpath_user_set_nr_cpus(4, 1);
        lmpath_user_set_cpu(0);
    }
};

using RoundRobin = SelectorTest;
using QueueLength = SelectorTest;
using ServiceTime = SelectorTest;
using HistoricalServiceTime = SelectorTest;
using IoAffinity = SelectorTest;
using EverySelector = SelectorTest;

TEST_F(RoundRobin, SpreadsIoFromOneCpuEvenlyInTurn) {
    Group g(tableFor("round-robin", 3));
    std::vector<int> count(3);
    size_t last = 3;
    for (int i = 0; i < 3000; ++i) {
        const size_t idx = g.index(g.select());
        ASSERT_LT(idx, 3u);
        EXPECT_NE(idx, last) << "same path twice in a row at I/O " << i;
        last = idx;
        ++count[idx];
    }
    EXPECT_EQ(count, (std::vector<int>{1000, 1000, 1000}));
}

TEST_F(RoundRobin, SpreadsIoEvenlyWhenEveryCpuSubmits) {
    Group g(tableFor("round-robin", 2));
    std::vector<int> count(2);
    for (int i = 0; i < 4000; ++i) {
        lmpath_user_set_cpu(i % 4);
        ++count[g.index(g.select())];
    }
    EXPECT_EQ(count[0], 2000);
    EXPECT_EQ(count[1], 2000);
}

TEST_F(RoundRobin, TreatsARepeatCountAboveOneAsOneLikeStock) {
    Group g("0 0 1 1 round-robin 0 2 1 8:16 100 8:32 100");
    EXPECT_EQ(tableOf(g.map()), "0 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
    lmpath_ps_path *first = g.select();
    EXPECT_NE(g.select(), first) << "a repeat count of 100 kept the path";
}

// Stock round-robin, queue-length and service-time store a repeat_count
// above 1 as 1 and warn; stock historical-service-time takes it silently
// and prints 0.
TEST_F(EverySelector, TakesARepeatCountAboveOneAsTheStockSelectorDoes) {
    struct Case {
        const char *table, *printed;
        unsigned long warnings;
    };
    const Case cases[] = {
        {"0 0 1 1 round-robin 0 2 1 8:16 5 8:32 0", "0 0 1 1 round-robin 0 2 1 8:16 1 8:32 0", 1},
        {"0 0 1 1 queue-length 0 2 1 8:16 5 8:32 7", "0 0 1 1 queue-length 0 2 1 8:16 1 8:32 1", 2},
        {"0 0 1 1 service-time 0 2 2 8:16 5 2 8:32 0 3",
         "0 0 1 1 service-time 0 2 2 8:16 1 2 8:32 0 3", 1},
        {"0 0 1 1 historical-service-time 0 2 1 8:16 5 8:32 7",
         "0 0 1 1 historical-service-time 2 972 0 2 1 8:16 0 8:32 0", 0},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.table);
        const unsigned long before = __atomic_load_n(&lmpath_shim_warnings, __ATOMIC_RELAXED);
        Group g(c.table);
        EXPECT_EQ(__atomic_load_n(&lmpath_shim_warnings, __ATOMIC_RELAXED) - before, c.warnings);
        EXPECT_EQ(tableOf(g.map()), c.printed);
    }
}

TEST_F(RoundRobin, SkipsAFailedPathAndUsesItAgainAfterReinstate) {
    Group g(tableFor("round-robin", 3));
    g.fail(g.path(1));
    for (int i = 0; i < 100; ++i)
        EXPECT_NE(g.select(), g.path(1));
    g.reinstate(g.path(1));
    int used = 0;
    for (int i = 0; i < 3; ++i)
        used += g.select() == g.path(1);
    EXPECT_EQ(used, 1);
}

TEST_F(QueueLength, PicksThePathWithTheFewestIoInFlight) {
    Group g(tableFor("queue-length", 3));
    for (int i = 0; i < 3; ++i)
        g.start(g.path(0));
    g.start(g.path(1));
    for (int i = 0; i < 20; ++i)
        EXPECT_EQ(g.select(), g.path(2));
    EXPECT_EQ(infoOf(g.map()), "2 1 0 0 1 1 E 0 3 1 8:16 A 0 3 8:32 A 0 1 8:48 A 0 0");
}

TEST_F(QueueLength, KeepsQueuesWithinOneOfEachOtherUnderSteadyLoad) {
    Group g(tableFor("queue-length", 3));
    std::deque<lmpath_ps_path *> inflight;
    std::vector<int> depth(3);
    for (int i = 0; i < 3000; ++i) {
        lmpath_user_set_cpu(i % 4);
        lmpath_ps_path *p = g.select();
        g.start(p);
        ++depth[g.index(p)];
        inflight.push_back(p);
        const auto [lo, hi] = std::minmax_element(depth.begin(), depth.end());
        ASSERT_LE(*hi - *lo, 1) << "after I/O " << i;
        if (inflight.size() > 16) {
            lmpath_ps_path *done = inflight.front();
            inflight.pop_front();
            g.end(done);
            --depth[g.index(done)];
        }
    }
}

TEST_F(ServiceTime, SendsIoInProportionToRelativeThroughput) {
    Group g("0 0 1 1 service-time 0 2 2 8:16 1 1 8:32 1 3");
    // Each tick a path completes as many I/Os as its relative throughput.
    std::deque<lmpath_ps_path *> queue[2];
    std::vector<long> issued(2);
    for (int tick = 0; tick < 20000; ++tick) {
        for (int n = 0; n < 4; ++n) {
            lmpath_ps_path *p = g.select();
            g.start(p);
            ++issued[g.index(p)];
            queue[g.index(p)].push_back(p);
        }
        for (int i = 0; i < 2; ++i)
            for (int done = 0; done < (i ? 3 : 1) && !queue[i].empty(); ++done) {
                g.end(queue[i].front());
                queue[i].pop_front();
            }
    }
    const double fastShare = double(issued[1]) / double(issued[0] + issued[1]);
    EXPECT_NEAR(fastShare, 0.75, 0.03);
}

TEST_F(ServiceTime, PrefersTheFasterOfTwoIdlePaths) {
    Group g("0 0 1 1 service-time 0 2 2 8:16 1 10 8:32 1 90");
    for (int i = 0; i < 10; ++i) {
        lmpath_user_set_cpu(i % 4);
        EXPECT_EQ(g.select(), g.path(1));
    }
}

TEST_F(ServiceTime, UsesAZeroThroughputPathOnlyWhenNothingElseIsUsable) {
    Group g("0 0 1 1 service-time 0 2 2 8:16 1 0 8:32 1 1");
    for (int i = 0; i < 50; ++i)
        g.start(g.select());
    EXPECT_EQ(infoOf(g.map()), "2 1 0 0 1 1 E 0 2 2 8:16 A 0 0 0 8:32 A 0 204800 1");
    g.fail(g.path(1));
    EXPECT_EQ(g.select(), g.path(0));
}

TEST_F(HistoricalServiceTime, SendsMostIoToThePathThatServesItFaster) {
    // A simulated clock: path 0 serves an I/O in 20 ms, path 1 in 20 us,
    // each one I/O at a time; four I/Os are kept in flight.
    unsigned long long clock = 1'000'000'000ULL;
    lmpath_user_set_clock(&clock);
    struct Io {
        unsigned long long done, issued;
        lmpath_ps_path *path;
    };
    const unsigned long long service[2] = {20'000'000ULL, 20'000ULL};
    unsigned long long busyUntil[2] = {0, 0};
    std::vector<Io> inflight;
    std::vector<int> count(2);
    {
        Group g(tableFor("historical-service-time", 2));
        for (int i = 0; i < 2000; ++i) {
            while (inflight.size() >= 4) {
                auto first =
                    std::min_element(inflight.begin(), inflight.end(),
                                     [](const Io &a, const Io &b) { return a.done < b.done; });
                __atomic_store_n(&clock, std::max(clock, first->done), __ATOMIC_RELAXED);
                g.end(first->path, 4096, first->issued);
                inflight.erase(first);
            }
            lmpath_ps_path *p = g.select();
            const size_t idx = g.index(p);
            ASSERT_LT(idx, 2u);
            g.start(p);
            busyUntil[idx] = std::max(clock, busyUntil[idx]) + service[idx];
            inflight.push_back({busyUntil[idx], clock, p});
            ++count[idx];
        }
    }
    lmpath_user_set_clock(nullptr);
    EXPECT_GT(count[1], 1800) << "slow path got " << count[0];
    EXPECT_GT(count[0], 0) << "the slow path was never probed again";
}

TEST_F(IoAffinity, SendsIoToThePathMappedToTheSubmittingCpu) {
    Group g(tableFor("io-affinity", 4));
    for (unsigned cpu = 0; cpu < 4; ++cpu) {
        lmpath_user_set_cpu(cpu);
        EXPECT_EQ(g.select(), g.path(cpu));
    }
}

TEST_F(IoAffinity, FallsBackToAPathOfTheSameNodeThenToAnyMappedPath) {
    lmpath_user_set_nr_cpus(4, 2); // CPUs 0,1 on node 0; 2,3 on node 1
    Group g(tableFor("io-affinity", 4));
    lmpath_user_set_cpu(2);
    g.fail(g.path(2));
    EXPECT_EQ(g.select(), g.path(3));
    g.fail(g.path(3));
    const size_t other = g.index(g.select());
    EXPECT_TRUE(other == 0 || other == 1) << other;
}

TEST_F(EverySelector, ReturnsNoPathWhenEveryPathFailedAndOneAfterReinstate) {
    for (const char *sel : kSelectors) {
        SCOPED_TRACE(sel);
        Group g(tableFor(sel, 3));
        for (size_t i = 0; i < g.size(); ++i)
            g.fail(g.path(i));
        EXPECT_EQ(g.select(), nullptr);
        g.reinstate(g.path(2));
        for (unsigned cpu = 0; cpu < 4; ++cpu) {
            lmpath_user_set_cpu(cpu);
            EXPECT_EQ(g.select(), g.path(2));
        }
    }
}

// Four "CPUs" select, start and end I/O while a fifth thread fails and
// reinstates paths 1..3; path 0 stays usable, so every selection must
// find a path, and a path failed for good is never chosen again.
TEST_F(EverySelector, KeepsSelectingUsablePathsWhilePathsFailAndReinstate) {
    for (const char *sel : kSelectors) {
        SCOPED_TRACE(sel);
        Group g(tableFor(sel, 4));
        std::atomic<bool> stop{false};
        std::atomic<long> nulls{0}, ios{0};
        std::vector<std::thread> cpus;
        for (unsigned cpu = 0; cpu < 4; ++cpu)
            cpus.emplace_back([&, cpu] {
                lmpath_user_set_cpu(cpu);
                while (!stop.load()) {
                    lmpath_ps_path *p = g.select();
                    if (!p) {
                        ++nulls;
                        continue;
                    }
                    g.start(p);
                    g.end(p);
                    ++ios;
                }
            });
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(150);
        for (int round = 0; std::chrono::steady_clock::now() < until; ++round) {
            lmpath_ps_path *p = g.path(1 + round % 3);
            g.fail(p);
            std::this_thread::yield();
            g.reinstate(p);
        }
        g.fail(g.path(3));
        stop = true;
        for (auto &t : cpus)
            t.join();
        EXPECT_EQ(nulls.load(), 0);
        EXPECT_GT(ios.load(), 1000);
        for (unsigned cpu = 0; cpu < 4; ++cpu) {
            lmpath_user_set_cpu(cpu);
            for (int i = 0; i < 20; ++i)
                EXPECT_NE(g.select(), g.path(3));
        }
    }
}

TEST_F(EverySelector, ReportsNoIoInFlightOnceEveryIoEnded) {
    Group ql(tableFor("queue-length", 2));
    Group st(tableFor("service-time", 2));
    for (Group *g : {&ql, &st}) {
        std::vector<lmpath_ps_path *> started;
        for (int i = 0; i < 64; ++i) {
            lmpath_user_set_cpu(i % 4);
            started.push_back(g->select());
            g->start(started.back());
        }
        for (lmpath_ps_path *p : started)
            g->end(p);
    }
    EXPECT_EQ(infoOf(ql.map()), "2 1 0 0 1 1 E 0 2 1 8:16 A 0 0 8:32 A 0 0");
    EXPECT_EQ(infoOf(st.map()), "2 1 0 0 1 1 E 0 2 2 8:16 A 0 0 1 8:32 A 0 0 1");
}

} // namespace
