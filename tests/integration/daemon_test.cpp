#include "daemon_harness.h"

#include <fcntl.h>
#include <future>
#include <map>
#include <mpath/config/parser.h>
#include <mpath/discovery/udev_property_files.h>
#include <mpath/policy/gatherer.h>
#include <mpath/state/bindings_file.h>
#include <mpath/state/wwids_file.h>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mpathd_test;
using mpath::model::CheckerState;
using mpath::model::DmPathState;

namespace {

const char *kTwoMapsConfig = "defaults {\n"
                             "  find_multipaths on\n"
                             "  path_grouping_policy failover\n"
                             "  prio sysfs\n"
                             "  dm_target multipath\n"
                             "  polling_interval 5\n"
                             "}\n";

/// Two LUNs behind two hosts: map A (sdb optimized, sdc standby), map B
/// (sdd, sde).
void twoMaps(DaemonHarness &h) {
    h.addDisk("sdb", 16, 1, "36001405aaaa", "active/optimized");
    h.addDisk("sdc", 32, 2, "36001405aaaa", "standby");
    h.addDisk("sdd", 48, 1, "36001405bbbb", "active/optimized");
    h.addDisk("sde", 64, 2, "36001405bbbb", "standby");
}

/// The daemon started on kTwoMapsConfig and twoMaps(), settled.
void startWithTwoMaps(DaemonHarness &h) {
    h.config(kTwoMapsConfig);
    twoMaps(h);
    h.start();
    h.settle();
}

bool contains(const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST(Daemon, AssemblesAtStartTheMapsThePlanHasAndSaysReady) {
    DaemonHarness h;
    startWithTwoMaps(h);
    ASSERT_TRUE(h.daemon().ready()) << h.logText();
    EXPECT_TRUE(contains(h.notes(), "READY=1"));
    EXPECT_TRUE(contains(h.notes(), "STATUS=2 maps, 4 paths"));
    EXPECT_EQ(h.count("create "), 2u);
    // The live tables are the plan's, as mpathctl plan would print them.
    auto cfg = mpath::config::parseString(kTwoMapsConfig, "mpathd.conf", true);
    mpath::policy::Gatherer::Options o;
    o.prio = mpath::prio::Context::noDevices();
    auto input =
        mpath::policy::gatherNow(cfg.config, mpath::discovery::Sysfs(h.tree().sysfsRoot()),
                                 mpath::discovery::UdevPropertyFiles(h.tree().udevDirectory()), o);
    auto plan = mpath::policy::plan(cfg.config, input);
    ASSERT_EQ(plan.maps.size(), 2u);
    for (const auto &pm : plan.maps) {
        const std::string params = pm.table.substr(pm.table.find(" multipath ") + 11);
        EXPECT_EQ(h.table(pm.map.alias), params) << pm.map.alias;
    }
    // Group order: the optimized path's group first.
    EXPECT_EQ(h.table("36001405aaaa"),
              "0 0 2 1 service-time 0 1 2 8:16 1 1 service-time 0 1 2 8:32 1 1");
}

TEST(Daemon, RefusesToStartOnAConfigurationWithErrorsAndNamesFileAndLine) {
    DaemonHarness h;
    // A blacklist pattern that does not compile: multipath-tools refuses
    // such a file too.
    h.config("defaults {\n  failback immediate\n}\nblacklist {\n  devnode \"sd(\"\n}\n");
    mpathd::Environment env;
    mpath::testing::ManualLoop loop;
    mpath::testing::FakeUdev udev;
    env.loop = &loop;
    env.udev = &udev;
    env.dm = std::make_shared<mpath::testing::FakeDeviceMapper>();
    env.root = h.root();
    mpathd::Daemon d(std::move(env));
    auto r = d.start();
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("etc/mpathd/mpathd.conf:5:"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find("sd("), std::string::npos) << r.error().message;
}

TEST(Daemon, StartsOnAConfigurationWithWarningsAndLogsEachWithFileAndLine) {
    // An invalid value is ignored with a warning, as multipath-tools does:
    // the built-in value stays.
    DaemonHarness h;
    h.config("defaults {\n  find_multipaths on\n  failback sometimes\n}\n");
    twoMaps(h);
    h.start();
    h.settle();
    EXPECT_EQ(h.count("create "), 2u) << h.logText();
    EXPECT_NE(h.logText().find("warning: "), std::string::npos) << h.logText();
    EXPECT_NE(h.logText().find("mpathd.conf:3:"), std::string::npos) << h.logText();
    EXPECT_NE(h.logText().find("failback"), std::string::npos) << h.logText();
}

TEST(Daemon, LogsAsMuchAsTheConfigurationsVerbositySaysUnlessStartedWithV) {
    DaemonHarness h;
    mpathd::Log::setupDefault(mpathd::Level::Notice); // mpathd without -v
    h.config("defaults {\n  find_multipaths on\n  verbosity 3\n}\n");
    twoMaps(h);
    h.start();
    h.settle();
    EXPECT_TRUE(mpathd::Log::enabled(mpathd::Level::Info));
    EXPECT_FALSE(mpathd::Log::enabled(mpathd::Level::Debug));
    // A reconfigure with another verbosity takes it at once.
    h.config("defaults {\n  find_multipaths on\n  verbosity 1\n}\n");
    ASSERT_TRUE(h.reconfigure());
    EXPECT_TRUE(mpathd::Log::enabled(mpathd::Level::Warning));
    EXPECT_FALSE(mpathd::Log::enabled(mpathd::Level::Notice));
    mpathd::Log::setup(mpathd::Level::Debug); // -vv: the configuration no longer decides
    h.config("defaults {\n  find_multipaths on\n  verbosity 0\n}\n");
    ASSERT_TRUE(h.reconfigure());
    EXPECT_TRUE(mpathd::Log::enabled(mpathd::Level::Debug));
}

TEST(Daemon, RaisesTheOpenFileLimitAsMaxFdsSaysAtStartAndReconfigure) {
    DaemonHarness h;
    twoMaps(h);
    h.start(); // no max_fds: multipath-tools' default, the system's limit
    h.settle();
    using Targets = std::vector<std::optional<unsigned long>>;
    EXPECT_EQ(h.openFileTargets(), Targets{std::nullopt});
    EXPECT_NE(h.logText().find("max_fds max: open file limit raised to 1048576"), std::string::npos)
        << h.logText();
    h.config("defaults {\n  find_multipaths on\n  max_fds 8192\n}\n");
    ASSERT_TRUE(h.reconfigure());
    EXPECT_EQ(h.openFileTargets(), (Targets{std::nullopt, 8192ul}));
    // A limit that cannot be raised is a warning naming the setting and
    // why; the maps stay as they are.
    h.failOpenFiles(mpath::Error{EPERM, "cannot raise the open file limit from 1024 to 4096: "
                                        "Operation not permitted"});
    h.config("defaults {\n  find_multipaths on\n  max_fds 4096\n}\n");
    ASSERT_TRUE(h.reconfigure());
    EXPECT_NE(h.logText().find("max_fds 4096: cannot raise the open file limit from 1024 to "
                               "4096: Operation not permitted; the open file limit stays as it is"),
              std::string::npos)
        << h.logText();
    EXPECT_EQ(h.liveMaps().size(), 2u);
}

TEST(Daemon, SaysOnceThatSCSIPathsHaveNoSgNodeNotAtEveryCheck) {
    // The tree's disks have no scsi_generic node: as on a host whose sg
    // driver is not loaded. The admin learns it once, with the cure.
    DaemonHarness h;
    startWithTwoMaps(h);
    h.advance(30s); // six rounds of checks of four paths
    const std::string log = h.logText();
    size_t n = 0;
    for (size_t at = log.find("has no sg node"); at != std::string::npos;
         at = log.find("has no sg node", at + 1))
        ++n;
    EXPECT_EQ(n, 1u) << log;
    EXPECT_NE(log.find("warning: path sd"), std::string::npos) << log;
    EXPECT_NE(log.find("is the sg driver loaded?"), std::string::npos) << log;
}

TEST(Daemon, TakesTheStockTargetWhenLmpathIsNotThereAndSaysSo) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n}\n");
    twoMaps(h);
    h.start(/*lmpath=*/false);
    h.settle();
    EXPECT_EQ(h.daemon().target(), mpath::config::DmTarget::Multipath);
    EXPECT_NE(h.logText().find("dm-lmpath is not available"), std::string::npos);
    EXPECT_EQ(h.count("create "), 2u);
}

TEST(Daemon, UsesLmpathWhenItIsThere) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n}\n");
    twoMaps(h);
    h.start(/*lmpath=*/true);
    h.settle();
    for (const auto &name : h.liveMaps())
        EXPECT_EQ(
            h.dm().with([&](mpath::dm::DeviceMapper &dm) { return dm.info(name)->targetType; }),
            "lmpath");
}

TEST(Daemon, NamesTheTargetMultipathWhenLmpathAnswersToIt) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n}\n");
    twoMaps(h);
    h.start(mpathd::LmpathPresence::AsMultipath);
    h.settle();
    EXPECT_EQ(h.daemon().target(), mpath::config::DmTarget::Multipath);
    EXPECT_EQ(h.logText().find("dm-lmpath is not available"), std::string::npos) << h.logText();
    EXPECT_NE(h.logText().find("maps use the multipath target, served by dm-lmpath"),
              std::string::npos)
        << h.logText();
    ASSERT_EQ(h.liveMaps().size(), 2u);
    for (const auto &name : h.liveMaps())
        EXPECT_EQ(
            h.dm().with([&](mpath::dm::DeviceMapper &dm) { return dm.info(name)->targetType; }),
            "multipath");
}

TEST(Daemon, AConfiguredTargetWinsOverTheAlias) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n dm_target lmpath\n}\n");
    twoMaps(h);
    h.start(mpathd::LmpathPresence::AsMultipath);
    h.settle();
    ASSERT_EQ(h.liveMaps().size(), 2u);
    for (const auto &name : h.liveMaps())
        EXPECT_EQ(
            h.dm().with([&](mpath::dm::DeviceMapper &dm) { return dm.info(name)->targetType; }),
            "lmpath");
}

