#include "mpath/config/parser.h"
#include "mpath/discovery/udev_property_files.h"
#include "mpath/policy/gatherer.h"
#include "mpath/policy/planner.h"
#include "mpath/testing/sysfs_tree_builder.h"
#include "temp_dir.h"

#include <atomic>
#include <future>
#include <gtest/gtest.h>

using namespace mpath;
using namespace mpath::policy;
using namespace std::chrono_literals;
using model::Map;
using mpath::testing::SysfsTreeBuilder;

namespace {

class PlannerTest : public ::testing::Test {
protected:
    void SetUp() override {
        tree_ = std::make_unique<SysfsTreeBuilder>(dir_.str());
        // No device I/O in tests unless a test puts its own seam in.
        prio_ = prio::Context::noDevices();
    }

    void addDisk(const std::string &name, unsigned minor, unsigned host, const std::string &wwid,
                 const std::string &accessState = "") {
        addDisk(name, minor, host, wwid, "ACME", "Array", accessState);
    }

    void addDisk(const std::string &name, unsigned minor, unsigned host, const std::string &wwid,
                 const std::string &vendor, const std::string &model,
                 const std::string &accessState = "") {
        SysfsTreeBuilder::ScsiDisk d;
        d.name = name;
        d.minor = minor;
        d.host = host;
        d.vendor = vendor;
        d.model = model;
        d.accessState = accessState;
        d.udev = {{"ID_SERIAL", wwid}, {"DEVTYPE", "disk"}};
        ASSERT_TRUE(tree_->addScsiDisk(d));
    }

    /// A disk with standard INQUIRY data (TPGS \a tpgs) and, when
    /// \a dhState is not empty, the kernel's dh_state.
    void addAluaDisk(const std::string &name, unsigned minor, unsigned host,
                     const std::string &wwid, int tpgs, const std::string &accessState,
                     const std::string &dhState) {
        SysfsTreeBuilder::ScsiDisk d;
        d.name = name;
        d.minor = minor;
        d.host = host;
        d.vendor = "ACME";
        d.model = "Array";
        d.tpgs = tpgs;
        d.accessState = accessState;
        d.dhState = dhState;
        d.udev = {{"ID_SERIAL", wwid}, {"DEVTYPE", "disk"}};
        ASSERT_TRUE(tree_->addScsiDisk(d));
    }

    /// What the system (the generated tree) gives the planner.
    PlanInput gather(const config::Config &config,
                     std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
        discovery::UdevPropertyFiles udev(tree_->udevDirectory());
        Gatherer::Options o;
        o.prio = prio_;
        o.priorityDeadline = deadline;
        return gatherNow(config, discovery::Sysfs(tree_->sysfsRoot()), udev, std::move(o));
    }

    Plan plan(const char *configText, const state::Bindings &bindings = {}) {
        config::ConfigResult cfg = config::parseString(configText, "mpathd.conf", true);
        EXPECT_FALSE(cfg.hasErrors());
        for (const auto &d : cfg.diagnostics)
            ADD_FAILURE() << "unexpected diagnostic: " << d.toString();
        PlanInput in = gather(cfg.config);
        in.bindings = bindings;
        return policy::plan(cfg.config, in);
    }

    struct AluaState {
        int tpgs;
        const char *dhState;
    };

    /// The planned table of one map over sdb and sdc with these ALUA
    /// states, multibus round-robin on the stock target, plus \p extra
    /// lines in a device entry for the disks (hardware_handler is a
    /// device entry's keyword).
    std::string twoPathTable(AluaState b, AluaState c, const std::string &extra) {
        addAluaDisk("sdb", 16, 1, "36001405aaaa", b.tpgs, "", b.dhState);
        addAluaDisk("sdc", 32, 2, "36001405aaaa", c.tpgs, "", c.dhState);
        Plan p = plan(("defaults {\n find_multipaths on\n path_grouping_policy multibus\n "
                       "path_selector \"round-robin 0\"\n dm_target multipath\n}\n"
                       "devices {\n device {\n vendor ACME\n product Array\n" +
                       extra + " }\n}\n")
                          .c_str());
        EXPECT_EQ(p.maps.size(), 1u);
        return p.maps.empty() ? "" : p.maps[0].table;
    }

