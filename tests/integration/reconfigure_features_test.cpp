// Reconfigure when only a map's features change: the table's groups and
// paths stay, and the map must still follow the new configuration.

#include "daemon_harness.h"

#include <gtest/gtest.h>
#include <string>

namespace {

using mpathd_test::DaemonHarness;

const char *const kMapA = "36001405aaaa";
const char *const kMapB = "36001405bbbb";

/// The defaults every test here starts from, with \a extra lines in the
/// defaults section.
std::string config(const std::string &extra = "") {
    return "defaults {\n"
           "  find_multipaths on\n"
           "  path_grouping_policy failover\n"
           "  prio sysfs\n"
           "  dm_target multipath\n"
           "  polling_interval 5\n" +
           extra + "}\n";
}

void startWithTwoMaps(DaemonHarness &h) {
    h.config(config());
    h.addDisk("sdb", 16, 1, kMapA, "active/optimized");
    h.addDisk("sdc", 32, 2, kMapA, "standby");
    h.addDisk("sdd", 48, 1, kMapB, "active/optimized");
    h.addDisk("sde", 64, 2, kMapB, "standby");
    h.start();
    h.settle();
}

/// The feature words of a table ("3 queue_if_no_path pg_init_retries 5"
/// of "3 queue_if_no_path pg_init_retries 5 0 2 1 ...").
std::string features(const std::string &table) {
    const size_t n = std::stoul(table);
    size_t end = table.find(' ');
    for (size_t i = 0; i < n && end != std::string::npos; ++i)
        end = table.find(' ', end + 1);
    return table.substr(0, end);
}

} // namespace

TEST(ReconfigureFeatures, PgInitRetriesAloneReachesEveryMapsTable) {
    DaemonHarness h;
    startWithTwoMaps(h);
    ASSERT_EQ(features(h.table(kMapA)), "0") << h.table(kMapA);
    const std::string groups = h.table(kMapA).substr(features(h.table(kMapA)).size());
    h.clearCalls();
    h.config(config("  pg_init_retries 5\n"));
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    for (const char *wwid : {kMapA, kMapB})
        EXPECT_EQ(features(h.table(wwid)), "2 pg_init_retries 5") << h.table(wwid) << h.logText();
    // Nothing else of the table moved.
    EXPECT_EQ(h.table(kMapA).substr(features(h.table(kMapA)).size()), groups);
}

TEST(ReconfigureFeatures, QueueingTurnedOnInTheConfigurationReachesTheKernel) {
    DaemonHarness h;
    startWithTwoMaps(h);
    h.clearCalls();
    h.config(config("  no_path_retry queue\n"));
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    for (const char *wwid : {kMapA, kMapB})
        EXPECT_EQ(features(h.table(wwid)), "1 queue_if_no_path") << h.table(wwid) << h.logText();
    // And off again.
    h.config(config("  no_path_retry fail\n"));
    ASSERT_TRUE(h.reconfigure());
    h.settle();
    for (const char *wwid : {kMapA, kMapB})
        EXPECT_EQ(features(h.table(wwid)), "0") << h.table(wwid) << h.logText();
}