TEST(Daemon, ABurstOfAThousandPathAddsBecomesOneCreatePerMap) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n dm_target multipath\n prio const\n}\n");
    h.start();
    h.settle();
    ASSERT_TRUE(h.daemon().ready());
    // 250 LUNs behind 4 hosts: the paths of a host arrive together.
    auto name = [](unsigned i) {
        std::string s;
        for (unsigned n = i + 1; n > 0; n = (n - 1) / 26)
            s.insert(s.begin(), char('a' + (n - 1) % 26));
        return "sd" + s;
    };
    for (unsigned host = 0; host < 4; ++host)
        for (unsigned lun = 0; lun < 250; ++lun) {
            const unsigned i = host * 250 + lun;
            char wwid[32];
            snprintf(wwid, sizeof(wwid), "36001405%08x", lun);
            h.addDisk(name(i), i % 256 + 0, host, wwid);
        }
    for (unsigned i = 0; i < 1000; ++i)
        h.inject("add", name(i));
    h.settle();
    EXPECT_EQ(h.count("create "), 250u);
    EXPECT_EQ(h.count("reload "), 0u);
    EXPECT_LE(h.daemon().counters().plans, 5u) << "events were planned together";
}

TEST(Daemon, PathsThatKeepComingArePlannedAtAPaceAndTheFirstMapsAreNotHeldBack) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n dm_target multipath\n prio const\n}\n");
    h.start();
    h.settle();
    ASSERT_TRUE(h.daemon().ready());
    const unsigned plansBefore = h.daemon().counters().plans;
    // 20 LUNs behind 2 hosts, their paths announced one every 100 ms for 4 s,
    // as udev hands them on when it processes a hot-added host slowly.
    std::vector<std::string> names;
    for (unsigned host = 0; host < 2; ++host)
        for (unsigned lun = 0; lun < 20; ++lun) {
            const unsigned i = host * 20 + lun;
            char wwid[32];
            snprintf(wwid, sizeof(wwid), "36001405%08x", lun);
            std::string name = "sd";
            name += char('a' + i / 26);
            name += char('a' + i % 26);
            h.addDisk(name, 16 * (i + 1), host, wwid);
            names.push_back(name);
        }
    std::vector<unsigned> createsAt; // creates seen after each event
    for (unsigned i = 0; i < names.size(); ++i) {
        // LUN by LUN, host 0's path and then host 1's.
        h.inject("add", names[(i % 2) * 20 + i / 2]);
        h.advance(100ms);
        createsAt.push_back(h.count("create "));
    }
    h.settle();
    EXPECT_EQ(h.count("create "), 20u);
    // Events never paused for the quiet period, yet the maps were planned
    // within the cap of the first one (1 s, and a step of the clock).
    EXPECT_GT(createsAt[11], 0u) << "a steady stream held every map back";
    // ... and at the cap's pace, not at every quiet period's: 4 s of events
    // is about 4 passes (the fixed 200 ms window made about 14).
    const unsigned plans = h.daemon().counters().plans - plansBefore;
    EXPECT_LE(plans, 7u) << "events arriving 100 ms apart were planned " << plans << " times";
}

namespace {

/// What one change uevent of one path cost the daemon.
struct EventWork {
    uint64_t paths;        ///< the paths planned
    uint64_t maps;         ///< the maps acted on
    unsigned statusCounts; ///< countings of every map and path for the status line
};

/// The work of one change uevent of one path that changes nothing, with
/// \a maps maps of 4 paths assembled.
EventWork workOfOneEvent(unsigned maps) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n dm_target multipath\n prio const\n}\n");
    auto name = [](unsigned i) {
        std::string s;
        for (unsigned n = i + 1; n > 0; n = (n - 1) / 26)
            s.insert(s.begin(), char('a' + (n - 1) % 26));
        return "sd" + s;
    };
    for (unsigned i = 0; i < maps * 4; ++i) {
        char wwid[32];
        snprintf(wwid, sizeof(wwid), "36001405%08x", i % maps);
        h.addDisk(name(i), 16 * (i + 1), i / maps, wwid);
    }
    h.start();
    h.settle();
    EXPECT_EQ(h.count("create "), maps);
    const mpathd::Counters before = h.daemon().counters();
    h.inject("change", name(maps + 1)); // map 1's path on host 1
    h.settle();
    EXPECT_EQ(h.count("reload "), 0u) << "nothing changed";
    const mpathd::Counters &after = h.daemon().counters();
    return {after.pathsPlanned - before.pathsPlanned, after.mapsPassed - before.mapsPassed,
            after.statusCounts - before.statusCounts};
}

} // namespace

TEST(Daemon, OnePathsEventPlansItsOwnMapWhateverTheNumberOfMaps) {
    // A pass plans the WWIDs whose paths changed, acts on their maps only,
    // and counts the status line again only when a map or a path in one
    // came or went: the work of one event is the same with 8 maps as with
    // 64, not a walk over every map or path.
    const EventWork few = workOfOneEvent(8);
    const EventWork many = workOfOneEvent(64);
    EXPECT_EQ(few.paths, 4u) << "the event planned paths of other maps";
    EXPECT_EQ(many.paths, few.paths);
    EXPECT_EQ(few.maps, 1u) << "the pass acted on other maps";
    EXPECT_EQ(many.maps, few.maps);
    EXPECT_EQ(many.statusCounts, 0u) << "nothing came or went, yet the status line was counted";
}

TEST(Daemon, ABurstOfReloadsCountsTheStatusLineAFewTimesNotOncePerMap) {
    // Each map's reload ends on its own; counting every map and path after
    // each would make a burst cost the square of the number of maps.
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n dm_target multipath\n prio const\n}\n");
    const unsigned maps = 32;
    for (unsigned i = 0; i < maps * 2; ++i) {
        char wwid[32];
        snprintf(wwid, sizeof(wwid), "36001405%08x", i % maps);
        h.addDisk("sd" + std::string(1, char('a' + i / 26)) + char('a' + i % 26), 16 * (i + 1),
                  i / maps, wwid);
    }
    h.start();
    h.settle();
    ASSERT_EQ(h.count("create "), maps);
    EXPECT_TRUE(contains(h.notes(), "STATUS=32 maps, 64 paths"));
    // A third path for every map, in one burst: 32 reloads.
    h.clearCalls();
    const unsigned before = h.daemon().counters().statusCounts;
    for (unsigned i = 0; i < maps; ++i) {
        char wwid[32];
        snprintf(wwid, sizeof(wwid), "36001405%08x", i);
        h.addDisk("sdz" + std::string(1, char('a' + i / 26)) + char('a' + i % 26),
                  16 * (maps * 2 + i + 1), 2, wwid);
        h.inject("add", "sdz" + std::string(1, char('a' + i / 26)) + char('a' + i % 26));
    }
    h.settle();
    EXPECT_EQ(h.count("reload "), maps);
    const unsigned counts = h.daemon().counters().statusCounts - before;
    EXPECT_LE(counts, 4u) << "32 reloads counted the status line " << counts << " times";
    EXPECT_TRUE(contains(h.notes(), "STATUS=32 maps, 96 paths")) << "the last count is sent";
}

TEST(Daemon, APathWhoseWwidChangesLeavesItsMapAndJoinsTheOther) {
    // One event plans both WWIDs: the one the path had and the one it has.
    DaemonHarness h;
    startWithTwoMaps(h);
    ASSERT_EQ(h.count("create "), 2u);
    h.clearCalls();
    auto sdc = h.device("sdc");
    ASSERT_FALSE(sdc.sysname.empty());
    sdc.properties["ID_SERIAL"] = "36001405bbbb";
    sdc.action = "change";
    h.injectDevice(sdc);
    h.settle();
    EXPECT_EQ(h.count("reload "), 2u) << h.logText();
    EXPECT_EQ(h.table("36001405aaaa").find("8:32"), std::string::npos) << h.table("36001405aaaa");
    EXPECT_NE(h.table("36001405bbbb").find("8:32"), std::string::npos) << h.table("36001405bbbb");
}

TEST(Daemon, ACheckerFailureFailsThePathAndRecoveryReinstatesIt) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    h.checkers().set("/dev/sdb", CheckerState::Down, "sense 2/04/00");
    h.advance(5s);
    EXPECT_TRUE(h.called("message 36001405aaaa fail_path 8:16")) << h.logText();
    EXPECT_EQ(h.count("reload "), 0u) << "failing a path is a message, not a reload";
    h.clearCalls();
    h.checkers().set("/dev/sdb", CheckerState::Up);
    h.advance(5s);
    EXPECT_TRUE(h.called("message 36001405aaaa reinstate_path 8:16")) << h.logText();
}

namespace {

// Real-length NAA WWIDs (ID_SERIAL '3' + 16 bytes), so that a device's
// page 0x83 can give them.
const std::string kWwidA = "36001405aaaaaaaaaaaaaaaaaaaaaaaaa";
const std::string kWwidB = "36001405bbbbbbbbbbbbbbbbbbbbbbbbb";

/// Page 0x83 with one NAA logical unit designator: \a wwid's.
std::vector<uint8_t> page83(const std::string &wwid) {
    std::vector<uint8_t> p{0x00, 0x83, 0x00, 20, 0x01, 0x03, 0x00, 16};
    for (size_t i = 1; i + 1 < wwid.size(); i += 2)
        p.push_back(static_cast<uint8_t>(std::stoul(wwid.substr(i, 2), nullptr, 16)));
    return p;
}

/// Maps A (sdb, sdc) and B (sdd, sde) with recheck_wwid \a recheck; the
/// devices answer INQUIRY page 0x83 with what \a lunBehind says is behind
/// each (by kernel name), and the daemon's INQUIRYs are counted.
struct RecheckRig {
    std::map<std::string, std::string> lunBehind{
        {"sdb", kWwidA}, {"sdc", kWwidA}, {"sdd", kWwidB}, {"sde", kWwidB}};
    std::mutex lock;
    unsigned inquiries{0};

    void start(DaemonHarness &h, bool recheck) {
        h.config(std::string("defaults {\n  find_multipaths on\n  path_grouping_policy multibus\n"
                             "  dm_target multipath\n  polling_interval 5\n  recheck_wwid ") +
                 (recheck ? "yes" : "no") + "\n}\n");
        h.addDisk("sdb", 16, 1, kWwidA);
        h.addDisk("sdc", 32, 2, kWwidA);
        h.addDisk("sdd", 48, 1, kWwidB);
        h.addDisk("sde", 64, 2, kWwidB);
        for (const char *d : {"sdb", "sdc", "sdd", "sde"}) {
            mpath_test::writeFile(h.tree().sysfsRoot() + "/block/" + d + "/device/rescan", "");
            mpath_test::writeFile(h.tree().sysfsRoot() + "/block/" + d + "/uevent", "");
        }
        h.answerScsi([this](const std::string &name, std::span<const uint8_t> cdb, size_t,
                            std::chrono::milliseconds) -> mpath::Result<std::vector<uint8_t>> {
            if (cdb.size() != 6 || cdb[0] != 0x12 || cdb[1] != 0x01 || cdb[2] != 0x83)
                return mpath::Error{EIO, "only INQUIRY page 0x83 here"};
            std::lock_guard g(lock);
            ++inquiries;
            return page83(lunBehind.at(name));
        });
        h.start();
        h.settle();
    }
    void remap(const std::string &name, const std::string &wwid) {
        std::lock_guard g(lock);
        lunBehind[name] = wwid;
    }
    unsigned asked() {
        std::lock_guard g(lock);
        return inquiries;
    }
};

std::string sysfsFile(DaemonHarness &h, const std::string &path) {
    return mpath_test::readFile(h.tree().sysfsRoot() + path);
}

} // namespace

