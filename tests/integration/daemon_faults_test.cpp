// What mpathd promises under faults (docs/mpathd.md): an administrator's
// queueing holds, hung paths take no capacity device-mapper work needs,
// a live map keeps its target, a map lives in the daemon as long as in the
// kernel, a flapping path is reinstated at a pace.
#include "daemon_harness.h"
#include "map_policies.h"

#include <algorithm>
#include <atomic>
#include <fcntl.h>
#include <future>
#include <sys/stat.h>
#include <unistd.h>

using namespace mpathd_test;
using mpath::model::CheckerState;
using mpath::model::DmPathState;

namespace {

constexpr const char *kMapA = "36001405aaaa";
constexpr const char *kMapB = "36001405bbbb";

std::string config(const std::string &extra) {
    return "defaults {\n find_multipaths on\n path_grouping_policy failover\n prio sysfs\n"
           " dm_target multipath\n polling_interval 5\n" +
           extra + "}\n";
}

/// Map A (sdb optimized, sdc standby) and map B (sdd, sde).
void twoMaps(DaemonHarness &h) {
    h.addDisk("sdb", 16, 1, kMapA, "active/optimized");
    h.addDisk("sdc", 32, 2, kMapA, "standby");
    h.addDisk("sdd", 48, 1, kMapB, "active/optimized");
    h.addDisk("sde", 64, 2, kMapB, "standby");
}

void start(DaemonHarness &h, const std::string &extra, bool lmpath = true) {
    h.config(config(extra));
    twoMaps(h);
    h.start(lmpath);
    h.settle();
}

void onFake(DaemonHarness &h, const std::function<void(mpath::testing::FakeDeviceMapper &)> &fn) {
    h.dm().with([&](mpath::dm::DeviceMapper &dm) {
        fn(static_cast<mpath::testing::FakeDeviceMapper &>(dm));
        return 0;
    });
}

/// Both paths of map A go down; returns once the daemon said so.
void mapADown(DaemonHarness &h) {
    h.checkers().set("/dev/sdb", CheckerState::Down);
    h.checkers().set("/dev/sdc", CheckerState::Down);
    ASSERT_TRUE(
        h.advanceUntil([&] { return h.logged("map " + std::string(kMapA) + ": no usable"); }, 20s))
        << h.logText();
}

bool queueingInKernel(DaemonHarness &h, const std::string &map) {
    return h.table(map).find("queue_if_no_path") != std::string::npos;
}

} // namespace

// --- an administrator's queueing ------------------------------------------

TEST(DaemonFaults, AnAdministratorsQueueIfNoPathOutlastsTheNoPathRetryCountdown) {
    DaemonHarness h;
    start(h, " no_path_retry 3\n");
    mapADown(h);
    // SetQueueIfNoPath(true), as the bus service does it: the message,
    // then the setting.
    onFake(h, [](auto &dm) { ASSERT_TRUE(dm.message(kMapA, 0, "queue_if_no_path")); });
    ASSERT_TRUE(h.daemon().setMapSetting(kMapA, "no_path_retry", "queue"));
    h.clearCalls();
    h.advance(60s); // four times the countdown
    EXPECT_FALSE(h.called("message 36001405aaaa fail_if_no_path"))
        << "queued I/O failed against the administrator's request\n"
        << h.logText();
    EXPECT_TRUE(queueingInKernel(h, kMapA));
}

TEST(DaemonFaults, NoPathRetrySetDuringAnOutageStartsItsCountdownThere) {
    DaemonHarness h;
    start(h, " no_path_retry queue\n");
    mapADown(h);
    h.advance(30s);
    ASSERT_FALSE(h.called("message 36001405aaaa fail_if_no_path"));
    ASSERT_TRUE(h.daemon().setMapSetting(kMapA, "no_path_retry", "2"));
    h.settle();
    h.advance(9s);
    EXPECT_FALSE(h.called("message 36001405aaaa fail_if_no_path")) << "two checks of 5 s";
    h.advance(2s);
    EXPECT_TRUE(h.called("message 36001405aaaa fail_if_no_path")) << h.logText();
    EXPECT_FALSE(queueingInKernel(h, kMapA));
}

TEST(DaemonFaults, AReconfigureToQueueCancelsARunningCountdown) {
    DaemonHarness h;
    start(h, " no_path_retry 3\n");
    mapADown(h);
    h.config(config(" no_path_retry queue\n"));
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    h.advance(60s);
    EXPECT_FALSE(h.called("message 36001405aaaa fail_if_no_path")) << h.logText();
    EXPECT_TRUE(queueingInKernel(h, kMapA));
}

TEST(DaemonFaults, QueueingAskedAfterTheCountdownRanOutQueuesAgain) {
    DaemonHarness h;
    start(h, " no_path_retry 1\n");
    mapADown(h);
    ASSERT_TRUE(
        h.advanceUntil([&] { return h.called("message 36001405aaaa fail_if_no_path"); }, 10s));
    h.clearCalls();
    ASSERT_TRUE(h.daemon().setMapSetting(kMapA, "no_path_retry", "queue"));
    h.settle();
    EXPECT_TRUE(queueingInKernel(h, kMapA)) << h.logText();
    EXPECT_EQ(h.count("reload "), 0u) << "a message turns queueing on, not a reload";
    h.advance(30s);
    EXPECT_FALSE(h.called("message 36001405aaaa fail_if_no_path")) << h.logText();
}

