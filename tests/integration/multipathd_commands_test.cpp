// multipathd's commands answered from mpathd's state: the words, layouts
// and refusals multipathd's clients parse.

#include "bus_harness.h"
#include "bus_service.h"
#include "daemon_harness.h"
#include "multipathd_commands.h"

#include <gtest/gtest.h>
#include <mpath/config/parser.h>
#include <mpath/testing/fake_device_mapper.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using mpathd_test::kMapA;
using mpathd_test::kMapB;

class MultipathdCommandsTest : public ::testing::Test {
protected:
    void SetUp() override {
        h_.config(std::string(mpathd_test::kConfig) + "multipaths {\n"
                                                      "  multipath {\n"
                                                      "    wwid 36001405bbbb\n"
                                                      "    alias data\n"
                                                      "    no_path_retry 3\n"
                                                      "  }\n"
                                                      "}\n");
        h_.addDisk("sdb", 16, 1, kMapA, "active/optimized");
        h_.addDisk("sdc", 32, 2, kMapA, "standby");
        h_.addDisk("sdd", 48, 1, kMapB, "active/optimized");
        h_.addDisk("sde", 64, 2, kMapB, "active/optimized");
        h_.start();
        h_.settle();
        // Every path checked once, so that the answers are settled.
        ASSERT_TRUE(h_.advanceUntil(
            [&] {
                for (const auto &[name, p] : h_.daemon().state().paths)
                    if (p.path.checkerState == mpath::model::CheckerState::Unchecked)
                        return false;
                return true;
            },
            20s));
        service_.emplace(h_.daemon());
        commands_.emplace(h_.daemon(), *service_, [this] { ++shutdowns_; });
    }

    /// The answer, once it comes (a change answers once carried out).
    std::string ask(const std::string &command, bool root = true) {
        auto got = std::make_shared<std::optional<std::string>>();
        commands_->answer(command, root, [got](std::string a) { *got = std::move(a); });
        if (!*got)
            h_.advanceUntil([&] { return got->has_value(); }, 60s);
        return got->value_or("(no answer)");
    }

    /// The map's document as "show map X json" gives it.
    nlohmann::json map(const std::string &name) {
        return nlohmann::json::parse(ask("show map " + name + " json"))["map"];
    }

    mpathd_test::DaemonHarness h_;
    std::optional<mpathd::BusService> service_;
    std::optional<mpathd::MultipathdCommands> commands_;
    int shutdowns_{0};
};

TEST_F(MultipathdCommandsTest, ShowMapsJsonIsMultipathdsDocumentWithItsKeysInItsOrder) {
    // As multipathd's own client sends it: each word and a blank, a newline.
    const std::string text = ask("show maps json \n");
    const auto doc = nlohmann::ordered_json::parse(text);
    EXPECT_EQ(doc["major_version"], 0);
    EXPECT_EQ(doc["minor_version"], 1);
    ASSERT_EQ(doc["maps"].size(), 2u);
    std::vector<std::string> keys;
    for (const auto &[k, v] : doc["maps"][0].items())
        keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{
                        "name",       "uuid",        "sysfs",        "failback",   "queueing",
                        "paths",      "write_prot",  "dm_st",        "features",   "hwhandler",
                        "action",     "path_faults", "vend",         "prod",       "rev",
                        "switch_grp", "map_loads",   "total_q_time", "q_timeouts", "path_groups"}));

    // Sorted by name: the WWID-named map A, then "data" (map B).
    const auto &a = doc["maps"][0];
    const auto &b = doc["maps"][1];
    EXPECT_EQ(a["name"], kMapA);
    EXPECT_EQ(a["uuid"], kMapA);
    EXPECT_EQ(b["name"], "data");
    EXPECT_EQ(b["uuid"], kMapB);
    EXPECT_TRUE(std::regex_match(a["sysfs"].get<std::string>(), std::regex("dm-[0-9]+")));
    EXPECT_EQ(a["dm_st"], "active");
    EXPECT_EQ(a["write_prot"], "rw");
    EXPECT_EQ(a["paths"], 2) << "up and ghost paths";
    EXPECT_EQ(a["vend"], "ACME");
    EXPECT_EQ(a["prod"], "Array");
    EXPECT_EQ(a["queueing"], "off") << "no_path_retry is fail by default";
    EXPECT_EQ(b["queueing"], "3 chk");
    EXPECT_EQ(a["map_loads"], 1) << "made once";
    EXPECT_EQ(a["path_faults"], 0);

    // Failover: one group per path, the optimized one first.
    ASSERT_EQ(a["path_groups"].size(), 2u);
    const auto &g1 = a["path_groups"][0];
    keys.clear();
    for (const auto &[k, v] : g1.items())
        keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"selector", "pri", "dm_st", "marginal_st", "group",
                                              "paths"}));
    EXPECT_EQ(g1["selector"], "service-time 0");
    EXPECT_EQ(g1["group"], 1);
    EXPECT_EQ(g1["marginal_st"], "normal");
    ASSERT_EQ(g1["paths"].size(), 1u);
    const auto &p = g1["paths"][0];
    keys.clear();
    for (const auto &[k, v] : p.items())
        keys.push_back(k);
    EXPECT_EQ(keys,
              (std::vector<std::string>{"dev", "dev_t", "dm_st", "dev_st", "chk_st", "checker",
                                        "pri", "host_wwnn", "target_wwnn", "host_wwpn",
                                        "target_wwpn", "host_adapter", "lun_hex", "marginal_st"}));
    EXPECT_EQ(p["dev"], "sdb");
    EXPECT_EQ(p["dev_t"], "8:16");
    EXPECT_EQ(p["chk_st"], "ready");
    EXPECT_EQ(p["dev_st"], "running");
    EXPECT_EQ(a["path_groups"][1]["paths"][0]["dev"], "sdc");
    EXPECT_EQ(a["path_groups"][1]["paths"][0]["pri"], 1) << "standby ranks 1 under prio sysfs";

    // multipathd's layout: three blanks a level, "key" : value.
    EXPECT_TRUE(text.starts_with("{\n   \"major_version\": 0,\n   \"minor_version\": 1,\n"
                                 "   \"maps\": [{\n      \"name\" : \"36001405aaaa\",\n"))
        << text;
    EXPECT_TRUE(text.ends_with("      }]\n   }]\n}\n")) << text;
}