TEST(Daemon, RecheckWwidKeepsAPathWhoseLunChangedWhileDownOutOfItsMap) {
    DaemonHarness h;
    RecheckRig rig;
    rig.start(h, true);
    ASSERT_NE(h.table(kWwidA).find("8:32"), std::string::npos) << h.logText();
    h.checkers().set("/dev/sdc", CheckerState::Down, "transport offline");
    h.advance(5s);
    ASSERT_TRUE(h.called("message " + kWwidA + " fail_path 8:32")) << h.logText();
    // While it is down, the array maps map B's LUN behind that port.
    rig.remap("sdc", kWwidB);
    h.clearCalls();
    h.checkers().set("/dev/sdc", CheckerState::Up);
    h.advance(5s);
    h.settle();
    EXPECT_GE(rig.asked(), 1u);
    EXPECT_FALSE(h.called("message " + kWwidA + " reinstate_path 8:32"))
        << "another LUN's path was reinstated into map A\n"
        << h.logText();
    EXPECT_EQ(h.table(kWwidA).find("8:32"), std::string::npos) << h.table(kWwidA);
    EXPECT_NE(h.table(kWwidA).find("8:16"), std::string::npos) << h.table(kWwidA);
    EXPECT_TRUE(h.logged("sdc")) << h.logText();
    EXPECT_TRUE(h.logged("came back with WWID " + kWwidB + " instead of " + kWwidA)) << h.logText();
    // The kernel reads its identity again, and udev describes it anew.
    EXPECT_EQ(sysfsFile(h, "/block/sdc/device/rescan"), "1");
    EXPECT_EQ(sysfsFile(h, "/block/sdc/uevent"), "add");
    // Later checks do not put it back either.
    h.advance(20s);
    EXPECT_FALSE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    EXPECT_EQ(h.table(kWwidA).find("8:32"), std::string::npos) << h.table(kWwidA);

    // udev's new description: it joins map B, the LUN now behind it.
    auto sdc = h.device("sdc");
    sdc.properties["ID_SERIAL"] = kWwidB;
    sdc.action = "add";
    h.injectDevice(sdc);
    h.settle();
    EXPECT_NE(h.table(kWwidB).find("8:32"), std::string::npos) << h.table(kWwidB);
    EXPECT_EQ(h.table(kWwidA).find("8:32"), std::string::npos) << h.table(kWwidA);
}

TEST(Daemon, RecheckWwidReinstatesAPathThatCameBackWithItsLun) {
    DaemonHarness h;
    RecheckRig rig;
    rig.start(h, true);
    h.checkers().set("/dev/sdc", CheckerState::Down, "transport offline");
    h.advance(5s);
    ASSERT_TRUE(h.called("message " + kWwidA + " fail_path 8:32")) << h.logText();
    h.clearCalls();
    h.checkers().set("/dev/sdc", CheckerState::Up);
    h.advance(5s);
    EXPECT_EQ(rig.asked(), 1u);
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    EXPECT_EQ(h.count("reload "), 0u) << h.logText();
    EXPECT_EQ(sysfsFile(h, "/block/sdc/device/rescan"), "");
    // Each return is checked again (after the hold a quick relapse earns).
    h.clearCalls();
    h.checkers().set("/dev/sdc", CheckerState::Down, "transport offline");
    h.advance(25s);
    ASSERT_TRUE(h.called("message " + kWwidA + " fail_path 8:32")) << h.logText();
    h.checkers().set("/dev/sdc", CheckerState::Up);
    h.advance(45s);
    EXPECT_EQ(rig.asked(), 2u);
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
}

namespace {

/// Map A (sdb, sdc, multibus) with shaky path detection: more than one
/// failure holds a path failed until it has been up 30 s; \a more: other
/// lines of its defaults section.
std::string shakyConfig(const std::string &more = "") {
    return "defaults {\n  find_multipaths on\n  path_grouping_policy multibus\n"
           "  dm_target multipath\n  polling_interval 5\n  san_path_err_threshold 1\n"
           "  san_path_err_forget_rate 10\n  san_path_err_recovery_time 30\n" +
           more + "}\n";
}

void startShaky(DaemonHarness &h, const std::string &more = "") {
    h.config(shakyConfig(more));
    h.addDisk("sdb", 16, 1, kWwidA);
    h.addDisk("sdc", 32, 2, kWwidA);
    h.start();
    h.settle();
}

/// sdc down for one check, then up for one.
void flap(DaemonHarness &h) {
    h.checkers().set("/dev/sdc", CheckerState::Down, "transport offline");
    h.advance(5s);
    ASSERT_TRUE(h.called("message " + kWwidA + " fail_path 8:32")) << h.logText();
    h.checkers().set("/dev/sdc", CheckerState::Up);
    h.advance(5s);
}

} // namespace

TEST(Daemon, AShakyPathIsHeldFailedUntilItHasStayedUpItsRecoveryTime) {
    DaemonHarness h;
    startShaky(h);
    // The first failure is forgiven: reinstated as usual.
    flap(h);
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    // The second is one more than san_path_err_threshold: held failed.
    h.clearCalls();
    flap(h);
    EXPECT_FALSE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    EXPECT_TRUE(h.logged("path sdc: up again, but failed 2 times (more than "
                         "san_path_err_threshold 1): held failed until it has been up 30 s"))
        << h.logText();
    h.advance(25s);
    EXPECT_FALSE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    // Down again while held: its 30 s start again from its next good check.
    h.checkers().set("/dev/sdc", CheckerState::Down, "transport offline");
    h.advance(5s);
    h.checkers().set("/dev/sdc", CheckerState::Up);
    h.advance(30s);
    EXPECT_FALSE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    h.advance(10s);
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    EXPECT_TRUE(h.logged("path sdc: up for 30 s since it was held")) << h.logText();
    EXPECT_FALSE(h.logged("path sdb: up again, but failed")) << "sdb never failed";
}

TEST(Daemon, AHeldShakyPathIsReinstatedAtOnceWhenItIsTheMapsLastUsablePath) {
    DaemonHarness h;
    startShaky(h);
    flap(h);
    flap(h);
    ASSERT_TRUE(h.logged("path sdc: up again, but failed 2 times")) << h.logText();
    h.clearCalls();
    h.checkers().set("/dev/sdb", CheckerState::Down, "transport offline");
    h.advance(20s); // sdb, steady, is checked every 20 s (max_polling_interval)
    ASSERT_TRUE(h.called("message " + kWwidA + " fail_path 8:16")) << h.logText();
    h.advance(5s);
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32"))
        << "a shaky path rather than none: " << h.logText();
    EXPECT_TRUE(h.logged("path sdc: held as shaky, but the map has no other usable path"))
        << h.logText();
}

TEST(Daemon, WithoutShakyPathDetectionAFlappingPathIsReinstatedEachTime) {
    DaemonHarness h;
    RecheckRig rig;
    rig.start(h, false);
    for (int i = 0; i < 3; ++i) {
        h.clearCalls();
        flap(h);
        EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    }
}

TEST(Daemon, WithoutRecheckWwidAReturningPathIsReinstatedUnasked) {
    DaemonHarness h;
    RecheckRig rig;
    rig.start(h, false);
    h.checkers().set("/dev/sdc", CheckerState::Down, "transport offline");
    h.advance(5s);
    rig.remap("sdc", kWwidB);
    h.clearCalls();
    h.checkers().set("/dev/sdc", CheckerState::Up);
    h.advance(5s);
    EXPECT_EQ(rig.asked(), 0u);
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
}

TEST(Daemon, APathWhoseDeviceTheKernelTookOfflineIsFailedWithoutACheck) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    // Its checker would say up: the kernel's word comes first.
    h.checkers().set("/dev/sdb", CheckerState::Up);
    const std::string state = h.tree().sysfsRoot() + "/block/sdb/device/state";
    ASSERT_EQ(mpath_test::readFile(state), "running\n");
    mpath_test::writeFile(state, "transport-offline\n");
    h.advance(25s);
    EXPECT_TRUE(h.called("message 36001405aaaa fail_path 8:16")) << h.logText();
    EXPECT_TRUE(h.logged("the kernel says the device is transport-offline")) << h.logText();
    h.clearCalls();
    mpath_test::writeFile(state, "running\n");
    h.advance(10s);
    EXPECT_TRUE(h.called("message 36001405aaaa reinstate_path 8:16")) << h.logText();
}

TEST(Daemon, APathWhoseCheckHangsIsFailedAtTheCheckDeadline) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    h.checkers().hang("/dev/sdb");
    // The next check starts within one interval and has one interval to
    // answer: I/O moves on within about two.
    h.advance(10s);
    EXPECT_TRUE(h.called("message 36001405aaaa fail_path 8:16")) << h.logText();
    h.checkers().release();
}

TEST(Daemon, ChecksOfASteadyPathBackOffToTheMaximumInterval) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n polling_interval 5\n max_polling_interval 20\n"
             " dm_target multipath\n}\n");
    twoMaps(h);
    h.start();
    h.settle();
    const unsigned before = h.checkers().checks("/dev/sdb");
    h.advance(120s);
    const unsigned during = h.checkers().checks("/dev/sdb") - before;
    // 5, 10, 20, 20, ... seconds: about 7 checks in two minutes, not 24.
    EXPECT_GE(during, 5u);
    EXPECT_LE(during, 9u);
}

TEST(Daemon, NoPathRetryQueuesForItsChecksThenFailsAndQueuesAgainWhenAPathReturns) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n no_path_retry 3\n polling_interval 5\n"
             " dm_target multipath\n}\n");
    twoMaps(h);
    h.start();
    h.settle();
    EXPECT_NE(h.table("36001405aaaa").find("queue_if_no_path"), std::string::npos);
    h.clearCalls();
    h.checkers().set("/dev/sdb", CheckerState::Down);
    h.checkers().set("/dev/sdc", CheckerState::Down);
    ASSERT_TRUE(
        h.advanceUntil([&] { return h.logged("no usable path: I/O queues for 3 checks"); }, 30s))
        << h.logText();
    h.advance(14s);
    EXPECT_FALSE(h.called("message 36001405aaaa fail_if_no_path")) << "too early";
    h.advance(2s); // three intervals of 5 s after the last path went
    EXPECT_TRUE(h.called("message 36001405aaaa fail_if_no_path")) << h.logText();
    EXPECT_FALSE(h.called("message 36001405bbbb fail_if_no_path")) << "the other map has paths";
    h.clearCalls();
    h.checkers().set("/dev/sdc", CheckerState::Up);
    h.advance(6s);
    EXPECT_TRUE(h.called("message 36001405aaaa queue_if_no_path")) << h.logText();
}