// --- lanes ------------------------------------------------------------------

namespace {

/// \a n more LUNs of two paths each, behind hosts 3 and 4.
std::vector<std::string> addLuns(DaemonHarness &h, unsigned n) {
    std::vector<std::string> devnodes;
    for (unsigned i = 0; i < n; ++i) {
        char wwid[32];
        snprintf(wwid, sizeof(wwid), "36001405c%07x", i);
        for (unsigned p = 0; p < 2; ++p) {
            const unsigned minor = 80 + 2 * i + p;
            const std::string name = "sdx" + std::to_string(i) + (p ? "b" : "a");
            h.addDisk(name, minor, 3 + p, wwid);
            h.inject("add", name);
            devnodes.push_back("/dev/" + name);
        }
    }
    h.settle();
    return devnodes;
}

} // namespace

TEST(DaemonFaults, AHealthyPathIsFailedOnTimeWhileSixtyFourPathsHangInTheKernel) {
    DaemonHarness h;
    start(h, " max_polling_interval 5\n"); // every path checked every 5 s
    for (const auto &d : addLuns(h, 32))
        h.checkers().hangInKernel(d);
    h.advance(20s); // every hung path has timed out at least once
    h.clearCalls();
    h.checkers().set("/dev/sdd", CheckerState::Down);
    // One polling interval for its check to come, one for it to answer.
    h.advance(10s);
    EXPECT_TRUE(h.called("message 36001405bbbb fail_path 8:48")) << h.logText();
    EXPECT_EQ(h.daemon().ioExecutor().stats().stuck, 0u) << "hung in the kernel, not in a thread";
    h.checkers().release();
}

TEST(DaemonFaults, DeviceMapperWorkRunsWhileEveryPathIoWorkerIsStuck) {
    DaemonHarness h;
    start(h, "");
    // Checks that hold their workers (a device whose open or submission
    // hangs): more than the path I/O lane has.
    for (const auto &d : addLuns(h, 8))
        h.checkers().hang(d);
    h.advance(20s);
    const auto io = h.daemon().ioExecutor().stats();
    ASSERT_GE(io.stuck, 4u) << "the path I/O lane is worn out";
    // A reload, and an administrator's fail_path: device-mapper's lane.
    h.clearCalls();
    ASSERT_TRUE(h.daemon().setMapSetting(kMapB, "path_selector", "queue-length 0"));
    h.settle();
    EXPECT_TRUE(h.called("reload 36001405bbbb")) << h.logText();
    EXPECT_NE(h.table(kMapB).find("queue-length"), std::string::npos) << h.logText();
    EXPECT_FALSE(h.logged("device-mapper call not started")) << h.logText();
    h.checkers().release();
}

TEST(DaemonFaults, HealthyPathsWhoseChecksCannotStartKeepTheirStateAndItIsSaid) {
    DaemonHarness h;
    start(h, "");
    // More devices whose checks hold a worker than the lane has workers:
    // the healthy paths' checks wait past their timeout, and never run.
    for (const auto &d : addLuns(h, 8))
        h.checkers().hang(d);
    h.clearCalls();
    h.advance(60s);
    ASSERT_GT(h.daemon().counters().checksNotStarted, 0u) << h.logText();
    for (const char *devt : {"8:16", "8:32", "8:48", "8:64"})
        for (const auto &c : h.calls())
            EXPECT_EQ(c.find(std::string("fail_path ") + devt), std::string::npos)
                << devt << " was never asked, it is not failed\n"
                << h.logText();
    const auto said = std::count_if(h.log().begin(), h.log().end(), [](const std::string &l) {
        return l.find("path checks could not start within their timeout") != std::string::npos;
    });
    EXPECT_GT(said, 0) << h.logText();
    EXPECT_LE(said, 60) << "said once a second at most";
    h.checkers().release();
}

TEST(DaemonFaults, ADeviceMapperCallQueuedBehindItsMapIsNotTimedOutForTheWait) {
    DaemonHarness h;
    start(h, "");
    // Map A's reload takes 70 s in the kernel; a message to A waits behind
    // it, longer than its own 10 s bound.
    auto gate = std::make_shared<std::promise<void>>();
    std::shared_future<void> opened = gate->get_future().share();
    h.dm().setHook([opened](const std::string &op, const std::string &name) {
        if (op == "reload" && name == kMapA)
            opened.wait();
    });
    ASSERT_TRUE(h.daemon().setMapSetting(kMapA, "path_selector", "queue-length 0"));
    h.advance(1s);
    h.checkers().set("/dev/sdc", CheckerState::Down); // fail_path 8:32 queues behind the reload
    h.advance(30s);
    gate->set_value();
    h.settle();
    h.dm().setHook({});
    h.advance(1s);
    EXPECT_TRUE(h.called("message 36001405aaaa fail_path 8:32")) << h.logText();
    EXPECT_FALSE(h.logged("not started")) << "its wait behind the reload is not its run\n"
                                          << h.logText();
}