TEST_F(MultipathdCommandsTest, ShowMapJsonFindsAMapByNameDmNodeOrWwidAndFailsForNone) {
    const auto byName = nlohmann::json::parse(ask("show map data json"));
    EXPECT_EQ(byName["map"]["uuid"], kMapB);
    const std::string dm = byName["map"]["sysfs"];
    EXPECT_EQ(nlohmann::json::parse(ask("show map " + dm + " json"))["map"]["name"], "data");
    EXPECT_EQ(nlohmann::json::parse(ask("show multipath /dev/mapper/data json"))["map"]["uuid"],
              kMapB);
    EXPECT_EQ(nlohmann::json::parse(ask(std::string("show map ") + kMapB + " json"))["map"]["name"],
              "data");
    EXPECT_EQ(ask("show map nosuchmap json"), "fail\n");
}

TEST_F(MultipathdCommandsTest, KeywordsMayBeShortenedWhileTheyStayUnambiguous) {
    EXPECT_EQ(ask("lis multipaths jso"), ask("show maps json"));
    EXPECT_EQ(ask("list multipaths json"), ask("show maps json"));
    // "ma" begins both "map" and "maps": as multipathd, no keyword, and
    // a word that is not the last one fails the command.
    EXPECT_EQ(ask("show ma json"), "fail\n");
    // "re" begins reconfigure, reinstate, reload, ...: no keyword.
    EXPECT_TRUE(ask("re").starts_with("re: not found\n"));
}

TEST_F(MultipathdCommandsTest, BadCommandsAreAnsweredAsMultipathdAnswersThem) {
    const std::string notFound = ask("show frobnicate");
    EXPECT_TRUE(notFound.starts_with("show frobnicate: not found\n")) << notFound;
    EXPECT_NE(notFound.find(" list|show maps|multipaths json\n"), std::string::npos);
    EXPECT_EQ(ask("frobnicate maps"), "fail\n");
    EXPECT_TRUE(ask("show map").starts_with("show map: Missing argument\n"));
    EXPECT_TRUE(ask("show json").starts_with("show json: Missing argument\n"));
    EXPECT_TRUE(ask("   ").starts_with("   : Missing argument\n"));
}

TEST_F(MultipathdCommandsTest, ACallerThatIsNotRootMayOnlyShow) {
    EXPECT_EQ(ask("fail path sdb", false), "permission deny: need to be root\n");
    EXPECT_EQ(ask("reconfigure", false), "permission deny: need to be root\n");
    EXPECT_EQ(ask("show maps json", false), ask("show maps json", true));
}