namespace {

/// Map A's optimized path sdb fails, the kernel moves I/O to group 2 (the
/// standby path), then sdb comes back: what does the failback mode do?
void failOverAndBack(DaemonHarness &h, const std::string &failback) {
    h.config(std::string("defaults {\n find_multipaths on\n path_grouping_policy failover\n"
                         " prio sysfs\n dm_target multipath\n failback ") +
             failback + "\n}\n");
    twoMaps(h);
    h.start();
    h.settle();
    h.checkers().set("/dev/sdb", CheckerState::Down);
    h.advance(6s);
    ASSERT_TRUE(h.called("message 36001405aaaa fail_path 8:16"));
    h.dm().with([](mpath::dm::DeviceMapper &dm) {
        return dm.message("36001405aaaa", 0, "switch_group 2").ok();
    });
    h.clearCalls();
    h.checkers().set("/dev/sdb", CheckerState::Up);
    h.advance(6s);
    ASSERT_TRUE(h.called("message 36001405aaaa reinstate_path 8:16")) << h.logText();
}

} // namespace

TEST(Daemon, FailbackImmediateSwitchesBackAtOnce) {
    DaemonHarness h;
    failOverAndBack(h, "immediate");
    EXPECT_TRUE(h.called("message 36001405aaaa switch_group 1")) << h.logText();
}

TEST(Daemon, FailbackManualLeavesIoWhereItIs) {
    DaemonHarness h;
    failOverAndBack(h, "manual");
    h.advance(30s);
    EXPECT_EQ(h.count("message 36001405aaaa switch_group"), 0u);
}

TEST(Daemon, FailbackFolloweverSwitchesWhenTheFirstPathOfTheGroupReturns) {
    DaemonHarness h;
    failOverAndBack(h, "followover");
    EXPECT_TRUE(h.called("message 36001405aaaa switch_group 1")) << h.logText();
}

TEST(Daemon, FailbackAfterSecondsWaitsThem) {
    DaemonHarness h;
    failOverAndBack(h, "15");
    EXPECT_FALSE(h.called("message 36001405aaaa switch_group 1")) << "not yet";
    h.advance(16s);
    EXPECT_TRUE(h.called("message 36001405aaaa switch_group 1")) << h.logText();
}

TEST(Daemon, ReconfigureReloadsOnlyTheMapWhoseTableChanges) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    h.config(std::string(kTwoMapsConfig) + "multipaths {\n multipath {\n wwid 36001405bbbb\n"
                                           " path_selector \"queue-length 0\"\n }\n}\n");
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    EXPECT_EQ(h.count("reload "), 1u) << h.logText();
    EXPECT_TRUE(h.called("reload 36001405bbbb"));
    EXPECT_NE(h.table("36001405bbbb").find("queue-length"), std::string::npos);
    EXPECT_TRUE(contains(h.notes(), "RELOADING=1"));
}

TEST(Daemon, SkipKpartxFlagsEveryCreateAndReloadOfItsMapForKpartxsRules) {
    // DM_SUBSYSTEM_UDEV_FLAG1 is what kpartx's rules read (multipath-tools'
    // MPATH_UDEV_NO_KPARTX_FLAG); FLAG0 the reload flag.
    constexpr uint16_t kReload = 0x0100, kNoKpartx = 0x0200;
    DaemonHarness h;
    const std::string skip = "multipaths {\n multipath {\n wwid 36001405aaaa\n"
                             " skip_kpartx yes\n }\n}\n";
    h.config(kTwoMapsConfig + skip);
    twoMaps(h);
    h.start();
    h.settle();
    EXPECT_EQ(h.mapUeventFlags("36001405aaaa"), std::vector<uint16_t>{kNoKpartx});
    EXPECT_EQ(h.mapUeventFlags("36001405bbbb"), std::vector<uint16_t>{0});
    // Both tables change: both reload, each keeping what it was told.
    std::string config = kTwoMapsConfig;
    config.replace(config.find("polling_interval"), 0, "path_selector \"queue-length 0\"\n  ");
    h.config(config + skip);
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    EXPECT_EQ(h.count("reload "), 2u) << h.logText();
    EXPECT_EQ(h.mapUeventFlags("36001405aaaa"),
              (std::vector<uint16_t>{kNoKpartx, kReload | kNoKpartx}));
    EXPECT_EQ(h.mapUeventFlags("36001405bbbb"), (std::vector<uint16_t>{0, kReload}));
}

namespace {

// DM_SUBSYSTEM_UDEV_FLAG2: multipath-tools' MPATH_UDEV_NO_PATHS_FLAG,
// which the rules read as "not ready"; FLAG0 the reload flag.
constexpr uint16_t kReloadFlag = 0x0100, kNotReadyFlag = 0x0400;

/// Map A of two standby paths, with ghost_delay \a delay ("" for none).
void standbyMap(DaemonHarness &h, const std::string &delay) {
    std::string config = kTwoMapsConfig;
    if (!delay.empty())
        config +=
            "multipaths {\n multipath {\n wwid 36001405aaaa\n ghost_delay " + delay + "\n }\n}\n";
    h.config(config);
    h.addDisk("sdb", 16, 1, "36001405aaaa", "standby");
    h.addDisk("sdc", 32, 2, "36001405aaaa", "standby");
    h.start();
    h.settle();
}

} // namespace

TEST(Daemon, GhostDelayKeepsAMapOfStandbyPathsNotReadyUntilAnActivePathComes) {
    DaemonHarness h;
    standbyMap(h, "30");
    ASSERT_TRUE(h.called("create 36001405aaaa")) << h.logText();
    EXPECT_EQ(h.mapUeventFlags("36001405aaaa"), std::vector<uint16_t>{kNotReadyFlag});
    EXPECT_TRUE(h.logged("only standby paths: not ready for other software for up to 30 s"))
        << h.logText();
    h.advance(10s);
    EXPECT_EQ(h.mapUeventFlags("36001405aaaa").size(), 1u) << "nothing while it waits";
    // An optimized path comes: the map is ready at once.
    h.addDisk("sdd", 48, 3, "36001405aaaa", "active/optimized");
    h.inject("add", "sdd");
    h.settle();
    const auto flags = h.mapUeventFlags("36001405aaaa");
    ASSERT_EQ(flags.size(), 2u) << h.logText();
    EXPECT_EQ(flags.back() & kNotReadyFlag, 0) << h.logText();
    EXPECT_TRUE(h.logged("ready: an active path came (ghost_delay)")) << h.logText();
    h.advance(30s);
    EXPECT_FALSE(h.logged("no active path came")) << h.logText();
}

TEST(Daemon, GhostDelayEndsWithTheMapReadyWithItsStandbyPaths) {
    DaemonHarness h;
    standbyMap(h, "30");
    h.advance(29s);
    EXPECT_EQ(h.mapUeventFlags("36001405aaaa"), std::vector<uint16_t>{kNotReadyFlag});
    h.advance(2s);
    h.settle();
    EXPECT_EQ(h.mapUeventFlags("36001405aaaa"), (std::vector<uint16_t>{kNotReadyFlag, kReloadFlag}))
        << h.logText();
    EXPECT_TRUE(h.logged("no active path came in 30 s: ready with standby paths (ghost_delay)"))
        << h.logText();
    EXPECT_TRUE(h.logged("reloading (ghost_delay ended)")) << h.logText();
}

TEST(Daemon, WithoutGhostDelayAMapOfStandbyPathsIsReadyAtOnce) {
    DaemonHarness h;
    standbyMap(h, "");
    EXPECT_EQ(h.mapUeventFlags("36001405aaaa"), std::vector<uint16_t>{0});
    h.advance(40s);
    EXPECT_EQ(h.count("reload "), 0u) << h.logText();
}

TEST(Daemon, MaxSectorsKbIsWrittenToEachPathOfItsMapBeforeTheTableLoads) {
    DaemonHarness h;
    h.config(std::string(kTwoMapsConfig) + "multipaths {\n multipath {\n wwid 36001405aaaa\n"
                                           " max_sectors_kb 64\n }\n}\n");
    twoMaps(h);
    auto limit = [&](const std::string &disk) {
        return h.tree().sysfsRoot() + "/block/" + disk + "/queue/max_sectors_kb";
    };
    // sdc's queue has no such file: the write fails, and says so.
    for (const char *disk : {"sdb", "sdd", "sde"}) {
        std::filesystem::create_directories(std::filesystem::path(limit(disk)).parent_path());
        mpath_test::writeFile(limit(disk), "512\n");
    }
    h.start();
    h.settle();
    EXPECT_EQ(mpath_test::readFile(limit("sdb")), "64");
    EXPECT_EQ(mpath_test::readFile(limit("sdd")), "512\n") << "another map's path is left alone";
    EXPECT_EQ(mpath_test::readFile(limit("sde")), "512\n");
    EXPECT_NE(h.logText().find("path sdc: cannot set max_sectors_kb 64: "), std::string::npos)
        << h.logText();
    EXPECT_EQ(h.count("create "), 2u) << "the map is made all the same";
    // A reload writes it again: a path that joined since gets it too.
    mpath_test::writeFile(limit("sdb"), "512\n");
    std::string config = kTwoMapsConfig;
    config.replace(config.find("polling_interval"), 0, "path_selector \"queue-length 0\"\n  ");
    h.config(config + "multipaths {\n multipath {\n wwid 36001405aaaa\n"
                      " max_sectors_kb 32\n }\n}\n");
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    EXPECT_TRUE(h.called("reload 36001405aaaa")) << h.logText();
    EXPECT_EQ(mpath_test::readFile(limit("sdb")), "32");
}