// --- a live map keeps its target -------------------------------------------

TEST(DaemonFaults, AMapMadeWithTheStockTargetKeepsItWhenLmpathAppears) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n path_grouping_policy failover\n prio sysfs\n"
             " polling_interval 5\n}\n");
    twoMaps(h);
    h.start(/*lmpath=*/false);
    h.settle();
    ASSERT_NE(h.table(kMapA).find("service-time"), std::string::npos);
    // DKMS built dm-lmpath since: a restarted daemon (and every later
    // configuration) would choose lmpath for new maps.
    h.clearCalls();
    h.restart();
    h.settle();
    h.addDisk("sdf", 80, 3, kMapA, "standby");
    h.inject("add", "sdf");
    h.settle();
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    EXPECT_TRUE(h.called("reload 36001405aaaa")) << h.logText();
    EXPECT_NE(h.table(kMapA).find("8:80"), std::string::npos) << "the new path joined";
    EXPECT_FALSE(h.logged("immutable")) << h.logText();
    EXPECT_EQ(h.dm().with([](mpath::dm::DeviceMapper &dm) { return dm.info(kMapA)->targetType; }),
              "multipath");
    // A new map gets the new target.
    h.addDisk("sdg", 96, 1, "36001405dddd");
    h.addDisk("sdh", 112, 2, "36001405dddd");
    h.inject("add", "sdg");
    h.inject("add", "sdh");
    h.settle();
    EXPECT_EQ(h.dm().with(
                  [](mpath::dm::DeviceMapper &dm) { return dm.info("36001405dddd")->targetType; }),
              "lmpath");
}

TEST(DaemonFaults, AnAdoptedMapWithoutQueueingGetsItByAMessageNotAReload) {
    DaemonHarness h;
    start(h, " no_path_retry 12\n");
    ASSERT_TRUE(queueingInKernel(h, kMapA));
    // The daemon that made the maps turned queueing off as it stopped
    // (queue_without_daemon no).
    onFake(h, [](auto &dm) {
        ASSERT_TRUE(dm.message(kMapA, 0, "fail_if_no_path"));
        ASSERT_TRUE(dm.message(kMapB, 0, "fail_if_no_path"));
    });
    h.clearCalls();
    h.restart();
    h.settle();
    EXPECT_TRUE(queueingInKernel(h, kMapA)) << h.logText();
    EXPECT_TRUE(queueingInKernel(h, kMapB)) << h.logText();
    EXPECT_EQ(h.count("reload "), 0u) << h.logText();
    EXPECT_TRUE(h.called("message 36001405aaaa queue_if_no_path"));
}

TEST(DaemonFaults, AnAdoptedMapWhosePathsAreListedInAnotherOrderIsNotReloaded) {
    // multipathd lists a group's paths in the order it found them; the
    // plan lists them by name. The group is the same, and multipath-tools
    // does not reload for that either.
    DaemonHarness h;
    start(h, " path_grouping_policy multibus\n");
    const std::string before = h.table(kMapA);
    const auto b = before.find("8:16 1"), c = before.find("8:32 1");
    ASSERT_TRUE(b != std::string::npos && c != std::string::npos && b < c) << before;
    onFake(h, [](auto &dm) {
        auto t = dm.table(kMapA);
        ASSERT_TRUE(t);
        auto &params = t->front().params;
        const auto x = params.find("8:16 1"), y = params.find("8:32 1");
        params.replace(y, 6, "8:16 1");
        params.replace(x, 6, "8:32 1");
        ASSERT_TRUE(dm.reload(kMapA, *t));
        ASSERT_TRUE(dm.resume(kMapA));
    });
    const std::string swapped = h.table(kMapA);
    ASSERT_LT(swapped.find("8:32 1"), swapped.find("8:16 1")) << swapped;
    h.clearCalls();
    h.restart();
    h.settle();
    h.advance(12s);
    EXPECT_EQ(h.count("reload "), 0u) << h.logText();
    EXPECT_EQ(h.table(kMapA), swapped);
    // A path that joins later makes a reload, which may list them anew.
    h.addDisk("sdf", 80, 1, kMapA, "active/optimized");
    h.inject("add", "sdf");
    h.settle();
    EXPECT_TRUE(h.called("reload 36001405aaaa")) << h.logText();
    EXPECT_NE(h.table(kMapA).find("8:80"), std::string::npos);
}