TEST_F(MultipathdCommandsTest, ACommandNotServedFailsAndSaysWhatToUseInstead) {
    EXPECT_EQ(ask("show blacklist"), "fail\n");
    EXPECT_NE(
        h_.logText().find("'show blacklist' is not served by mpathd; mpathctl config show does it"),
        std::string::npos);
}

// multipathd's "show config" is the configuration as it applies, built-in
// device table included; "local" leaves the table out. The text reads back
// into the configuration the daemon runs with.
TEST_F(MultipathdCommandsTest, ShowConfigIsTheConfigurationAsItAppliesAndReadsBack) {
    const std::string all = ask("show config");
    const std::string local = ask("show config local");
    EXPECT_TRUE(all.starts_with("defaults {\n")) << all;
    EXPECT_NE(all.find("    polling_interval "), std::string::npos) << all;
    EXPECT_NE(all.find("vendor \"NETAPP\""), std::string::npos);
    EXPECT_EQ(local.find("vendor \"NETAPP\""), std::string::npos) << local;
    const mpath::config::ConfigResult back = mpath::config::parseString(all);
    EXPECT_FALSE(back.hasErrors());
    EXPECT_EQ(back.config.effectiveGlobals().pollingInterval.value,
              h_.daemon().config().effectiveGlobals().pollingInterval.value);
    EXPECT_EQ(ask("show config", false), all);
}

TEST_F(MultipathdCommandsTest, FailAndReinstatePathSendTheMessagesAndAnswerOnceSent) {
    EXPECT_EQ(ask("fail path sdc"), "ok\n");
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " fail_path 8:32")) << h_.logText();
    EXPECT_EQ(map(kMapA)["path_groups"][1]["paths"][0]["dm_st"], "failed");
    // Checks leave a path failed on request failed.
    h_.advance(12s);
    EXPECT_FALSE(h_.called(std::string("message ") + kMapA + " reinstate_path 8:32"));
    EXPECT_EQ(ask("reinstate path /dev/sdc"), "ok\n");
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " reinstate_path 8:32"));
    EXPECT_EQ(ask("fail path 8:48"), "ok\n") << "a path by major:minor";
    EXPECT_TRUE(h_.called("message data fail_path 8:48"));
    EXPECT_EQ(ask("fail path sdz"), "fail\n");
    EXPECT_NE(h_.logText().find("'fail path sdz': no such path"), std::string::npos);
}

TEST_F(MultipathdCommandsTest, SwitchGroupTakesAnExistingGroupOnly) {
    EXPECT_EQ(ask("switchgroup map data group 2"), "ok\n");
    EXPECT_TRUE(h_.called("message data switch_group 2")) << h_.logText();
    EXPECT_EQ(map("data")["switch_grp"], 1);
    EXPECT_EQ(ask("switch map data group 3"), "fail\n");
    EXPECT_NE(h_.logText().find("has 2 path groups: there is no group 3"), std::string::npos);
    EXPECT_EQ(ask("switch map data group two"), "fail\n");
    EXPECT_EQ(ask("switch map nosuchmap group 1"), "fail\n");
    EXPECT_EQ(h_.count("message data switch_group"), 1u);
}

TEST_F(MultipathdCommandsTest, SuspendResumeAndReloadActOnTheMap) {
    EXPECT_EQ(ask("suspend map data"), "ok\n");
    EXPECT_TRUE(h_.called("suspend data"));
    EXPECT_EQ(map("data")["dm_st"], "suspend");
    EXPECT_EQ(ask("resume map data"), "ok\n");
    EXPECT_TRUE(h_.called("resume data"));
    EXPECT_EQ(map("data")["dm_st"], "active");
    const auto loads = map("data")["map_loads"].get<int>();
    EXPECT_EQ(ask("reload map data"), "ok\n");
    EXPECT_EQ(map("data")["map_loads"], loads + 1);
}

TEST_F(MultipathdCommandsTest, DisableQueueingHoldsUntilRestoreQueueingGivesTheConfiguredValue) {
    EXPECT_EQ(map("data")["features"], "1 queue_if_no_path");
    EXPECT_EQ(ask("disablequeueing map data"), "ok\n");
    EXPECT_TRUE(h_.called("message data fail_if_no_path"));
    h_.settle();
    EXPECT_EQ(map("data")["queueing"], "off");
    EXPECT_EQ(ask("restorequeueing map data"), "ok\n");
    h_.settle();
    // no_path_retry 3, as configured: queueing again, for 3 checks.
    EXPECT_EQ(map("data")["features"], "1 queue_if_no_path") << h_.logText();
    EXPECT_EQ(map("data")["queueing"], "3 chk");

    EXPECT_EQ(ask("disablequeueing maps"), "ok\n");
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " fail_if_no_path"));
    EXPECT_EQ(ask("restorequeueing maps"), "ok\n");
}