    mpath_test::TempDir dir_{"mpath-planner"};
    std::unique_ptr<SysfsTreeBuilder> tree_;
    prio::Context prio_;
};

/// A REPORT TARGET PORT GROUPS reply, basic format: one descriptor per
/// {state, group}, each with one target port.
std::vector<uint8_t> rtpgReply(std::initializer_list<std::pair<uint8_t, uint16_t>> groups) {
    std::vector<uint8_t> body;
    for (auto [state, group] : groups) {
        body.insert(body.end(), {state, 0x0f, uint8_t(group >> 8), uint8_t(group), 0, 0, 0, 1});
        body.insert(body.end(), {0, 0, 0, 1});
    }
    std::vector<uint8_t> r(4);
    r[2] = uint8_t(body.size() >> 8);
    r[3] = uint8_t(body.size());
    r.insert(r.end(), body.begin(), body.end());
    return r;
}

const PlanSkip *skipOf(const Plan &p, const std::string &name) {
    for (const auto &s : p.skipped)
        if (s.kernelName == name)
            return &s;
    return nullptr;
}

} // namespace

TEST_F(PlannerTest, GroupsPathsOfOneWwidIntoOneMapWithItsTable) {
    addDisk("sdb", 16, 1, "36001405aaaa");
    addDisk("sdc", 32, 2, "36001405aaaa");
    Plan p = plan("defaults {\n find_multipaths on\n path_grouping_policy multibus\n "
                  "path_selector \"round-robin 0\"\n dm_target multipath\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    const PlannedMap &m = p.maps[0];
    EXPECT_EQ(m.map.wwid, "36001405aaaa");
    EXPECT_EQ(m.map.alias, "36001405aaaa");
    ASSERT_EQ(m.map.groups.size(), 1u);
    EXPECT_EQ(m.map.groups[0].paths.size(), 2u);
    EXPECT_EQ(m.table, "0 2048 multipath 0 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
}

TEST_F(PlannerTest, LeavesALonePathAloneUnderFindMultipathsOn) {
    addDisk("sdb", 16, 1, "36001405aaaa");
    addDisk("sdd", 48, 3, "36001405bbbb");
    addDisk("sdc", 32, 2, "36001405aaaa");
    Plan p = plan("defaults {\n find_multipaths on\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    const PlanSkip *s = skipOf(p, "sdd");
    ASSERT_NE(s, nullptr);
    EXPECT_NE(s->reason.find("find_multipaths"), std::string::npos) << s->reason;
}

TEST_F(PlannerTest, ReportsBlacklistedDevicesWithTheRuleThatMatched) {
    addDisk("sdb", 16, 1, "36001405aaaa");
    addDisk("sdc", 32, 2, "36001405aaaa");
    Plan p = plan("defaults {\n find_multipaths greedy\n}\nblacklist {\n devnode \"^sdc$\"\n}\n");
    const PlanSkip *s = skipOf(p, "sdc");
    ASSERT_NE(s, nullptr);
    EXPECT_NE(s->reason.find("^sdc$"), std::string::npos) << s->reason;
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].map.groups.at(0).paths.size(), 1u);
}

TEST_F(PlannerTest, OrdersFailoverGroupsByAluaPriorityFromSysfs) {
    addDisk("sdb", 16, 1, "36001405aaaa", "standby");
    addDisk("sdc", 32, 2, "36001405aaaa", "active/optimized");
    Plan p = plan("defaults {\n find_multipaths on\n path_grouping_policy failover\n prio sysfs\n "
                  "no_path_retry queue\n}\nmultipaths {\n multipath {\n wwid 36001405aaaa\n "
                  "alias data\n }\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    const Map &m = p.maps[0].map;
    EXPECT_EQ(m.alias, "data");
    ASSERT_EQ(m.groups.size(), 2u);
    EXPECT_EQ(m.groups[0].paths[0].kernelName, "sdc") << "the optimized path's group comes first";
    EXPECT_GT(m.groups[0].priority, m.groups[1].priority);
    EXPECT_EQ(m.features, std::vector<std::string>{"queue_if_no_path"});
    EXPECT_EQ(m.target, "lmpath");
}

TEST_F(PlannerTest, LeavesOutTheAccessLunABuiltinProductBlacklistNames) {
    addDisk("sdb", 16, 1, "36001405aaaa", "DELL", "MD38xxi");
    addDisk("sdc", 32, 2, "36001405aaaa", "DELL", "MD38xxi");
    addDisk("sdd", 48, 3, "36001405bbbb", "DELL", "Universal Xport");
    addDisk("sde", 64, 4, "36001405bbbb", "DELL", "Universal Xport");
    Plan p = plan("defaults {\n find_multipaths greedy\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].map.wwid, "36001405aaaa");
    for (const char *name : {"sdd", "sde"}) {
        const PlanSkip *s = skipOf(p, name);
        ASSERT_NE(s, nullptr) << name;
        EXPECT_EQ(s->reason, "blacklisted by device \"DELL:Universal Xport\" (product_blacklist "
                             "of the built-in device table)");
    }
}

TEST_F(PlannerTest, NamesTheDevicesEntryWhoseProductBlacklistLeftALunOut) {
    addDisk("sdb", 16, 1, "36001405aaaa");
    addDisk("sdc", 32, 2, "36001405aaaa");
    addDisk("sdd", 48, 3, "36001405bbbb", "ACME", "Gatekeeper");
    Plan p = plan("defaults {\n find_multipaths greedy\n}\ndevices {\n device {\n vendor ACME\n "
                  "product Array\n product_blacklist ^Gatekeeper\n }\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    const PlanSkip *s = skipOf(p, "sdd");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->reason, "blacklisted by device \"ACME:^Gatekeeper\" (product_blacklist of the "
                         "device entry at mpathd.conf:5)");
}

TEST_F(PlannerTest, BlacklistExceptionsTakeBackALunAProductBlacklistNames) {
    addDisk("sdb", 16, 1, "36001405cccc", "DGC", "LUNZ");
    addDisk("sdc", 32, 2, "36001405cccc", "DGC", "LUNZ");
    Plan p = plan("defaults {\n find_multipaths greedy\n}\nblacklist_exceptions {\n device {\n "
                  "vendor DGC\n product LUNZ\n }\n}\n");
    for (const char *name : {"sdb", "sdc"}) {
        const PlanSkip *s = skipOf(p, name);
        EXPECT_EQ(s, nullptr) << name << ": " << (s ? s->reason : "");
    }
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].map.wwid, "36001405cccc");
}

TEST_F(PlannerTest, RepeatCountsTheKernelWouldNotKeepAreCappedWithANote) {
    addDisk("sdb", 16, 1, "36001405aaaa", "active/optimized");
    addDisk("sdc", 32, 2, "36001405aaaa", "active/non-optimized");
    Plan p = plan("defaults {\n find_multipaths on\n path_grouping_policy multibus\n prio sysfs\n "
                  "path_selector \"round-robin 0\"\n rr_min_io_rq 2\n "
                  "dm_target multipath\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].table, "0 2048 multipath 0 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
    EXPECT_EQ(p.maps[0].notes,
              (std::vector<std::string>{
                  "rr_min_io_rq 2 is written as 1: the kernel's selectors keep no repeat count "
                  "above 1"}));
}

TEST_F(PlannerTest, ShakyPathSettingsThatTakeNoEffectAloneAreSaid) {
    addDisk("sdb", 16, 1, "36001405aaaa", "active/optimized");
    addDisk("sdc", 32, 2, "36001405aaaa", "active/optimized");
    const std::string base = "defaults {\n find_multipaths on\n dm_target multipath\n";
    Plan partial = plan((base + " delay_watch_checks 12\n}\n").c_str());
    ASSERT_EQ(partial.maps.size(), 1u);
    EXPECT_FALSE(partial.maps[0].sanPathErr.enabled());
    ASSERT_EQ(partial.maps[0].notes.size(), 1u);
    EXPECT_EQ(partial.maps[0].notes[0].rfind("shaky paths are not held:", 0), 0u)
        << partial.maps[0].notes[0];
    Plan all = plan((base + " delay_watch_checks 12\n delay_wait_checks 2\n}\n").c_str());
    ASSERT_EQ(all.maps.size(), 1u);
    EXPECT_TRUE(all.maps[0].sanPathErr.enabled());
    EXPECT_TRUE(all.maps[0].notes.empty()) << all.maps[0].notes.front();
}

TEST_F(PlannerTest, MarginalPathSettingsAreSaidWhenPartialAndReplaceShakyPathDetection) {
    addDisk("sdb", 16, 1, "36001405aaaa", "active/optimized");
    addDisk("sdc", 32, 2, "36001405aaaa", "active/optimized");
    const std::string base = "defaults {\n find_multipaths on\n dm_target multipath\n"
                             " marginal_path_double_failed_time 60\n"
                             " marginal_path_err_sample_time 120\n"
                             " marginal_path_err_recheck_gap_time 300\n";
    Plan partial = plan((base + "}\n").c_str());
    ASSERT_EQ(partial.maps.size(), 1u);
    EXPECT_FALSE(partial.maps[0].marginalPath.enabled());
    ASSERT_EQ(partial.maps[0].notes.size(), 1u);
    EXPECT_EQ(partial.maps[0].notes[0].rfind("paths are not sampled for I/O errors:", 0), 0u)
        << partial.maps[0].notes[0];
    Plan both = plan((base + " marginal_path_err_rate_threshold 0\n delay_watch_checks 12\n"
                             " delay_wait_checks 2\n}\n")
                         .c_str());
    ASSERT_EQ(both.maps.size(), 1u);
    EXPECT_EQ(both.maps[0].marginalPath, (MarginalPathSettings{60, 120, 0, 300}));
    EXPECT_FALSE(both.maps[0].sanPathErr.enabled()) << "as multipath-tools: one or the other";
    ASSERT_EQ(both.maps[0].notes.size(), 1u);
    EXPECT_EQ(both.maps[0].notes[0].rfind("shaky paths are sampled for I/O errors", 0), 0u)
        << both.maps[0].notes[0];
}

TEST_F(PlannerTest, DetectPrioAndCheckerChooseSysfsAndTurForAnAluaDevice) {
    addAluaDisk("sdb", 16, 1, "36001405aaaa", 1, "active/optimized", "alua");
    addAluaDisk("sdc", 32, 2, "36001405aaaa", 1, "standby", "alua");
    Plan p = plan("defaults {\n find_multipaths on\n path_grouping_policy group_by_prio\n "
                  "prio const\n path_checker directio\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].prio, "sysfs");
    EXPECT_EQ(p.maps[0].pathChecker, "tur");
    ASSERT_EQ(p.maps[0].map.groups.size(), 2u) << "the detected prioritizer ranks the paths";
    EXPECT_EQ(p.maps[0].map.groups[0].paths.at(0).kernelName, "sdb");
}

TEST_F(PlannerTest, DetectPrioOffKeepsTheConfiguredPrioritizer) {
    addAluaDisk("sdb", 16, 1, "36001405aaaa", 1, "active/optimized", "alua");
    addAluaDisk("sdc", 32, 2, "36001405aaaa", 1, "standby", "alua");
    Plan p = plan("defaults {\n find_multipaths on\n path_grouping_policy group_by_prio\n "
                  "prio const\n path_checker directio\n detect_prio no\n detect_checker no\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].prio, "const");
    EXPECT_EQ(p.maps[0].pathChecker, "directio");
    EXPECT_EQ(p.maps[0].map.groups.size(), 1u) << "const ranks both paths alike";
}

TEST_F(PlannerTest, DetectionLeavesADeviceWithoutAluaToTheConfiguration) {
    addAluaDisk("sdb", 16, 1, "36001405aaaa", 0, "", "");
    addAluaDisk("sdc", 32, 2, "36001405aaaa", 0, "", "");
    Plan p = plan("defaults {\n find_multipaths on\n prio const\n path_checker directio\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].prio, "const");
    EXPECT_EQ(p.maps[0].pathChecker, "directio");
}

TEST_F(PlannerTest, TableNamesTheHandlerTheKernelHasAttached) {
    // The kernel keeps an attached handler whatever the table says and
    // reads the table back with it: the plan must say the same.
    EXPECT_EQ(twoPathTable({0, "rdac"}, {0, "rdac"}, " hardware_handler \"1 emc\"\n"),
              "0 2048 multipath 0 1 rdac 1 1 round-robin 0 2 1 8:16 1 8:32 1");
}

TEST_F(PlannerTest, AluaCapablePathsWithoutAHandlerGetAlua) {
    EXPECT_EQ(twoPathTable({1, "detached"}, {3, "detached"}, ""),
              "0 2048 multipath 0 1 alua 1 1 round-robin 0 2 1 8:16 1 8:32 1");
}

TEST_F(PlannerTest, AluaHandlerIsDroppedWhenAPathHasNoAlua) {
    EXPECT_EQ(twoPathTable({1, ""}, {0, ""}, " hardware_handler \"1 alua\"\n"),
              "0 2048 multipath 0 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
}

TEST_F(PlannerTest, SaysWhyAPathHasNoPriority) {
    // DGC arrays without ALUA use the emc prioritizer, which is not
    // implemented; a device without ALUA cannot answer alua.
    addDisk("sdb", 16, 1, "36006016aaaa", "DGC", "VRAID");
    addDisk("sdc", 32, 2, "36006016aaaa", "DGC", "VRAID");
    addAluaDisk("sdd", 48, 3, "36001405bbbb", 0, "", "");
    addAluaDisk("sde", 64, 4, "36001405bbbb", 0, "", "");
    Plan p = plan("defaults {\n find_multipaths on\n}\nmultipaths {\n multipath {\n "
                  "wwid 36001405bbbb\n prio alua\n }\n}\n");
    ASSERT_EQ(p.maps.size(), 2u);
    const PlannedMap &alua = p.maps[0].map.wwid == "36001405bbbb" ? p.maps[0] : p.maps[1];
    const PlannedMap &emc = p.maps[0].map.wwid == "36001405bbbb" ? p.maps[1] : p.maps[0];
    EXPECT_EQ(emc.prio, "emc");
    EXPECT_EQ(emc.notes,
              (std::vector<std::string>{
                  "sdb: prioritizer emc not used: 'emc' is a multipath-tools prioritizer not "
                  "implemented here, the path ranks -1",
                  "sdc: prioritizer emc not used: 'emc' is a multipath-tools prioritizer not "
                  "implemented here, the path ranks -1"}));
    ASSERT_EQ(alua.notes.size(), 2u);
    EXPECT_EQ(alua.notes[0],
              "sdd: prioritizer alua: the device reports no ALUA support, the path ranks -1");
}

TEST_F(PlannerTest, AluaPathsRankByThePortGroupStateTheDeviceReports) {
    // Two ports of one LUN, the kernel without scsi_dh_alua (no
    // access_state): the alua prioritizer asks the device. multipath-tools
    // gives the standby port 1 and the active/optimized one 50 and puts
    // the latter's group first.
    for (auto [name, minor, host, tpg] : {std::tuple{"sdb", 16u, 1u, 1}, {"sdc", 32u, 2u, 2}}) {
        SysfsTreeBuilder::ScsiDisk d;
        d.name = name;
        d.minor = minor;
        d.host = host;
        d.tpgs = 1;
        d.vpdPage83 = SysfsTreeBuilder::naaPage83("6001405aabbccdd0", tpg);
        d.udev = {{"ID_SERIAL", "36001405aabbccdd0"}, {"DEVTYPE", "disk"}};
        ASSERT_TRUE(tree_->addScsiDisk(d));
    }
    prio_.scsiCommand = [](const std::string &, std::span<const uint8_t>, size_t,
                           std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        return rtpgReply({{0x02, 1}, {0x00, 2}}); // group 1 standby, 2 optimized
    };
    Plan p = plan("defaults {\n find_multipaths on\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    const Map &m = p.maps[0].map;
    EXPECT_EQ(p.maps[0].prio, "alua");
    EXPECT_TRUE(p.maps[0].notes.empty()) << p.maps[0].notes.front();
    ASSERT_EQ(m.groups.size(), 2u);
    EXPECT_EQ(m.groups[0].paths.at(0).kernelName, "sdc");
    EXPECT_EQ(m.groups[0].paths.at(0).priority, 50);
    EXPECT_EQ(m.groups[1].paths.at(0).kernelName, "sdb");
    EXPECT_EQ(m.groups[1].paths.at(0).priority, 1);
}

TEST_F(PlannerTest, DevicesThatHangCostOneDeadlineNotOnePerPath) {
    for (unsigned i = 0; i < 8; ++i) {
        SysfsTreeBuilder::ScsiDisk d;
        d.name = "sd" + std::string(1, char('b' + i));
        d.minor = 16 * (i + 1);
        d.host = i + 1;
        d.tpgs = 1;
        d.vpdPage83 = SysfsTreeBuilder::naaPage83("6001405aabbccdd0", 1);
        d.udev = {{"ID_SERIAL", "36001405aabbccdd0"}, {"DEVTYPE", "disk"}};
        ASSERT_TRUE(tree_->addScsiDisk(d));
    }
    auto release = std::make_shared<std::promise<void>>();
    std::shared_future<void> released = release->get_future().share();
    prio_.scsiCommand = [released](const std::string &, std::span<const uint8_t>, size_t,
                                   std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        released.wait();
        return std::vector<uint8_t>{};
    };
    auto cfg = config::parseString("defaults {\n find_multipaths on\n}\n");
    const auto t0 = std::chrono::steady_clock::now();
    PlanInput in = gather(cfg.config, 300ms);
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_LT(took, 8 * 300ms) << "the eight devices were asked at once";
    Plan p = policy::plan(cfg.config, in);
    ASSERT_EQ(p.maps.size(), 1u);
    ASSERT_EQ(p.maps[0].notes.size(), 8u);
    EXPECT_EQ(p.maps[0].notes[0],
              "sdb: prioritizer alua: no answer within 300 ms of starting, the path ranks -1");
    release->set_value();
}

TEST_F(PlannerTest, AnAliasTheConfigurationGivesOneWwidIsNoOtherMapsName) {
    // The bindings file says mpatha is WWID X; multipaths {} gives mpatha
    // to WWID Y. Two maps cannot share a name: Y keeps the configured
    // alias, X's binding is dropped and X gets the next free alias, as
    // multipath-tools rewrites its bindings file.
    addDisk("sdb", 16, 1, "36001405xxxx");
    addDisk("sdc", 32, 2, "36001405xxxx");
    addDisk("sdd", 48, 3, "36001405yyyy");
    addDisk("sde", 64, 4, "36001405yyyy");
    state::Bindings bindings;
    ASSERT_TRUE(bindings.add("mpatha", "36001405xxxx"));
    Plan p = plan("defaults {\n find_multipaths on\n user_friendly_names yes\n}\n"
                  "multipaths {\n multipath {\n wwid 36001405yyyy\n alias mpatha\n }\n}\n",
                  bindings);
    ASSERT_EQ(p.maps.size(), 2u);
    const PlannedMap &x = p.maps[0];
    const PlannedMap &y = p.maps[1];
    ASSERT_EQ(x.map.wwid, "36001405xxxx");
    EXPECT_EQ(y.map.alias, "mpatha");
    EXPECT_EQ(x.map.alias, "mpathb");
    EXPECT_EQ(x.name.droppedAlias, "mpatha");
    EXPECT_EQ(x.name.newAlias, "mpathb");
    EXPECT_EQ(x.notes.back(), "name: its binding 'mpatha' is the alias multipaths {} gives "
                              "36001405yyyy; the binding is replaced");
    EXPECT_EQ(p.bindings.aliasFor("36001405xxxx"), "mpathb");
    EXPECT_EQ(p.bindings.wwidFor("mpatha"), std::nullopt)
        << "the configured alias is not a binding";
}

TEST_F(PlannerTest, NewWwidsGetTheNextFreeAliasesAndTheBindingsToWrite) {
    addDisk("sdb", 16, 1, "36001405aaaa");
    addDisk("sdc", 32, 2, "36001405aaaa");
    addDisk("sdd", 48, 3, "36001405bbbb");
    addDisk("sde", 64, 4, "36001405bbbb");
    state::Bindings bindings;
    ASSERT_TRUE(bindings.add("mpatha", "36001405zzzz"));
    Plan p = plan("defaults {\n find_multipaths on\n user_friendly_names yes\n}\n", bindings);
    ASSERT_EQ(p.maps.size(), 2u);
    EXPECT_EQ(p.maps[0].map.alias, "mpathb");
    EXPECT_EQ(p.maps[0].name.newAlias, "mpathb");
    EXPECT_EQ(p.maps[1].map.alias, "mpathc") << "one plan never hands an alias out twice";
    EXPECT_EQ(p.bindings.entries().size(), 3u);
}

TEST_F(PlannerTest, TheSameInputGivesTheSamePlan) {
    addDisk("sdb", 16, 1, "36001405aaaa", "standby");
    addDisk("sdc", 32, 2, "36001405aaaa", "active/optimized");
    auto cfg = config::parseString("defaults {\n find_multipaths on\n prio sysfs\n}\n");
    PlanInput in = gather(cfg.config);
    Plan a = policy::plan(cfg.config, in);
    Plan b = policy::plan(cfg.config, in);
    ASSERT_EQ(a.maps.size(), 1u);
    ASSERT_EQ(b.maps.size(), 1u);
    EXPECT_EQ(a.maps[0].table, b.maps[0].table);
    EXPECT_EQ(a.maps[0].map, b.maps[0].map);
}

TEST(PathPolicy, DetectPrioAsksAnNvmeNamespaceForAnaAndKeepsTheConfiguredOneToFallBackOn) {
    model::Path nvme;
    nvme.kernelName = "nvme1n1";
    nvme.transport = model::Transport::Nvme;
    nvme.vendor = "NVME";
    nvme.product = "Linux";
    auto detected = config::parseString("defaults {\n}\n", "multipath.conf");
    PathPolicy p = choosePathPolicy(detected.config.effective(nvme), nvme);
    EXPECT_EQ(p.prio, "ana");
    EXPECT_EQ(p.fallbackPrio, "const") << "the built-in NVMe entry's";
    EXPECT_EQ(p.checker, "none");

    auto off = config::parseString("defaults {\n\tdetect_prio no\n}\n", "multipath.conf");
    p = choosePathPolicy(off.config.effective(nvme), nvme);
    EXPECT_EQ(p.prio, "const");
    EXPECT_EQ(p.fallbackPrio, "");

    auto configured = config::parseString("defaults {\n\tprio ana\n}\n", "multipath.conf");
    p = choosePathPolicy(configured.config.effective(nvme), nvme);
    EXPECT_EQ(p.prio, "ana");
    EXPECT_EQ(p.fallbackPrio, "") << "ana asked for: no other method behind it";
}