TEST(DaemonFaults, AnAdoptedWeightedMapWhosePathsAreListedInAnotherOrderIsNotReloaded) {
    // With rr_weight priorities each path has its own weight: the kernel
    // prints the group's first path's arguments as the group's, so a
    // listing in another order must still compare path by path.
    DaemonHarness h;
    start(h, " path_grouping_policy multibus\n path_selector \"service-time 0\"\n"
             " rr_weight priorities\n");
    const std::string before = h.table(kMapA);
    ASSERT_NE(before.find("8:16 1 50 8:32 1 1"), std::string::npos) << before;
    onFake(h, [](auto &dm) {
        auto t = dm.table(kMapA);
        ASSERT_TRUE(t);
        auto &params = t->front().params;
        const auto at = params.find("8:16 1 50 8:32 1 1");
        params.replace(at, 18, "8:32 1 1 8:16 1 50");
        ASSERT_TRUE(dm.reload(kMapA, *t));
        ASSERT_TRUE(dm.resume(kMapA));
    });
    const std::string swapped = h.table(kMapA);
    ASSERT_NE(swapped.find("8:32 1 1 8:16 1 50"), std::string::npos) << swapped;
    h.clearCalls();
    h.restart();
    h.settle();
    h.advance(12s);
    EXPECT_EQ(h.count("reload "), 0u) << h.logText();
    EXPECT_EQ(h.table(kMapA), swapped);
    // Other weights are another table: the map is reloaded.
    onFake(h, [](auto &dm) {
        auto t = dm.table(kMapA);
        ASSERT_TRUE(t);
        auto &params = t->front().params;
        params.replace(params.find("8:16 1 50"), 9, "8:16 1 40");
        ASSERT_TRUE(dm.reload(kMapA, *t));
        ASSERT_TRUE(dm.resume(kMapA));
    });
    h.clearCalls();
    h.restart();
    h.settle();
    EXPECT_TRUE(h.called("reload 36001405aaaa")) << h.logText();
    EXPECT_NE(h.table(kMapA).find("8:16 1 50"), std::string::npos) << h.table(kMapA);
}

// --- a map lives in the daemon as long as in the kernel --------------------

TEST(DaemonFaults, AnOpenMapWithoutPathsQueuesForItsCountThenFailsAndIsKnownUntilItGoes) {
    DaemonHarness h;
    start(h, " no_path_retry 2\n");
    onFake(h, [](auto &dm) { dm.setOpenCount(kMapB, 1); });
    h.inject("remove", "sdd");
    h.inject("remove", "sde");
    h.settle();
    ASSERT_TRUE(h.called("remove 36001405bbbb deferred")) << h.logText();
    ASSERT_EQ(h.daemon().state().maps.count(kMapB), 1u) << "it exists: the daemon knows it";
    h.advance(9s);
    EXPECT_FALSE(h.called("message 36001405bbbb fail_if_no_path")) << "two checks of 5 s";
    h.advance(2s);
    EXPECT_TRUE(h.called("message 36001405bbbb fail_if_no_path"))
        << "queued I/O on a map with no paths would wait for ever\n"
        << h.logText();
    // Its last close: the kernel removes it, and says so.
    onFake(h, [](auto &dm) { dm.setOpenCount(kMapB, 0); });
    h.injectMap("remove", kMapB, "");
    h.settle();
    EXPECT_EQ(h.daemon().state().maps.count(kMapB), 0u);
    h.clearCalls();
    h.advance(10s);
    EXPECT_EQ(h.count("create "), 0u) << h.logText();
}

TEST(DaemonFaults, DeferredRemoveNoKeepsAnOpenMapWithoutPathsUntilAPassFindsItClosed) {
    // multipathd's deferred_remove no: an open map whose last path goes
    // stays, with its countdown, rather than going at its last close.
    DaemonHarness h;
    start(h, " no_path_retry 2\n deferred_remove no\n");
    onFake(h, [](auto &dm) { dm.setOpenCount(kMapB, 1); });
    h.inject("remove", "sdd");
    h.inject("remove", "sde");
    h.settle();
    ASSERT_TRUE(h.called("remove 36001405bbbb")) << h.logText();
    EXPECT_FALSE(h.called("remove 36001405bbbb deferred")) << h.logText();
    EXPECT_TRUE(h.logged("still open: kept without paths (deferred_remove no)")) << h.logText();
    EXPECT_FALSE(h.logged("trying again")) << "an open map is no failure\n" << h.logText();
    ASSERT_EQ(h.daemon().state().maps.count(kMapB), 1u);
    h.advance(11s);
    EXPECT_TRUE(h.called("message 36001405bbbb fail_if_no_path")) << h.logText();
    // Closed, it stays until a pass plans its WWID: a reconfigure does.
    onFake(h, [](auto &dm) { dm.setOpenCount(kMapB, 0); });
    h.advance(10s);
    EXPECT_EQ(h.liveMaps().size(), 2u)
        << "a deferred removal would have taken it at its last close\n"
        << h.logText();
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    EXPECT_EQ(h.liveMaps().size(), 1u) << h.logText();
    EXPECT_EQ(h.daemon().state().maps.count(kMapB), 0u);
}