TEST_F(MultipathdCommandsTest, DelAndAddPathTakeAPathOutOfItsMapAndBack) {
    EXPECT_EQ(ask("del path sdb"), "ok\n");
    h_.settle();
    EXPECT_EQ(h_.table(kMapA).find("8:16"), std::string::npos) << h_.table(kMapA);
    EXPECT_EQ(ask("add path /dev/sdb"), "ok\n");
    h_.settle();
    EXPECT_NE(h_.table(kMapA).find("8:16"), std::string::npos) << h_.table(kMapA);
    EXPECT_EQ(ask("add path sdz"), "fail\n");
}

TEST_F(MultipathdCommandsTest, DelMapRemovesItAndDelMapsRemovesEveryMap) {
    EXPECT_EQ(ask("del map nosuchmap"), "fail\n");
    EXPECT_EQ(ask("remove map data"), "ok\n");
    EXPECT_TRUE(h_.called("remove data")) << h_.logText();
    EXPECT_EQ(ask("show map data json"), "fail\n");
    EXPECT_EQ(ask("del maps"), "ok\n");
    EXPECT_TRUE(h_.called(std::string("remove ") + kMapA));
    EXPECT_TRUE(h_.liveMaps().empty());
    EXPECT_EQ(ask("show maps"), "ok\n");
}

TEST_F(MultipathdCommandsTest, DelMapsActsOnTheMapsTheKernelHasOnly) {
    // A third LUN whose map the kernel refuses to make: mpathd keeps it
    // planned and tries again; it is nothing to remove.
    h_.dm().with([](mpath::dm::DeviceMapper &dm) {
        for (int i = 0; i < 8; ++i)
            static_cast<mpath::testing::FakeDeviceMapper &>(dm).failNext(
                mpath::testing::FakeDeviceMapper::Op::Create, EIO);
        return 0;
    });
    h_.addDisk("sdf", 80, 1, "36001405cccc", "active/optimized");
    h_.addDisk("sdg", 96, 2, "36001405cccc", "active/optimized");
    h_.inject("add", "sdf");
    h_.inject("add", "sdg");
    h_.settle();
    ASSERT_TRUE(h_.daemon().state().maps.count("36001405cccc")) << h_.logText();
    ASSERT_FALSE(h_.daemon().state().maps.at("36001405cccc").live);
    EXPECT_EQ(ask("disablequeueing maps"), "ok\n") << h_.logText();
    EXPECT_EQ(ask("del maps"), "ok\n") << h_.logText();
    EXPECT_TRUE(h_.called("remove data"));
}

TEST_F(MultipathdCommandsTest, ResizeReadsThePathSizesAndReloadsOnlyWhenTheyChanged) {
    const auto loads = map("data")["map_loads"].get<int>();
    EXPECT_EQ(ask("resize map data"), "ok\n");
    EXPECT_EQ(map("data")["map_loads"], loads) << "the same size: nothing to do";
    // The LUN grew and each path was rescanned, with no uevent seen.
    for (auto [name, minor, host, lun] : {std::tuple{"sdd", 48u, 1u, 2u}, {"sde", 64u, 2u, 3u}}) {
        mpath::testing::SysfsTreeBuilder::ScsiDisk d;
        d.name = name;
        d.minor = minor;
        d.host = host;
        d.lun = lun;
        d.sizeSectors = 4096;
        d.vendor = "ACME";
        d.model = "Array";
        d.accessState = "active/optimized";
        ASSERT_TRUE(h_.tree().addScsiDisk(d));
    }
    EXPECT_EQ(ask("resize map data"), "ok\n");
    EXPECT_EQ(map("data")["map_loads"], loads + 1);
    EXPECT_NE(ask("show map data topology").find("size=2.0M"), std::string::npos);
}

TEST_F(MultipathdCommandsTest, ResetStatsZeroesTheMapsCounters) {
    h_.injectMap("change", kMapA, "PATH_FAILED", "8:32");
    h_.settle();
    EXPECT_EQ(map(kMapA)["path_faults"], 1);
    EXPECT_EQ(ask(std::string("reset map ") + kMapA + " stats"), "ok\n");
    EXPECT_EQ(map(kMapA)["path_faults"], 0);
    EXPECT_EQ(map(kMapA)["map_loads"], 0);
    EXPECT_EQ(ask("reset maps stats"), "ok\n");
    EXPECT_EQ(map("data")["map_loads"], 0);
}