TEST(Daemon, TransportTimeoutsReachEachIscsiSessionAndFcPortOfTheirMapWithoutAReload) {
    DaemonHarness h;
    const std::string timeouts = "devices {\n device {\n vendor ACME\n product Array\n"
                                 " fast_io_fail_tmo 7\n dev_loss_tmo 60\n }\n}\n";
    h.config(kTwoMapsConfig + timeouts);
    using Kind = mpath::testing::SysfsTreeBuilder::HostKind;
    // Map A over two iSCSI sessions, map B over two FC remote ports.
    auto iscsi = [](unsigned session, const char *state) {
        return [=](mpath::testing::SysfsTreeBuilder::ScsiDisk &d) {
            d.hostKind = Kind::Iscsi;
            d.iscsiSession = session;
            d.iscsiTarget = "iqn.2026-12.lab:array";
            d.accessState = state;
        };
    };
    auto fc = [](const char *state) {
        return [=](mpath::testing::SysfsTreeBuilder::ScsiDisk &d) {
            d.hostKind = Kind::FibreChannel;
            d.hostWwnn = d.hostWwpn = "0x2000000000000001";
            d.targetWwnn = d.targetWwpn = "0x5000000000000001";
            d.accessState = state;
        };
    };
    h.addDiskWith("sdb", 16, 1, "36001405aaaa", iscsi(1, "active/optimized"));
    h.addDiskWith("sdc", 32, 2, "36001405aaaa", iscsi(2, "standby"));
    h.addDiskWith("sdd", 48, 3, "36001405bbbb", fc("active/optimized"));
    h.addDiskWith("sde", 64, 4, "36001405bbbb", fc("standby"));
    auto said = [&](const std::string &text) {
        size_t n = 0;
        const std::string log = h.logText();
        for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1))
            ++n;
        return n;
    };
    const std::string cls = h.tree().sysfsRoot() + "/class/";
    auto attr = [&](const std::string &rel) { return cls + rel; };
    for (const char *s : {"session1", "session2"})
        mpath_test::writeFile(attr(std::string("iscsi_session/") + s + "/recovery_tmo"), "120\n");
    for (const char *r : {"rport-3:0-0", "rport-4:0-0"}) {
        std::filesystem::create_directories(attr(std::string("fc_remote_ports/") + r));
        mpath_test::writeFile(attr(std::string("fc_remote_ports/") + r + "/fast_io_fail_tmo"),
                              "off\n");
        mpath_test::writeFile(attr(std::string("fc_remote_ports/") + r + "/dev_loss_tmo"), "30\n");
    }
    h.start();
    h.settle();
    ASSERT_EQ(h.liveMaps().size(), 2u) << h.logText();
    EXPECT_EQ(mpath_test::readFile(attr("iscsi_session/session1/recovery_tmo")), "7");
    EXPECT_EQ(mpath_test::readFile(attr("iscsi_session/session2/recovery_tmo")), "7");
    for (const char *r : {"rport-3:0-0", "rport-4:0-0"}) {
        EXPECT_EQ(
            mpath_test::readFile(attr(std::string("fc_remote_ports/") + r + "/fast_io_fail_tmo")),
            "7");
        EXPECT_EQ(mpath_test::readFile(attr(std::string("fc_remote_ports/") + r + "/dev_loss_tmo")),
                  "60");
    }
    EXPECT_EQ(said("recovery_tmo 7 (fast_io_fail_tmo) set"), 2u) << h.logText();
    EXPECT_NE(h.logText().find("path sdb: recovery_tmo 7 (fast_io_fail_tmo) set"),
              std::string::npos)
        << h.logText();
    EXPECT_NE(h.logText().find("sdb: dev_loss_tmo has no iSCSI counterpart"), std::string::npos)
        << "an iSCSI path says why its dev_loss_tmo is not applied";

    // A pass of the map that changes neither the timeouts nor its paths
    // writes none.
    mpath_test::writeFile(attr("iscsi_session/session1/recovery_tmo"), "120\n");
    const unsigned plans = h.daemon().counters().plans;
    h.inject("change", "sdb");
    h.settle();
    ASSERT_GT(h.daemon().counters().plans, plans) << "the event planned the map again";
    EXPECT_EQ(mpath_test::readFile(attr("iscsi_session/session1/recovery_tmo")), "120\n");
    EXPECT_EQ(said("recovery_tmo 7 (fast_io_fail_tmo) set"), 2u) << h.logText();

    // A new fast_io_fail_tmo reaches every path without reloading a map.
    h.clearCalls();
    std::string changed = timeouts;
    changed.replace(changed.find("fast_io_fail_tmo 7"), 18, "fast_io_fail_tmo 9");
    h.config(kTwoMapsConfig + changed);
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    EXPECT_EQ(mpath_test::readFile(attr("iscsi_session/session1/recovery_tmo")), "9");
    EXPECT_EQ(mpath_test::readFile(attr("iscsi_session/session2/recovery_tmo")), "9");
    EXPECT_EQ(mpath_test::readFile(attr("fc_remote_ports/rport-3:0-0/fast_io_fail_tmo")), "9");
    EXPECT_EQ(h.count("reload "), 0u) << h.logText();
}

TEST(Daemon, ReconfigureKeepsTheRunningConfigurationWhenTheNewOneHasErrors) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    h.config("defaults {\n path_selector \"queue-length 0\"\n}\nblacklist {\n wwid \"[\"\n}\n");
    auto r = h.reconfigure();
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("mpathd.conf:5:"), std::string::npos) << r.error().message;
    h.settle();
    EXPECT_TRUE(h.calls().empty());
    EXPECT_NE(h.logText().find("mpathd.conf:5:"), std::string::npos) << h.logText();
    EXPECT_NE(h.logText().find("the running configuration stays"), std::string::npos);
}

TEST(Daemon, ARestartedDaemonAdoptsTheMapsAndChangesNothing) {
    DaemonHarness h;
    startWithTwoMaps(h);
    ASSERT_EQ(h.liveMaps().size(), 2u);
    h.clearCalls();
    h.restart(); // kill -9 and start again
    h.settle();
    EXPECT_TRUE(h.daemon().ready());
    EXPECT_TRUE(h.calls().empty()) << "adoption issued " << h.calls().front();
    EXPECT_NE(h.logText().find("adopted"), std::string::npos);
}

TEST(Daemon, AdoptionFailsAgainThePathsTheCheckerFindsDown) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    h.checkers().set("/dev/sdc", CheckerState::Down);
    h.restart();
    h.settle();
    h.advance(1s); // adopted maps' paths are checked at once
    EXPECT_TRUE(h.called("message 36001405aaaa fail_path 8:32")) << h.logText();
    EXPECT_EQ(h.count("reload "), 0u);
}

TEST(Daemon, AHungDeviceMapperCallOfOneMapLeavesTheOtherServed) {
    DaemonHarness h;
    startWithTwoMaps(h);
    // Map A's next reload hangs in the kernel (a suspend waiting for I/O).
    auto gate = std::make_shared<std::promise<void>>();
    std::shared_future<void> opened = gate->get_future().share();
    h.dm().setHook([opened](const std::string &op, const std::string &name) {
        if (op == "reload" && name == "36001405aaaa")
            opened.wait();
    });
    h.addDisk("sdf", 80, 3, "36001405aaaa", "standby"); // a new path: A reloads
    h.inject("add", "sdf");
    h.advance(1s);
    h.clearCalls();
    h.checkers().set("/dev/sdd", CheckerState::Down);
    h.advance(6s);
    EXPECT_TRUE(h.called("message 36001405bbbb fail_path 8:48"))
        << "map B is served while A's reload hangs\n"
        << h.logText();
    gate->set_value();
    h.settle();
    EXPECT_TRUE(h.called("reload 36001405aaaa"));
}

TEST(Daemon, TheLastPathGoneRemovesTheMapDeferred) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    h.inject("remove", "sdd");
    h.settle();
    EXPECT_TRUE(h.called("reload 36001405bbbb")) << "one path left: the map shrinks";
    h.inject("remove", "sde");
    h.settle();
    EXPECT_TRUE(h.called("remove 36001405bbbb deferred")) << h.logText();
    EXPECT_EQ(h.liveMaps().size(), 1u);
}

TEST(Daemon, TheLastPathGoneWhileTheMapReloadsRemovesTheMapAfterTheReload) {
    DaemonHarness h;
    startWithTwoMaps(h);
    // The reload for the first removal is still in the kernel when the
    // last path goes.
    auto gate = std::make_shared<std::promise<void>>();
    std::shared_future<void> opened = gate->get_future().share();
    h.dm().setHook([opened](const std::string &op, const std::string &name) {
        if (op == "reload" && name == "36001405bbbb")
            opened.wait();
    });
    h.clearCalls();
    h.inject("remove", "sdd");
    h.advance(1s);
    h.inject("remove", "sde");
    h.advance(1s);
    gate->set_value();
    h.settle();
    EXPECT_TRUE(h.called("remove 36001405bbbb deferred")) << h.logText();
    EXPECT_EQ(h.liveMaps().size(), 1u) << "a map without paths stays after its reload";
}

TEST(Daemon, AnOpenMapLosingItsLastPathGoesAtItsLastCloseAndSaysSo) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.dm().with([](mpath::dm::DeviceMapper &dm) {
        static_cast<mpath::testing::FakeDeviceMapper &>(dm).setOpenCount("36001405bbbb", 1);
        return 0;
    });
    h.inject("remove", "sdd");
    h.inject("remove", "sde");
    h.settle();
    EXPECT_TRUE(h.called("remove 36001405bbbb deferred")) << h.logText();
    EXPECT_EQ(h.liveMaps().size(), 2u) << "open: still there";
    EXPECT_NE(h.logText().find("map 36001405bbbb: still open: removal deferred to its last close"),
              std::string::npos)
        << h.logText();
    h.dm().with([](mpath::dm::DeviceMapper &dm) {
        static_cast<mpath::testing::FakeDeviceMapper &>(dm).setOpenCount("36001405bbbb", 0);
        return 0;
    });
    EXPECT_EQ(h.liveMaps().size(), 1u) << "gone at the last close";
}

TEST(Daemon, AMapRemovedBehindItsBackIsForgottenUntilAPathChanges) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.dm().with([](mpath::dm::DeviceMapper &dm) { return dm.remove("36001405bbbb").ok(); });
    h.injectMap("remove", "36001405bbbb", "");
    h.clearCalls();
    h.settle();
    h.advance(10s);
    EXPECT_EQ(h.count("create "), 0u) << "not made again behind the administrator's back";
    h.inject("change", "sdd");
    h.settle();
    EXPECT_TRUE(h.called("create 36001405bbbb"));
}