TEST(DaemonFaults, DeferredRemoveNoKeepsAnOpenMapAPathReturnsTo) {
    DaemonHarness h;
    start(h, " no_path_retry queue\n deferred_remove no\n");
    onFake(h, [](auto &dm) { dm.setOpenCount(kMapB, 1); });
    h.inject("remove", "sdd");
    h.inject("remove", "sde");
    h.settle();
    ASSERT_TRUE(h.logged("kept without paths")) << h.logText();
    h.clearCalls();
    h.addDisk("sdd", 48, 1, kMapB, "active/optimized");
    h.inject("add", "sdd");
    h.settle();
    EXPECT_TRUE(h.called("reload 36001405bbbb")) << h.logText();
    EXPECT_EQ(h.count("remove "), 0u) << h.logText();
    EXPECT_EQ(h.count("create "), 0u) << h.logText();
    EXPECT_NE(h.table(kMapB).find("8:48"), std::string::npos) << h.table(kMapB);
    EXPECT_TRUE(queueingInKernel(h, kMapB)) << h.logText();
}

TEST(DaemonFaults, FlushOnLastDelFailsQueuedIoOfAnOpenMapWhenItsLastPathIsRemoved) {
    DaemonHarness h;
    start(h, " no_path_retry queue\n flush_on_last_del yes\n");
    onFake(h, [](auto &dm) { dm.setOpenCount(kMapB, 1); });
    h.inject("remove", "sdd");
    h.inject("remove", "sde");
    h.settle();
    ASSERT_TRUE(h.called("remove 36001405bbbb deferred")) << h.logText();
    EXPECT_FALSE(queueingInKernel(h, kMapB)) << "queued I/O would wait for its last close\n"
                                             << h.logText();
    // Checks go on; nothing turns queueing back on while no path is there.
    h.advance(30s);
    EXPECT_FALSE(queueingInKernel(h, kMapB)) << h.logText();
    // A path added again: the removal is cancelled, and I/O queues again.
    h.addDisk("sdd", 48, 1, kMapB, "active/optimized");
    h.inject("add", "sdd");
    h.settle();
    EXPECT_TRUE(h.called("message 36001405bbbb @cancel_deferred_remove")) << h.logText();
    EXPECT_TRUE(queueingInKernel(h, kMapB)) << h.logText();
}

TEST(DaemonFaults, WithoutFlushOnLastDelAnOpenMapKeepsQueueingWhenItsLastPathIsRemoved) {
    DaemonHarness h;
    start(h, " no_path_retry queue\n");
    onFake(h, [](auto &dm) { dm.setOpenCount(kMapB, 1); });
    h.inject("remove", "sdd");
    h.inject("remove", "sde");
    h.settle();
    ASSERT_TRUE(h.called("remove 36001405bbbb deferred")) << h.logText();
    h.advance(30s);
    EXPECT_TRUE(queueingInKernel(h, kMapB)) << h.logText();
}

TEST(DaemonFaults, StoppingTurnsQueueingOffOnAnOpenMapWaitingForItsLastClose) {
    DaemonHarness h;
    start(h, " no_path_retry queue\n");
    onFake(h, [](auto &dm) { dm.setOpenCount(kMapB, 1); });
    h.inject("remove", "sdd");
    h.inject("remove", "sde");
    h.settle();
    h.clearCalls();
    bool done = false;
    h.daemon().stop([&] { done = true; });
    h.settle();
    EXPECT_TRUE(done);
    EXPECT_TRUE(h.called("message 36001405bbbb fail_if_no_path")) << h.logText();
}

TEST(DaemonFaults, AMapWhoseCreationFailedIsForgottenWhenItsPathsGo) {
    DaemonHarness h;
    h.config(config(""));
    twoMaps(h);
    onFake(h, [](auto &dm) {
        for (int i = 0; i < 8; ++i)
            dm.failNext(mpath::testing::FakeDeviceMapper::Op::Create, EIO);
    });
    h.start();
    h.settle();
    h.inject("remove", "sdd");
    h.inject("remove", "sde");
    h.inject("remove", "sdb");
    h.inject("remove", "sdc");
    h.advance(70s);
    h.settle();
    EXPECT_TRUE(h.daemon().state().maps.empty())
        << h.daemon().state().maps.size() << " maps never made are still known";
}

// --- a check's answer goes to the device it checked -------------------------

TEST(DaemonFaults, AnAnswerForARemovedDeviceIsNotTakenForTheNewOneOfTheSameName) {
    DaemonHarness h;
    start(h, "");
    h.advance(1s);
    h.checkers().hang("/dev/sdd");
    // sdd's next check starts and hangs in its worker; within its
    // deadline the device goes.
    const unsigned before = h.checkers().checks("/dev/sdd");
    ASSERT_TRUE(h.advanceUntil([&] { return h.checkers().checks("/dev/sdd") > before; }, 30s));
    h.inject("remove", "sdd");
    h.drain();
    // A new disk takes the name, as the kernel reuses it; its node is
    // another here, so that its own checks are told apart.
    mpath::discovery::UdevDevice d;
    d.action = "add";
    d.sysname = "sdd";
    d.subsystem = "block";
    d.devtype = "disk";
    d.devnode = "/dev/sdd-new";
    d.devnum = makedev(8, 48);
    d.properties = {{"ID_SERIAL", kMapB}, {"DEVTYPE", "disk"}};
    h.injectDevice(d);
    h.advance(400ms); // planned again, well within the old check's 5 s
    ASSERT_EQ(h.daemon().state().paths.at("sdd").mapWwid, kMapB);
    h.clearCalls();
    // The old check ends: its device said "down".
    h.checkers().set("/dev/sdd", CheckerState::Down);
    h.checkers().release();
    h.advance(500ms);
    EXPECT_FALSE(h.called("message 36001405bbbb fail_path 8:48"))
        << "the old device's answer failed the new one\n"
        << h.logText();
}

