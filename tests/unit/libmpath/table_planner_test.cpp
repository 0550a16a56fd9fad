#include "mpath/config_parser.h"
#include "mpath/sysfs_tree_builder.h"
#include "mpath/sysfs_udev_properties.h"
#include "mpath/table_planner.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

using namespace mpath;

namespace {

class TablePlannerTest : public ::testing::Test {
protected:
    void SetUp() override { tree_ = std::make_unique<SysfsTreeBuilder>(dir_.str()); }

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
        ASSERT_EQ(tree_->addScsiDisk(d), 0);
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
        ASSERT_EQ(tree_->addScsiDisk(d), 0);
    }

    Plan plan(const char *configText) {
        ConfigResult cfg = ConfigParser::parseString(configText, "mpathd.conf", true);
        EXPECT_FALSE(cfg.hasErrors());
        SysfsUdevProperties udev(tree_->udevDirectory());
        PlanOptions opts{
            {}, {}, PrioritizerContext{Sysfs(tree_->sysfsRoot()), "/dev", {}, {}, {}, {}}};
        // No device I/O in tests: prioritizers fall back to sysfs.
        opts.prioritizers.scsiCommand = [](const std::string &, std::span<const uint8_t>,
                                           std::vector<uint8_t> &,
                                           std::chrono::milliseconds) { return -ENODEV; };
        opts.prioritizers.nvmeAnaLog = [](const std::string &, std::vector<uint8_t> &,
                                          std::chrono::milliseconds) { return -ENODEV; };
        opts.prioritizers.readLatency = [](const std::string &, std::chrono::nanoseconds &) {
            return -ENODEV;
        };
        return TablePlanner::plan(cfg.config, Sysfs(tree_->sysfsRoot()), udev, opts);
    }

    struct AluaState {
        int tpgs;
        const char *dhState;
    };

    /// The planned table of one map over sdb and sdc with these ALUA
    /// states, multibus round-robin on the stock target, plus \p extra
    /// defaults lines.
    std::string twoPathTable(AluaState b, AluaState c, const std::string &extra) {
        addAluaDisk("sdb", 16, 1, "36001405aaaa", b.tpgs, "", b.dhState);
        addAluaDisk("sdc", 32, 2, "36001405aaaa", c.tpgs, "", c.dhState);
        Plan p = plan(("defaults {\n find_multipaths on\n path_grouping_policy multibus\n "
                       "path_selector \"round-robin 0\"\n dm_target multipath\n" +
                       extra + "}\n")
                          .c_str());
        EXPECT_EQ(p.maps.size(), 1u);
        return p.maps.empty() ? "" : p.maps[0].table;
    }

    mpath_test::TempDir dir_{"mpath-planner"};
    std::unique_ptr<SysfsTreeBuilder> tree_;
};

const PlanSkip *skipOf(const Plan &p, const std::string &name) {
    for (const auto &s : p.skipped)
        if (s.kernelName == name)
            return &s;
    return nullptr;
}

} // namespace

TEST_F(TablePlannerTest, GroupsPathsOfOneWwidIntoOneMapWithItsTable) {
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

TEST_F(TablePlannerTest, LeavesALonePathAloneUnderFindMultipathsOn) {
    addDisk("sdb", 16, 1, "36001405aaaa");
    addDisk("sdd", 48, 3, "36001405bbbb");
    addDisk("sdc", 32, 2, "36001405aaaa");
    Plan p = plan("defaults {\n find_multipaths on\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    const PlanSkip *s = skipOf(p, "sdd");
    ASSERT_NE(s, nullptr);
    EXPECT_NE(s->reason.find("find_multipaths"), std::string::npos) << s->reason;
}

TEST_F(TablePlannerTest, ReportsBlacklistedDevicesWithTheRuleThatMatched) {
    addDisk("sdb", 16, 1, "36001405aaaa");
    addDisk("sdc", 32, 2, "36001405aaaa");
    Plan p = plan("defaults {\n find_multipaths greedy\n}\nblacklist {\n devnode \"^sdc$\"\n}\n");
    const PlanSkip *s = skipOf(p, "sdc");
    ASSERT_NE(s, nullptr);
    EXPECT_NE(s->reason.find("^sdc$"), std::string::npos) << s->reason;
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].map.groups.at(0).paths.size(), 1u);
}