TEST_F(MultipathdCommandsTest, ForceQueueingDaemonKeepsQueueingWhenTheDaemonStops) {
    // queue_without_daemon is no (the default): stopping turns queueing
    // off, unless asked otherwise.
    EXPECT_EQ(ask("forcequeueing daemon"), "ok\n");
    EXPECT_EQ(ask("restorequeueing daemon"), "ok\n");
    EXPECT_EQ(ask("forcequeueing daemon"), "ok\n");
    h_.clearCalls();
    bool stopped = false;
    h_.daemon().stop([&] { stopped = true; });
    h_.settle();
    EXPECT_TRUE(stopped);
    EXPECT_EQ(h_.count("message"), 0u) << "queueing left on";
}

TEST_F(MultipathdCommandsTest, RestoreQueueingDaemonTurnsQueueingOffWhenTheDaemonStops) {
    EXPECT_EQ(ask("forcequeueing daemon"), "ok\n");
    EXPECT_EQ(ask("restorequeueing daemon"), "ok\n");
    h_.clearCalls();
    h_.daemon().stop([] {});
    h_.settle();
    EXPECT_TRUE(h_.called("message data fail_if_no_path"));
}

TEST_F(MultipathdCommandsTest, ShutdownStopsTheDaemonForRootOnly) {
    EXPECT_EQ(ask("shutdown", false), "permission deny: need to be root\n");
    EXPECT_EQ(shutdowns_, 0);
    EXPECT_EQ(ask("shutdown"), "ok\n");
    EXPECT_EQ(shutdowns_, 1);
}

TEST_F(MultipathdCommandsTest, ShowPathsAndShowMapsPadEveryColumnAsMultipathdDoes) {
    std::istringstream paths(ask("show paths"));
    std::string header, line;
    std::getline(paths, header);
    EXPECT_TRUE(std::regex_match(
        header, std::regex("hcil +dev dev_t pri dm_st  chk_st dev_st  next_check +")))
        << header;
    std::vector<std::string> rows;
    while (std::getline(paths, line))
        rows.push_back(line);
    ASSERT_EQ(rows.size(), 4u);
    for (const auto &r : rows)
        EXPECT_EQ(r.size(), header.size()) << "'" << r << "' against '" << header << "'";
    EXPECT_TRUE(std::regex_match(
        rows[0], std::regex("1:0:0:0 sdb 8:16  50  active ready  running [X.]{10} [0-5]/5")))
        << rows[0];
    EXPECT_TRUE(std::regex_match(
        rows[1], std::regex("2:0:0:1 sdc 8:32  1   active ready  running [X.]{10} [0-5]/5")))
        << rows[1];

    std::istringstream maps(ask("show maps"));
    std::getline(maps, header);
    EXPECT_TRUE(std::regex_match(header, std::regex("name +sysfs uuid +"))) << header;
    std::getline(maps, line);
    EXPECT_TRUE(std::regex_match(line, std::regex("36001405aaaa dm-[0-9]+ +36001405aaaa"))) << line;
    std::getline(maps, line);
    EXPECT_TRUE(std::regex_match(line, std::regex("data +dm-[0-9]+ +36001405bbbb"))) << line;

    EXPECT_EQ(ask("show path sdc"), "running\n");
    EXPECT_EQ(ask("show path /dev/sdb"), "running\n");
    EXPECT_EQ(ask("show path sdz"), "fail\n");
}