// --- a path that checks up but fails I/O -----------------------------------

TEST(DaemonFaults, APathTheKernelKeepsFailingIsReinstatedAtMostOncePerIntervalAndBacksOff) {
    DaemonHarness h;
    start(h, " max_polling_interval 20\n");
    h.advance(1s);
    h.clearCalls();
    // Its check says up, but every I/O on it fails: the kernel fails it
    // as soon as it is reinstated.
    unsigned events = 0;
    for (auto t = 0ms; t < 60s; t += 100ms) {
        if (h.called("message 36001405aaaa reinstate_path 8:32") || t == 0ms) {
            h.clearCalls();
            onFake(h, [](auto &dm) { (void)dm.message(kMapA, 0, "fail_path 8:32"); });
            h.injectMap("change", kMapA, "PATH_FAILED", "8:32");
            ++events;
        }
        h.advance(100ms);
    }
    // At event speed that would be hundreds. Paced: 5 s, then doubling.
    EXPECT_LE(events, 6u) << h.logText();
    EXPECT_GE(events, 3u) << "it is still tried again: " << h.logText();
    unsigned lines = 0;
    for (const auto &l : h.log())
        lines += l.find("path sdc") != std::string::npos && l.rfind("debug", 0) != 0;
    EXPECT_LE(lines, 3 * events) << "the log is not flooded\n" << h.logText();
}

// --- failback and check intervals ------------------------------------------

TEST(DaemonFaults, FailbackFolloweverLeavesIoWhereItIsWhenAnUpGroupsSecondPathReturns) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n path_grouping_policy group_by_prio\n prio sysfs\n"
             " dm_target multipath\n polling_interval 5\n failback followover\n}\n");
    h.addDisk("sdb", 16, 1, kMapA, "active/optimized");
    h.addDisk("sdc", 32, 2, kMapA, "active/optimized");
    h.addDisk("sdd", 48, 3, kMapA, "standby");
    h.addDisk("sde", 64, 4, kMapA, "standby");
    h.start();
    h.settle();
    ASSERT_EQ(h.table(kMapA).substr(0, 40), "0 0 2 1 service-time 0 2 2 8:16 1 1 8:32")
        << h.table(kMapA);
    // sdc fails; then I/O is moved to group 2 (another node's request).
    h.checkers().set("/dev/sdc", CheckerState::Down);
    h.advance(6s);
    ASSERT_TRUE(h.called("message 36001405aaaa fail_path 8:32"));
    onFake(h, [](auto &dm) { ASSERT_TRUE(dm.message(kMapA, 0, "switch_group 2")); });
    h.clearCalls();
    // sdc returns: group 1 had a usable path all along (sdb).
    h.checkers().set("/dev/sdc", CheckerState::Up);
    h.advance(12s);
    ASSERT_TRUE(h.called("message 36001405aaaa reinstate_path 8:32")) << h.logText();
    EXPECT_EQ(h.count("message 36001405aaaa switch_group"), 0u) << h.logText();
}

TEST(DaemonFaults, ChecksBackOffWhileUpAndStartOverAfterARecovery) {
    DaemonHarness h;
    start(h, " max_polling_interval 20\n");
    // The times (s) sdb is checked at, for 200 s.
    auto checkTimes = [&](std::chrono::seconds span) {
        std::vector<int> at;
        unsigned last = h.checkers().checks("/dev/sdb");
        for (int t = 1; t <= span.count(); ++t) {
            h.advance(1s);
            const unsigned now = h.checkers().checks("/dev/sdb");
            if (now != last)
                at.push_back(t);
            last = now;
        }
        return at;
    };
    auto gaps = [](const std::vector<int> &at) {
        std::vector<int> g;
        for (size_t i = 1; i < at.size(); ++i)
            g.push_back(at[i] - at[i - 1]);
        return g;
    };
    auto steady = gaps(checkTimes(80s));
    ASSERT_GE(steady.size(), 3u);
    EXPECT_EQ(steady.back(), 20) << "backed off to max_polling_interval";
    // Down, then up again: from polling_interval, doubling, again.
    h.checkers().set("/dev/sdb", CheckerState::Down);
    h.advance(25s);
    h.checkers().set("/dev/sdb", CheckerState::Up);
    auto after = gaps(checkTimes(80s));
    ASSERT_GE(after.size(), 4u);
    EXPECT_EQ(std::vector<int>(after.begin(), after.begin() + 4), (std::vector<int>{5, 10, 20, 20}))
        << "after a recovery the interval starts over from polling_interval";
}