TEST_F(TablePlannerTest, OrdersFailoverGroupsByAluaPriorityFromSysfs) {
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

TEST_F(TablePlannerTest, LeavesOutTheAccessLunABuiltinProductBlacklistNames) {
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

TEST_F(TablePlannerTest, NamesTheDevicesEntryWhoseProductBlacklistLeftALunOut) {
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

TEST_F(TablePlannerTest, BlacklistExceptionsTakeBackALunAProductBlacklistNames) {
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

TEST_F(TablePlannerTest, RepeatCountsTheKernelWouldNotKeepAreCappedWithANote) {
    addDisk("sdb", 16, 1, "36001405aaaa", "active/optimized");
    addDisk("sdc", 32, 2, "36001405aaaa", "active/non-optimized");
    Plan p = plan("defaults {\n find_multipaths on\n path_grouping_policy multibus\n prio sysfs\n "
                  "path_selector \"round-robin 0\"\n rr_weight priorities\n rr_min_io_rq 2\n "
                  "dm_target multipath\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].table, "0 2048 multipath 0 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
    EXPECT_EQ(p.maps[0].notes,
              (std::vector<std::string>{
                  "rr_min_io_rq 2 is written as 1: the kernel's selectors keep no repeat count "
                  "above 1",
                  "rr_weight priorities has no effect: the kernel's selectors keep no repeat count "
                  "above 1"}));
}

TEST_F(TablePlannerTest, DetectPrioAndCheckerChooseSysfsAndTurForAnAluaDevice) {
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

TEST_F(TablePlannerTest, DetectPrioOffKeepsTheConfiguredPrioritizer) {
    addAluaDisk("sdb", 16, 1, "36001405aaaa", 1, "active/optimized", "alua");
    addAluaDisk("sdc", 32, 2, "36001405aaaa", 1, "standby", "alua");
    Plan p = plan("defaults {\n find_multipaths on\n path_grouping_policy group_by_prio\n "
                  "prio const\n path_checker directio\n detect_prio no\n detect_checker no\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].prio, "const");
    EXPECT_EQ(p.maps[0].pathChecker, "directio");
    EXPECT_EQ(p.maps[0].map.groups.size(), 1u) << "const ranks both paths alike";
}

TEST_F(TablePlannerTest, DetectionLeavesADeviceWithoutAluaToTheConfiguration) {
    addAluaDisk("sdb", 16, 1, "36001405aaaa", 0, "", "");
    addAluaDisk("sdc", 32, 2, "36001405aaaa", 0, "", "");
    Plan p = plan("defaults {\n find_multipaths on\n prio const\n path_checker directio\n}\n");
    ASSERT_EQ(p.maps.size(), 1u);
    EXPECT_EQ(p.maps[0].prio, "const");
    EXPECT_EQ(p.maps[0].pathChecker, "directio");
}

TEST_F(TablePlannerTest, TableNamesTheHandlerTheKernelHasAttached) {
    // The kernel keeps an attached handler whatever the table says and
    // reads the table back with it: the plan must say the same.
    EXPECT_EQ(twoPathTable({0, "rdac"}, {0, "rdac"}, " hardware_handler \"1 emc\"\n"),
              "0 2048 multipath 0 1 rdac 1 1 round-robin 0 2 1 8:16 1 8:32 1");
}

TEST_F(TablePlannerTest, AluaCapablePathsWithoutAHandlerGetAlua) {
    EXPECT_EQ(twoPathTable({1, "detached"}, {3, "detached"}, ""),
              "0 2048 multipath 0 1 alua 1 1 round-robin 0 2 1 8:16 1 8:32 1");
}

TEST_F(TablePlannerTest, AluaHandlerIsDroppedWhenAPathHasNoAlua) {
    EXPECT_EQ(twoPathTable({1, ""}, {0, ""}, " hardware_handler \"1 alua\"\n"),
              "0 2048 multipath 0 0 1 1 round-robin 0 2 1 8:16 1 8:32 1");
}

TEST_F(TablePlannerTest, SaysWhyAPathHasNoPriority) {
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