TEST(Daemon, ASizeChangeResizesTheMap) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    for (auto [name, minor, host] : {std::tuple{"sdd", 48u, 1u}, {"sde", 64u, 2u}}) {
        SysfsTreeBuilder::ScsiDisk d;
        d.name = name;
        d.minor = minor;
        d.host = host;
        d.lun = 100 + minor;
        d.sizeSectors = 4096;
        d.vendor = "ACME";
        d.model = "Array";
        d.udev = {{"ID_SERIAL", "36001405bbbb"}, {"DEVTYPE", "disk"}};
        ASSERT_TRUE(h.tree().addScsiDisk(d));
        h.inject("change", name);
    }
    h.settle();
    EXPECT_TRUE(h.called("reload 36001405bbbb")) << h.logText();
    auto info = h.dm().with([](mpath::dm::DeviceMapper &dm) { return dm.table("36001405bbbb"); });
    ASSERT_TRUE(info);
    EXPECT_EQ(info->front().length, 4096u);
}

TEST(Daemon, CreatedMapsAreInTheWwidsFileAndFriendlyNamesInTheBindings) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n user_friendly_names yes\n dm_target multipath\n"
             "}\n");
    twoMaps(h);
    h.start();
    h.settle();
    EXPECT_TRUE(h.called("create mpatha"));
    EXPECT_TRUE(h.called("create mpathb"));
    auto wwids = mpath::state::WwidsFile(h.root() + "/etc/multipath/wwids").load();
    ASSERT_TRUE(wwids);
    EXPECT_EQ(*wwids, (std::vector<std::string>{"36001405aaaa", "36001405bbbb"}));
    auto b = mpath::state::BindingsFile(h.root() + "/etc/multipath/bindings").load();
    ASSERT_TRUE(b);
    EXPECT_EQ(b->aliasFor("36001405aaaa"), "mpatha");
    EXPECT_EQ(b->aliasFor("36001405bbbb"), "mpathb");
}

TEST(Daemon, ABurstOfNewMapsWritesTheWwidsAndBindingsFilesAFewTimesNotOncePerMap) {
    // Each write reads and replaces the whole file: once per map, 4,096
    // new maps cost minutes. What is asked while one write runs goes in
    // the next.
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n user_friendly_names yes\n dm_target multipath\n"
             "}\n");
    const unsigned maps = 32;
    std::vector<std::string> wwids;
    for (unsigned i = 0; i < maps * 2; ++i) {
        char wwid[32];
        snprintf(wwid, sizeof(wwid), "36001405%08x", i % maps);
        if (i < maps)
            wwids.push_back(wwid);
        h.addDisk("sd" + std::string(1, char('a' + i / 26)) + char('a' + i % 26), 16 * (i + 1),
                  i / maps, wwid);
    }
    h.start();
    h.settle();
    ASSERT_EQ(h.count("create "), maps);
    const auto &c = h.daemon().counters();
    EXPECT_LE(c.wwidsWrites, 4u) << "the wwids file was written " << c.wwidsWrites << " times";
    EXPECT_LE(c.bindingsWrites, 4u)
        << "the bindings file was written " << c.bindingsWrites << " times";
    auto listed = mpath::state::WwidsFile(h.root() + "/etc/multipath/wwids").load();
    ASSERT_TRUE(listed);
    EXPECT_EQ(std::set<std::string>(listed->begin(), listed->end()),
              std::set<std::string>(wwids.begin(), wwids.end()));
    auto b = mpath::state::BindingsFile(h.root() + "/etc/multipath/bindings").load();
    ASSERT_TRUE(b);
    std::set<std::string> aliases;
    for (const auto &wwid : wwids) {
        auto alias = b->aliasFor(wwid);
        ASSERT_TRUE(alias) << wwid << " is not bound";
        EXPECT_TRUE(h.called("create " + *alias))
            << wwid << " is bound to " << *alias << ", yet no map was made by that name";
        aliases.insert(*alias);
    }
    EXPECT_EQ(aliases.size(), maps) << "an alias was handed out twice";
}

TEST(Daemon, StoppingTurnsQueueingOffWithoutQueueWithoutDaemon) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n no_path_retry queue\n dm_target multipath\n}\n");
    twoMaps(h);
    h.start();
    h.settle();
    h.clearCalls();
    bool done = false;
    h.daemon().stop([&] { done = true; });
    h.settle();
    EXPECT_TRUE(done);
    EXPECT_TRUE(contains(h.notes(), "STOPPING=1"));
    EXPECT_TRUE(h.called("message 36001405aaaa fail_if_no_path"));
    EXPECT_TRUE(h.called("message 36001405bbbb fail_if_no_path"));
    EXPECT_EQ(h.liveMaps().size(), 2u) << "maps stay";
}

TEST(Daemon, StoppingLeavesQueueingWithQueueWithoutDaemon) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n no_path_retry queue\n queue_without_daemon yes\n"
             " dm_target multipath\n}\n");
    twoMaps(h);
    h.start();
    h.settle();
    h.clearCalls();
    bool done = false;
    h.daemon().stop([&] { done = true; });
    h.settle();
    EXPECT_TRUE(done);
    EXPECT_TRUE(h.calls().empty());
}

TEST(Daemon, AFailedCreateIsTriedAgainLaterWithAGrowingDelay) {
    DaemonHarness h;
    h.config(kTwoMapsConfig);
    twoMaps(h);
    auto failCreate = [&h] {
        h.dm().with([](mpath::dm::DeviceMapper &dm) {
            static_cast<mpath::testing::FakeDeviceMapper &>(dm).failNext(
                mpath::testing::FakeDeviceMapper::Op::Create, EIO);
            return 0;
        });
    };
    failCreate();
    h.start();
    h.settle();
    ASSERT_EQ(h.liveMaps().size(), 1u) << h.logText();
    EXPECT_TRUE(h.logged("trying again in 1 s")) << h.logText();
    // The second try fails as well: the one after it waits twice as long.
    failCreate();
    h.advance(1500ms);
    EXPECT_EQ(h.liveMaps().size(), 1u) << h.logText();
    EXPECT_TRUE(h.logged("trying again in 2 s")) << h.logText();
    h.advance(1000ms);
    EXPECT_EQ(h.liveMaps().size(), 1u) << "retried before its delay\n" << h.logText();
    h.advance(1500ms);
    h.settle();
    EXPECT_EQ(h.liveMaps().size(), 2u) << h.logText();
}

TEST(Daemon, AFailedReloadIsTriedAgainLater) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.dm().with([](mpath::dm::DeviceMapper &dm) {
        static_cast<mpath::testing::FakeDeviceMapper &>(dm).failNext(
            mpath::testing::FakeDeviceMapper::Op::Reload, EBUSY);
        return 0;
    });
    h.clearCalls();
    h.addDisk("sdf", 80, 3, "36001405aaaa", "standby"); // a new path: A reloads
    h.inject("add", "sdf");
    h.settle();
    EXPECT_TRUE(h.logged("trying again in 1 s")) << h.logText();
    EXPECT_EQ(h.table("36001405aaaa").find("8:80"), std::string::npos);
    h.advance(1500ms);
    h.settle();
    EXPECT_NE(h.table("36001405aaaa").find("8:80"), std::string::npos) << h.logText();
}

namespace {

/// Runs \a fn on the fake device-mapper under the daemon.
void onFake(DaemonHarness &h, const std::function<void(mpath::testing::FakeDeviceMapper &)> &fn) {
    h.dm().with([&](mpath::dm::DeviceMapper &dm) {
        fn(static_cast<mpath::testing::FakeDeviceMapper &>(dm));
        return 0;
    });
}

/// The kernel fails map A's path 8:32 on an I/O error (its PATH_FAILED
/// event) while the path's check still answers: checked at once, up.
void ioErrorOnPathOfMapA(DaemonHarness &h) {
    onFake(h, [](auto &dm) { ASSERT_TRUE(dm.message(kWwidA, 0, "fail_path 8:32")); });
    h.injectMap("change", kWwidA, "PATH_FAILED", "8:32");
    h.advance(500ms);
}

} // namespace

TEST(Daemon, ARestartedDaemonReinstatesAPathTheKernelHadFailedOnceItsCheckSaysUp) {
    DaemonHarness h;
    startWithTwoMaps(h);
    // The path failed in the kernel while no daemon ran (or the one that
    // ran was killed before it reinstated it); it is fine now.
    onFake(h, [](auto &dm) { ASSERT_TRUE(dm.message("36001405aaaa", 0, "fail_path 8:32")); });
    h.clearCalls();
    h.restart();
    h.settle();
    h.advance(1s);
    EXPECT_TRUE(h.called("message 36001405aaaa reinstate_path 8:32")) << h.logText();
    EXPECT_FALSE(h.called("message 36001405aaaa reinstate_path 8:16")) << "8:16 was active";
}

TEST(Daemon, PathFailedEventsFromDeviceMapperAreCheckedAtOnce) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.advance(1s);
    const unsigned before = h.checkers().checks("/dev/sdc");
    // One I/O error: the kernel failed the path and said so.
    onFake(h, [](auto &dm) { ASSERT_TRUE(dm.message("36001405aaaa", 0, "fail_path 8:32")); });
    h.injectMap("change", "36001405aaaa", "PATH_FAILED", "8:32");
    h.advance(500ms); // checks run every 5 s or more: this one runs at once
    EXPECT_GT(h.checkers().checks("/dev/sdc"), before) << "checked without waiting its turn";
    // The checker says up: the path goes back into service.
    EXPECT_TRUE(h.called("message 36001405aaaa reinstate_path 8:32")) << h.logText();
}

TEST(Daemon, APathDeviceMapperKeepsFailingOnIoErrorsIsHeldAsShaky) {
    // The check answers, the I/O does not: each I/O error is a failure.
    DaemonHarness h;
    startShaky(h);
    h.advance(1s);
    ioErrorOnPathOfMapA(h);
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    h.clearCalls();
    h.advance(10s);
    ioErrorOnPathOfMapA(h);
    h.advance(20s);
    EXPECT_FALSE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    EXPECT_TRUE(h.logged("path sdc: up again, but failed 2 times")) << h.logText();
    h.advance(20s);
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
}

TEST(Daemon, AReloadLeavesAPathHeldAsShakyFailed) {
    // A table load starts every path active: a held path is failed again.
    DaemonHarness h;
    startShaky(h);
    flap(h);
    flap(h);
    ASSERT_TRUE(h.logged("path sdc: up again, but failed 2 times")) << h.logText();
    h.clearCalls();
    h.config(shakyConfig("  path_selector \"queue-length 0\"\n"));
    ASSERT_TRUE(h.reconfigure());
    h.advance(1s);
    ASSERT_EQ(h.count("reload "), 1u) << h.logText();
    bool failed = false;
    onFake(h, [&](auto &dm) {
        auto st = dm.status(kWwidA);
        ASSERT_TRUE(st);
        failed = st->front().params.find("8:32 F") != std::string::npos;
    });
    EXPECT_TRUE(failed) << "the new table has the held path failed: " << h.logText();
    EXPECT_FALSE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
}