// --- files on a device that queues -----------------------------------------

TEST(DaemonFaults, AWwidsFileThatDoesNotAnswerHoldsUpNeitherChecksNorPlans) {
    DaemonHarness h;
    start(h, "");
    ASSERT_TRUE(h.daemon().ready());
    // The wwids file's device queues: reading it waits (a FIFO nobody
    // writes to is such a file). Another tool replaced it: the daemon
    // reads it again.
    const std::string wwids = h.root() + "/etc/multipath/wwids";
    ASSERT_EQ(::mkfifo((wwids + ".new").c_str(), 0600), 0);
    ASSERT_EQ(::rename((wwids + ".new").c_str(), wwids.c_str()), 0);
    h.advance(1s);
    h.clearCalls();
    // Checks go on, and so do plans, with the files as last read.
    h.checkers().set("/dev/sdd", CheckerState::Down);
    h.addDisk("sdf", 80, 3, kMapA, "standby");
    h.inject("add", "sdf");
    h.advance(11s);
    EXPECT_TRUE(h.called("message 36001405bbbb fail_path 8:48")) << h.logText();
    EXPECT_TRUE(h.called("reload 36001405aaaa")) << h.logText();
    // The device answers at last.
    const int w = ::open(wwids.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0)
        ::close(w);
}

TEST(DaemonFaults, APersistentSettingLeavesOtherEditsOnDiskForTheNextReconfigure) {
    DaemonHarness h;
    start(h, "");
    // The administrator is editing the file for map B, not done yet.
    h.config(config("") + "multipaths {\n multipath {\n wwid 36001405bbbb\n"
                          " path_selector \"round-robin 0\"\n }\n}\n");
    h.clearCalls();
    std::optional<mpath::Result<void>> r;
    h.daemon().setMapSetting(kMapA, "path_selector", "queue-length 0", true,
                             [&](mpath::Result<void> x) { r = std::move(x); });
    ASSERT_TRUE(h.advanceUntil([&] { return r.has_value(); }, 5s));
    ASSERT_TRUE(*r) << r->error().message;
    h.settle();
    EXPECT_NE(h.table(kMapA).find("queue-length"), std::string::npos) << h.logText();
    EXPECT_EQ(h.count("reload 36001405bbbb"), 0u) << "map B's edit waits for a reconfigure\n"
                                                  << h.logText();
    EXPECT_EQ(h.table(kMapB).find("round-robin"), std::string::npos);
    // It is written, for the next start.
    EXPECT_TRUE(std::filesystem::exists(h.root() + "/etc/mpathd/conf.d")) << "the drop-in's folder";
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    EXPECT_NE(h.table(kMapA).find("queue-length"), std::string::npos) << "persistent";
    EXPECT_NE(h.table(kMapB).find("round-robin"), std::string::npos) << "read now";
}

// --- udev's pace, without a thread waiting for it -----------------------------

TEST(DaemonFaults, AMapParkedOnItsUeventGetsOneOperationForABurstOfPathAdds) {
    DaemonHarness h;
    start(h, "");
    h.holdUdev(true); // udev is busy: the uevents of changes wait
    h.clearCalls();
    h.addDisk("sdf", 80, 3, kMapA, "standby");
    h.inject("add", "sdf");
    h.advance(1s);
    ASSERT_EQ(h.count("reload 36001405aaaa"), 1u) << h.logText();
    // More paths of the map, each on its own, while udev has not done the
    // first reload's uevent.
    for (auto [name, minor] : {std::pair{"sdg", 96u}, {"sdh", 112u}, {"sdi", 128u}}) {
        h.addDisk(name, minor, 4, kMapA, "standby");
        h.inject("add", name);
        h.advance(2s);
    }
    EXPECT_EQ(h.count("reload 36001405aaaa"), 1u) << "parked: no reload before udev is done\n"
                                                  << h.logText();
    EXPECT_EQ(h.daemon().dmExecutor().stats().busy, 0u) << "no worker waits for udev";
    h.holdUdev(false);
    h.settle();
    EXPECT_EQ(h.count("reload 36001405aaaa"), 2u) << "the three paths went in one reload\n"
                                                  << h.logText();
    const std::string t = h.table(kMapA);
    for (const char *devt : {"8:96", "8:112", "8:128"})
        EXPECT_NE(t.find(devt), std::string::npos) << devt << " in " << t;
    EXPECT_EQ(h.count("release "), 2u) << "each cookie released once";
    onFake(h, [](auto &dm) { EXPECT_EQ(dm.cookiesOut(), 0u); });
}