TEST_F(MultipathdCommandsTest, FormatsPrintTheWildcardsAsMultipathdDoes) {
    // Pretty: a header, every column padded, the last too; text as given.
    EXPECT_EQ(ask("show paths format \"%d %w %m %t %P\""),
              "dev uuid         multipath    dm_st  protocol   \n"
              "sdb 36001405aaaa 36001405aaaa active scsi:unspec\n"
              "sdc 36001405aaaa 36001405aaaa active scsi:unspec\n"
              "sdd 36001405bbbb data         active scsi:unspec\n"
              "sde 36001405bbbb data         active scsi:unspec\n");
    // Raw: neither; an unknown wildcard prints nothing.
    EXPECT_EQ(ask("show paths raw format \"%d:%D:%Z:%s\""),
              "sdb:8:16::ACME,Array\nsdc:8:32::ACME,Array\nsdd:8:48::ACME,Array\n"
              "sde:8:64::ACME,Array\n");
    EXPECT_EQ(ask("show maps raw format \"%n %N %Q %S %x %G\""),
              "36001405aaaa 2 off 1.0M 0 --\ndata 2 3 chk 1.0M 0 --\n");
    EXPECT_EQ(ask("show map nosuchmap raw format %n"), "fail\n");
    // One map: padded as in the table of every map, raw or not, with no
    // header line, as multipathd prints it.
    EXPECT_EQ(ask("show map data format \"%n %N\""), "data         2    \n");
    EXPECT_EQ(ask("show map data raw format \"%n|%Q\""), "data        |3 chk   \n");
    std::istringstream status(ask("show maps status"));
    std::string header, line;
    std::getline(status, header);
    EXPECT_EQ(header, "name         failback queueing paths dm-st  write_prot");
    std::getline(status, line);
    EXPECT_EQ(line, "36001405aaaa -        off      2     active rw        ");
    std::istringstream stats(ask("show maps stats"));
    std::getline(stats, header);
    EXPECT_EQ(header, "name         path_faults switch_grp map_loads total_q_time q_timeouts");
    const std::string wildcards = ask("show wildcards");
    EXPECT_TRUE(wildcards.starts_with("multipath format wildcards:\n%n  name\n%w  uuid\n"))
        << wildcards;
    EXPECT_NE(wildcards.find("\npath format wildcards:\n%w  uuid\n%i  hcil\n"), std::string::npos);
}

TEST_F(MultipathdCommandsTest, AMapThatLostEveryPathCountsAFailure) {
    h_.injectMap("change", kMapB, "PATH_FAILED", "8:48");
    h_.injectMap("change", kMapB, "PATH_FAILED", "8:64");
    h_.settle();
    EXPECT_EQ(ask("show maps raw format \"%n %x %0\""), "36001405aaaa 0 0\ndata 1 2\n")
        << h_.logText();
}

TEST_F(MultipathdCommandsTest, ShowTopologyDrawsMultipathdsTree) {
    const std::string t = ask("show map data topology");
    std::istringstream in(t);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    ASSERT_EQ(lines.size(), 6u) << t;
    EXPECT_TRUE(
        std::regex_match(lines[0], std::regex("data \\(36001405bbbb\\) dm-[0-9]+ ACME,Array")))
        << lines[0];
    EXPECT_EQ(lines[1], "size=1.0M features='1 queue_if_no_path' hwhandler='0' wp=rw");
    // Failover: a group per path, the last drawn with a backquote.
    EXPECT_EQ(lines[2], "|-+- policy='service-time 0' prio=50 status=enabled");
    EXPECT_EQ(lines[3], "| `- 1:0:0:2 sdd 8:48 active ready running");
    EXPECT_EQ(lines[4], "`-+- policy='service-time 0' prio=50 status=enabled");
    EXPECT_EQ(lines[5], "  `- 2:0:0:3 sde 8:64 active ready running");
    EXPECT_EQ(ask("show map nosuchmap topology"), "fail\n");
}

TEST_F(MultipathdCommandsTest, StatusAndDaemonSayWhatMultipathdSays) {
    EXPECT_EQ(ask("show status"),
              "path checker states:\nup                  4\n\npaths: 4\nbusy: False\n");
    EXPECT_EQ(ask("show daemon"), "pid " + std::to_string(::getpid()) + " idle\n");
}

TEST_F(MultipathdCommandsTest, MapStatsCountFaultsOfItsPaths) {
    h_.injectMap("change", kMapA, "PATH_FAILED", "8:32");
    h_.settle();
    const auto doc = nlohmann::json::parse(ask("show map " + std::string(kMapA) + " json"));
    EXPECT_EQ(doc["map"]["path_faults"], 1);
    EXPECT_EQ(nlohmann::json::parse(ask("show map data json"))["map"]["path_faults"], 0);
}

TEST_F(MultipathdCommandsTest, ReconfigureIsAnsweredAtOnceAndReadsTheConfigurationAgain) {
    h_.config(std::string(mpathd_test::kConfig) +
              "defaults {\n  path_selector \"round-robin 0\"\n}\n");
    EXPECT_EQ(ask("reconfigure"), "ok\n");
    h_.settle();
    EXPECT_EQ(nlohmann::json::parse(ask("show maps json"))["maps"][0]["path_groups"][0]["selector"],
              "round-robin 0");
}

} // namespace
