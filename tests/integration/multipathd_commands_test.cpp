// multipathd's commands answered from mpathd's state: the words, layouts
// and refusals multipathd's clients parse.

#include "bus_harness.h"
#include "daemon_harness.h"
#include "multipathd_commands.h"

#include <gtest/gtest.h>
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
        commands_.emplace(h_.daemon());
    }

    std::string ask(const std::string &command, bool root = true) {
        return commands_->answer(command, root);
    }

    mpathd_test::DaemonHarness h_;
    std::optional<mpathd::MultipathdCommands> commands_;
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
    const auto reloads = h_.daemon().counters().reloads;
    EXPECT_EQ(ask("reload map data"), "fail\n");
    h_.settle();
    EXPECT_EQ(h_.daemon().counters().reloads, reloads);
    EXPECT_NE(
        h_.logText().find("'reload map' is not served by mpathd; mpathctl reload MAP does it"),
        std::string::npos);
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