TEST(DaemonFaults, AUeventHandledBeforeTheEndOfItsReloadIsNotWaitedForAgain) {
    DaemonHarness h;
    start(h, "");
    h.holdUdev(true); // its uevent is broadcast by hand, at the worst time
    auto gate = std::make_shared<std::promise<void>>();
    std::shared_future<void> opened = gate->get_future().share();
    auto reached = std::make_shared<std::atomic<bool>>(false);
    h.dm().setAfterHook([opened, reached](const std::string &op, const std::string &name) {
        if (op == "reload" && name == kMapA && !reached->exchange(true))
            opened.wait();
    });
    h.clearCalls();
    h.addDisk("sdf", 80, 3, kMapA, "standby");
    h.inject("add", "sdf");
    ASSERT_TRUE(h.advanceUntil([&] { return reached->load(); }, 5s)) << h.logText();
    // The reload has returned in its worker; udev is quick, and the loop
    // handles the map's uevent before it learns that the reload ended.
    ASSERT_TRUE(h.broadcastMapEvents());
    h.drain();
    gate->set_value();
    h.advance(1s);
    ASSERT_EQ(h.count("reload 36001405aaaa"), 1u) << h.logText();
    // The next change of the map goes at once: nothing is parked.
    h.addDisk("sdg", 96, 4, kMapA, "standby");
    h.inject("add", "sdg");
    h.advance(2s);
    EXPECT_EQ(h.count("reload 36001405aaaa"), 2u) << "its uevent came already: no wait for it\n"
                                                  << h.logText();
    h.holdUdev(false);
    h.settle();
    h.advance(31s);
    EXPECT_FALSE(h.logged("udev did not process its uevent")) << h.logText();
    onFake(h, [](auto &dm) { EXPECT_EQ(dm.cookiesOut(), 0u); });
}

TEST(DaemonFaults, AMapWhoseUeventNeverComesGoesOnAfterThirtySeconds) {
    DaemonHarness h;
    start(h, "");
    h.holdUdev(true);
    h.addDisk("sdf", 80, 3, kMapA, "standby");
    h.inject("add", "sdf");
    h.advance(1s);
    h.addDisk("sdg", 96, 4, kMapA, "standby");
    h.inject("add", "sdg");
    h.advance(20s);
    EXPECT_EQ(h.table(kMapA).find("8:96"), std::string::npos) << "still parked";
    h.advance(12s);
    EXPECT_TRUE(h.logged("udev did not process its uevent in 30 s")) << h.logText();
    EXPECT_NE(h.table(kMapA).find("8:96"), std::string::npos) << h.logText();
    bool forced = false;
    for (const auto &c : h.calls())
        forced = forced || (c.rfind("release ", 0) == 0 && c.find("forced") != std::string::npos);
    EXPECT_TRUE(forced) << "its cookie is completed, not left for ever";
}

TEST(DaemonFaults, AHugeNoPathRetryQueuesAndDoesNotOverflowIntoFailingAtOnce) {
    DaemonHarness h;
    start(h, " no_path_retry queue\n");
    mapADown(h);
    // 2e9 checks of 5 s in nanoseconds is past int64: wrapped, a negative
    // time, which fires at once.
    ASSERT_TRUE(h.daemon().setMapSetting(kMapA, "no_path_retry", "2000000000"));
    h.settle();
    h.advance(60s);
    EXPECT_FALSE(h.called("message 36001405aaaa fail_if_no_path")) << h.logText();
    EXPECT_TRUE(queueingInKernel(h, kMapA));
}

TEST(DaemonFaults, AMapPlannedWhileAnotherWaitsForItsBindingGetsAnotherAlias) {
    // The bindings file's device queues: the first map's new alias cannot
    // be recorded. A second map, planned in a pass of its own meanwhile,
    // must not be handed the same alias.
    DaemonHarness h;
    h.config(config(" user_friendly_names yes\n"));
    h.start();
    h.settle();
    ASSERT_TRUE(h.daemon().ready());
    const std::string bindings = h.root() + "/etc/multipath/bindings";
    ASSERT_EQ(::mkfifo((bindings + ".new").c_str(), 0600), 0);
    ASSERT_EQ(::rename((bindings + ".new").c_str(), bindings.c_str()), 0);
    h.advance(1s);
    h.addDisk("sdb", 16, 1, kMapA, "active/optimized");
    h.addDisk("sdc", 32, 2, kMapA, "standby");
    h.inject("add", "sdb");
    h.inject("add", "sdc");
    h.advance(2s);
    h.addDisk("sdd", 48, 1, kMapB, "active/optimized");
    h.addDisk("sde", 64, 2, kMapB, "standby");
    h.inject("add", "sdd");
    h.inject("add", "sde");
    h.advance(2s);
    const auto &maps = h.daemon().state().maps;
    ASSERT_TRUE(maps.count(kMapA) && maps.at(kMapA).planned) << h.logText();
    ASSERT_TRUE(maps.count(kMapB) && maps.at(kMapB).planned) << h.logText();
    EXPECT_EQ(maps.at(kMapA).planned->map.alias, "mpatha");
    EXPECT_EQ(maps.at(kMapB).planned->map.alias, "mpathb");
    EXPECT_EQ(h.count("create "), 0u) << "a map was made before its name was recorded";
    // The device answers at last.
    const int w = ::open(bindings.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0)
        ::close(w);
}