TEST(Daemon, WithMarginalPathgroupsAShakyPathIsGroupedLastInsteadOfHeldFailed) {
    DaemonHarness h;
    startShaky(h, "  marginal_pathgroups on\n");
    auto groups = [&] {
        // "round-robin 0 2 1 8:16 1 8:32 1" -> one group; two -> "2 1".
        const std::string t = h.table(kWwidA);
        return t.find(" 0 2 1 ") != std::string::npos ? 2 : 1;
    };
    ASSERT_EQ(groups(), 1) << h.table(kWwidA);
    flap(h);
    h.clearCalls();
    flap(h);
    EXPECT_TRUE(h.logged("path sdc: up again, but failed 2 times (more than "
                         "san_path_err_threshold 1): grouped apart, after the other paths"))
        << h.logText();
    h.settle();
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    EXPECT_EQ(h.count("reload "), 1u) << h.logText();
    EXPECT_EQ(groups(), 2) << h.table(kWwidA);
    EXPECT_LT(h.table(kWwidA).find("8:16"), h.table(kWwidA).find("8:32"))
        << "the shaky path's group comes last: " << h.table(kWwidA);
    // Up for its recovery time: back with the others.
    h.advance(40s);
    EXPECT_EQ(groups(), 1) << h.table(kWwidA) << h.logText();
}

TEST(Daemon, APathEventOfAReplacedTableDoesNotLeaveADownPathActive) {
    // Seen with NVMe over TCP: a reload landed while the old table failed
    // a path whose controller had just lost its link; that table's
    // PATH_FAILED event came after the new table (the path active in it)
    // was read. The daemon believed the path failed, so the checks that
    // found it down never failed it in the new table, and I/O kept going
    // to a dead controller.
    DaemonHarness h;
    startWithTwoMaps(h);
    h.advance(1s);
    h.clearCalls();
    h.injectMap("change", "36001405aaaa", "PATH_FAILED", "8:32"); // the kernel has it active
    h.checkers().set("/dev/sdc", CheckerState::Down, "the kernel says the device is connecting");
    h.advance(12s);
    EXPECT_TRUE(h.called("message 36001405aaaa fail_path 8:32")) << h.logText();
    bool failed = false;
    onFake(h, [&](auto &dm) {
        auto st = dm.status("36001405aaaa");
        ASSERT_TRUE(st);
        failed = st->front().params.find("8:32 F") != std::string::npos;
    });
    EXPECT_TRUE(failed) << "the kernel's table has the path failed";
}

TEST(Daemon, APriorityTheDeviceCannotAnswerKeepsItsRankAndTheMapItsGroups) {
    // ALUA paths in one port group, ranked by REPORT TARGET PORT GROUPS.
    // When one path's link drops, its RTPG fails with an I/O error: that
    // is the checker's business, not a new rank, so the map keeps its
    // groups (no reload while paths fail).
    DaemonHarness h;
    h.config("defaults {\n  find_multipaths on\n  path_grouping_policy group_by_prio\n"
             "  dm_target multipath\n  prio alua\n  detect_prio no\n  polling_interval 5\n}\n");
    auto withPortGroup = [](SysfsTreeBuilder::ScsiDisk &d) {
        d.tpgs = 1;
        d.vpdPage83 = page83(kWwidA);
        // Target port group designator: group 1.
        for (uint8_t b : {0x01, 0x15, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01})
            d.vpdPage83.push_back(b);
        d.vpdPage83[3] = static_cast<uint8_t>(d.vpdPage83.size() - 4);
    };
    h.addDiskWith("sdb", 16, 1, kWwidA, withPortGroup);
    h.addDiskWith("sdc", 32, 2, kWwidA, withPortGroup);
    auto linkDown = std::make_shared<std::atomic<bool>>(false);
    h.answerScsi([linkDown](const std::string &name, std::span<const uint8_t> cdb, size_t,
                            std::chrono::milliseconds) -> mpath::Result<std::vector<uint8_t>> {
        if (cdb.empty() || cdb[0] != 0xa3)
            return mpath::Error{EIO, "only REPORT TARGET PORT GROUPS here"};
        if (name == "sdc" && *linkDown)
            return mpath::Error{EIO, "/dev/sdc: transport error"};
        // One group, 1, active/optimized; one relative port.
        return std::vector<uint8_t>{0, 0, 0, 12, 0x00, 0x0f, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    });
    h.start();
    h.settle();
    const std::string table = h.table(kWwidA);
    ASSERT_NE(table.find(" 1 service-time 0 2 2 8:16 1 1 8:32 1 1"), std::string::npos)
        << table << "\n"
        << h.logText();
    h.clearCalls();
    *linkDown = true;
    h.advance(30s); // checks of up paths re-rank them
    EXPECT_EQ(h.count("reload "), 0u) << h.logText();
    EXPECT_EQ(h.table(kWwidA), table);
    EXPECT_FALSE(h.logged("priority -1")) << h.logText();
}

TEST(Daemon, EventsDuringAdoptionWaitUntilEveryMapIsRead) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    // Reading map A's status at adoption takes a while.
    auto gate = std::make_shared<std::promise<void>>();
    std::shared_future<void> opened = gate->get_future().share();
    h.dm().setHook([opened](const std::string &op, const std::string &name) {
        if (op == "status" && name == "36001405aaaa")
            opened.wait_for(std::chrono::seconds(20));
    });
    h.restart();
    h.inject("change", "sdb"); // an event while A is not read yet
    h.advance(2s);
    gate->set_value();
    h.settle();
    h.dm().setHook({});
    EXPECT_TRUE(h.daemon().ready());
    EXPECT_EQ(h.count("reload "), 0u) << h.logText();
    EXPECT_EQ(h.count("create "), 0u) << h.logText();
}

TEST(Daemon, AMapWhoseDeferredRemovalWaitsIsKeptWhenItsPathsReturn) {
    DaemonHarness h;
    startWithTwoMaps(h);
    onFake(h, [](auto &dm) { dm.setOpenCount("36001405bbbb", 1); });
    h.inject("remove", "sdd");
    h.inject("remove", "sde");
    h.settle();
    ASSERT_TRUE(h.called("remove 36001405bbbb deferred")) << h.logText();
    // The paths come back before the map's last close.
    h.addDisk("sdd", 48, 1, "36001405bbbb", "active/optimized");
    h.addDisk("sde", 64, 2, "36001405bbbb", "standby");
    h.inject("add", "sdd");
    h.inject("add", "sde");
    h.settle();
    EXPECT_TRUE(h.called("message 36001405bbbb @cancel_deferred_remove")) << h.logText();
    EXPECT_TRUE(h.logged("its deferred removal is cancelled")) << h.logText();
    onFake(h, [](auto &dm) { dm.setOpenCount("36001405bbbb", 0); });
    EXPECT_EQ(h.liveMaps().size(), 2u) << "the map went at its last close after all";
    h.advance(5s);
    EXPECT_FALSE(h.logged("trying again")) << h.logText();
}

TEST(Daemon, AFailPathTheKernelRefusedIsSentAgainAtTheNextCheck) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    onFake(h, [](auto &dm) { dm.failNext(mpath::testing::FakeDeviceMapper::Op::Message, EIO); });
    h.checkers().set("/dev/sdb", CheckerState::Down);
    h.advance(12s); // two checks at polling_interval 5
    EXPECT_GE(h.count("message 36001405aaaa fail_path 8:16"), 2u) << h.logText();
    auto *map = static_cast<const mpath::model::Map *>(nullptr);
    onFake(h, [&](auto &dm) { map = dm.map("36001405aaaa"); });
    ASSERT_NE(map, nullptr);
    bool failed = false;
    for (const auto &g : map->groups)
        for (const auto &p : g.paths)
            failed = failed || (p.devtString() == "8:16" && p.dmState == DmPathState::Failed);
    EXPECT_TRUE(failed) << "8:16 is failed in the kernel in the end";
}

TEST(Daemon, AReinstateTheKernelRefusedIsSentAgainAtTheNextCheck) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.checkers().set("/dev/sdb", CheckerState::Down);
    h.advance(6s);
    ASSERT_TRUE(h.called("message 36001405aaaa fail_path 8:16")) << h.logText();
    h.clearCalls();
    onFake(h, [](auto &dm) { dm.failNext(mpath::testing::FakeDeviceMapper::Op::Message, EIO); });
    h.checkers().set("/dev/sdb", CheckerState::Up);
    h.advance(12s);
    EXPECT_GE(h.count("message 36001405aaaa reinstate_path 8:16"), 2u) << h.logText();
}

TEST(Daemon, NothingIsPlannedOnceStopping) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n no_path_retry queue\n dm_target multipath\n}\n");
    twoMaps(h);
    h.start();
    h.settle();
    bool done = false;
    h.daemon().stop([&] { done = true; });
    h.settle();
    ASSERT_TRUE(done);
    h.clearCalls();
    // A path arrives while the process is on its way out.
    h.addDisk("sdf", 80, 3, "36001405aaaa");
    h.inject("add", "sdf");
    h.advance(2s);
    EXPECT_EQ(h.count("reload "), 0u) << h.logText();
    EXPECT_FALSE(h.called("message 36001405aaaa queue_if_no_path")) << h.logText();
}

TEST(Daemon, LostUdevEventsAreMadeUpForByListingTheDevicesAgain) {
    DaemonHarness h;
    startWithTwoMaps(h);
    // sdf joins map A, and sdc leaves, but the monitor's buffer was full.
    h.addDisk("sdf", 80, 3, "36001405aaaa", "standby");
    h.lose("add", "sdf");
    h.lose("remove", "sdc");
    h.settle();
    h.advance(1s);
    EXPECT_TRUE(h.logged("udev events were lost")) << h.logText();
    const std::string table = h.table("36001405aaaa");
    EXPECT_NE(table.find("8:80"), std::string::npos) << table;
    EXPECT_EQ(table.find("8:32"), std::string::npos) << table;
}

TEST(Daemon, AnAluaStateChangeRegroupsTheMapAtTheNextCheck) {
    DaemonHarness h;
    startWithTwoMaps(h);
    ASSERT_EQ(h.table("36001405aaaa"),
              "0 0 2 1 service-time 0 1 2 8:16 1 1 service-time 0 1 2 8:32 1 1");
    h.clearCalls();
    // The array moves map A's optimized port: no uevent says so.
    auto setState = [&h](const std::string &disk, const std::string &state) {
        const auto dev =
            std::filesystem::canonical(h.tree().sysfsRoot() + "/block/" + disk + "/device");
        mpath_test::writeFile(dev / "access_state", state + "\n");
    };
    setState("sdb", "standby");
    setState("sdc", "active/optimized");
    h.advance(25s); // every path is checked within max_polling_interval
    h.settle();
    EXPECT_EQ(h.table("36001405aaaa"),
              "0 0 2 1 service-time 0 1 2 8:32 1 1 service-time 0 1 2 8:16 1 1")
        << h.logText();
    EXPECT_EQ(h.count("reload 36001405aaaa"), 1u);
    EXPECT_EQ(h.count("reload 36001405bbbb"), 0u) << "map B's ranks did not change";
}

/// Reading a path's port state can wait on the kernel (sysfs locks that
/// udev's workers hold while a reconfigure reloads every map): the loop
/// does not wait with it. A FIFO stands in for access_state: reading it
/// blocks until something writes.
TEST(Daemon, APortStateReadThatBlocksDoesNotHoldTheLoopDuringAReconfigure) {
    DaemonHarness h;
    startWithTwoMaps(h);
    const auto dev = std::filesystem::canonical(h.tree().sysfsRoot() + "/block/sdb/device");
    std::filesystem::remove(dev / "access_state");
    ASSERT_EQ(::mkfifo((dev / "access_state").c_str(), 0600), 0);
    // Let the read go after 3 s, so that a loop that waits for it ends.
    auto release = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(3s);
        int fd = ::open((dev / "access_state").c_str(), O_WRONLY);
        if (fd >= 0) {
            (void)!::write(fd, "active/optimized\n", 17);
            ::close(fd);
        }
    });
    const auto began = std::chrono::steady_clock::now();
    ASSERT_TRUE(h.reconfigure());
    const auto took = std::chrono::steady_clock::now() - began;
    EXPECT_LT(took, 2s) << "the loop waited for a sysfs read";
    release.wait();
    h.settle();
    EXPECT_EQ(h.table("36001405aaaa"),
              "0 0 2 1 service-time 0 1 2 8:16 1 1 service-time 0 1 2 8:32 1 1");
}

TEST(Daemon, RrWeightPrioritiesWeighsServiceTimePathsByPriorityAndFollowsTheArray) {
    DaemonHarness h;
    h.config("defaults {\n find_multipaths on\n prio sysfs\n path_grouping_policy multibus\n"
             " rr_weight priorities\n dm_target multipath\n polling_interval 5\n}\n");
    twoMaps(h);
    h.start();
    h.settle();
    // sysfs ranks optimized 50, standby 1: service-time's relative
    // throughput, which sends the optimized path 50 times the bytes.
    EXPECT_EQ(h.table("36001405aaaa"), "0 0 1 1 service-time 0 2 2 8:16 1 50 8:32 1 1")
        << h.logText();
    h.clearCalls();
    auto setState = [&h](const std::string &disk, const std::string &state) {
        const auto dev =
            std::filesystem::canonical(h.tree().sysfsRoot() + "/block/" + disk + "/device");
        mpath_test::writeFile(dev / "access_state", state + "\n");
    };
    setState("sdc", "active/optimized");
    h.advance(25s);
    h.settle();
    EXPECT_EQ(h.table("36001405aaaa"), "0 0 1 1 service-time 0 2 2 8:16 1 1 8:32 1 1")
        << h.logText();
    EXPECT_EQ(h.count("reload 36001405aaaa"), 1u);
    EXPECT_EQ(h.count("reload 36001405bbbb"), 0u) << "map B's ranks did not change";
}

TEST(Daemon, AdoptedMapsAreInTheWwidsFile) {
    DaemonHarness h;
    startWithTwoMaps(h);
    // Maps made by an earlier daemon whose wwids file was lost (or by
    // multipath-tools with another wwids file).
    std::filesystem::remove(h.root() + "/etc/multipath/wwids");
    h.clearCalls();
    h.restart();
    h.settle();
    auto wwids = mpath::state::WwidsFile(h.root() + "/etc/multipath/wwids").load();
    ASSERT_TRUE(wwids) << wwids.error().message;
    // In the order the maps' reads answered, which the workers decide.
    std::sort(wwids->begin(), wwids->end());
    EXPECT_EQ(*wwids, (std::vector<std::string>{"36001405aaaa", "36001405bbbb"}));
    EXPECT_TRUE(h.calls().empty()) << "adoption issued " << h.calls().front();
}

TEST(Daemon, ARemovalTheKernelRefusedIsTriedAgainLater) {
    DaemonHarness h;
    startWithTwoMaps(h);
    onFake(h, [](auto &dm) { dm.failNext(mpath::testing::FakeDeviceMapper::Op::Remove, EBUSY); });
    h.inject("remove", "sdd");
    h.inject("remove", "sde");
    h.settle();
    EXPECT_TRUE(h.logged("trying again in 1 s")) << h.logText();
    EXPECT_EQ(h.liveMaps().size(), 2u);
    h.advance(1500ms);
    h.settle();
    EXPECT_EQ(h.liveMaps().size(), 1u) << h.logText();
}

namespace {

/// Map A (sdb, sdc, multibus) with marginal path detection: two failures
/// within 60 s, then a 120 s sample that may have 10 errors per thousand
/// reads; a bad sample is repeated 60 s later. \a badReads: whether sdc's
/// sampling reads fail.
void startMarginal(DaemonHarness &h, const bool &badReads, const std::string &more = "") {
    h.config("defaults {\n  find_multipaths on\n  path_grouping_policy multibus\n"
             "  dm_target multipath\n  polling_interval 5\n"
             "  marginal_path_double_failed_time 60\n  marginal_path_err_sample_time 120\n"
             "  marginal_path_err_rate_threshold 10\n  marginal_path_err_recheck_gap_time 60\n" +
             more + "}\n");
    h.answerSampleReads([&badReads](const std::string &devnode) -> mpath::Result<void> {
        if (devnode == "/dev/sdc" && badReads)
            return mpath::Error{EIO, "Input/output error"};
        return {};
    });
    h.addDisk("sdb", 16, 1, kWwidA);
    h.addDisk("sdc", 32, 2, kWwidA);
    h.start();
    h.settle();
}

} // namespace

TEST(Daemon, APathThatFailsTwiceIsSampledAndHeldUntilItsReadsStopFailing) {
    DaemonHarness h;
    bool badReads = true;
    startMarginal(h, badReads);
    // The first failure: reinstated as usual, nothing sampled.
    flap(h);
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    EXPECT_EQ(h.sampleReads("/dev/sdc"), 0u);
    // The second within 60 s: held failed, and its I/O sampled.
    h.clearCalls();
    flap(h);
    EXPECT_TRUE(h.logged("path sdc: failed twice within 60 s (marginal_path_double_failed_time)"))
        << h.logText();
    EXPECT_TRUE(h.logged("path sdc: up, but sampled for I/O errors before it is reinstated: "
                         "direct reads for 120 s"))
        << h.logText();
    h.advance(120s);
    EXPECT_FALSE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    EXPECT_TRUE(h.logged("reads failed (1000.0 per thousand), more than "
                         "marginal_path_err_rate_threshold 10: held failed, sampled again 60 s "
                         "from now"))
        << h.logText();
    // One read each 100 ms at most (the harness's gap), none sent in the
    // sample's last minute.
    const unsigned first = h.sampleReads("/dev/sdc");
    EXPECT_GT(first, 500u);
    EXPECT_LE(first, 601u);
    EXPECT_EQ(h.sampleReads("/dev/sdb"), 0u) << "sdb never failed";
    // Its reads work again; the next sample, after the gap, frees it.
    badReads = false;
    h.advance(50s);
    EXPECT_EQ(h.sampleReads("/dev/sdc"), first) << "sampled again before the gap";
    h.advance(140s);
    EXPECT_TRUE(h.logged("reads failed (0.0 per thousand), at most "
                         "marginal_path_err_rate_threshold 10: no longer held"))
        << h.logText();
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
}

TEST(Daemon, AnIoErrorCountsTowardMarginalPathsAndAGoodSampleReinstates) {
    // The check answers, the I/O does not: each PATH_FAILED is a failure.
    DaemonHarness h;
    bool badReads = false;
    startMarginal(h, badReads);
    h.advance(1s);
    ioErrorOnPathOfMapA(h);
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    h.clearCalls();
    h.advance(30s);
    ioErrorOnPathOfMapA(h);
    h.advance(60s);
    EXPECT_FALSE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    EXPECT_TRUE(h.logged("path sdc: failed twice within 60 s")) << h.logText();
    h.advance(65s);
    EXPECT_TRUE(h.logged("at most marginal_path_err_rate_threshold 10: no longer held"))
        << h.logText();
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
}

TEST(Daemon, AHeldMarginalPathIsReinstatedAtOnceWhenItIsTheMapsLastUsablePath) {
    DaemonHarness h;
    bool badReads = true;
    startMarginal(h, badReads);
    flap(h);
    flap(h);
    ASSERT_TRUE(h.logged("path sdc: up, but sampled for I/O errors")) << h.logText();
    h.clearCalls();
    h.checkers().set("/dev/sdb", CheckerState::Down, "transport offline");
    h.advance(25s); // sdb, steady, is checked each 20 s (max_polling_interval)
    ASSERT_TRUE(h.called("message " + kWwidA + " fail_path 8:16")) << h.logText();
    EXPECT_TRUE(h.called("message " + kWwidA + " reinstate_path 8:32")) << h.logText();
    EXPECT_TRUE(h.logged("path sdc: held as marginal, but the map has no other usable path"))
        << h.logText();
}

TEST(Daemon, WithMarginalPathgroupsASampledPathIsGroupedLastUntilItsSampleIsGood) {
    DaemonHarness h;
    bool badReads = true;
    startMarginal(h, badReads, "  marginal_pathgroups on\n");
    auto groups = [&] {
        const std::string t = h.table(kWwidA);
        return t.find(" 0 2 1 ") != std::string::npos ? 2 : 1;
    };
    flap(h);
    flap(h);
    h.settle();
    EXPECT_TRUE(h.logged("path sdc: up, but sampled for I/O errors before it is regrouped"))
        << h.logText();
    EXPECT_EQ(groups(), 2) << h.table(kWwidA) << h.logText();
    EXPECT_LT(h.table(kWwidA).find("8:16"), h.table(kWwidA).find("8:32"))
        << "the marginal path's group comes last: " << h.table(kWwidA);
    h.advance(121s);
    EXPECT_TRUE(h.logged("marginal_path_err_rate_threshold 10: kept apart")) << h.logText();
    EXPECT_EQ(groups(), 2) << h.table(kWwidA);
    badReads = false;
    h.advance(200s);
    EXPECT_EQ(groups(), 1) << h.table(kWwidA) << h.logText();
}
