// mpathctl, the real binary, against the D-Bus API on the test bus: what a
// user types and what they see.

#include "bus_harness.h"

#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#ifdef MPATHCTL

namespace mpathd_test {

/// The fixture's maps and paths, asked through mpathctl on the system bus.
class MpathctlBusTest : public BusFixture {
protected:
    /// Runs `mpathctl --bus system ARGS` against the test bus.
    /// \return its exit status; \a out gets stdout and stderr
    int mpathctl(const std::string &args, std::string *out = nullptr) {
        return runCommand(
            "DBUS_SYSTEM_BUS_ADDRESS=" + address_ + " " MPATHCTL " --bus system " + args, out);
    }

    /// `mpathctl ARGS --json`, parsed; fails the test when it is not JSON.
    nlohmann::json json(const std::string &args) {
        std::string out;
        EXPECT_EQ(mpathctl(args + " --json", &out), 0) << out;
        nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << out;
        return j;
    }

    /// Waits until every path has been checked: the first checks run on
    /// workers and answer in their own time ("unchecked" before), and
    /// what a user sees changes with them.
    bool everyPathChecked() {
        return h_.advanceUntil(
            [this] {
                for (const char *p : {"sdb", "sdc", "sdd", "sde"}) {
                    auto *v = published(mpathd::BusService::pathPath(p), "CheckerState");
                    if (!v || std::get<std::string>(*v) != "up")
                        return false;
                }
                return true;
            },
            10s);
    }
};

TEST_F(MpathctlBusTest, ShowTopologyPrintsEveryMapWithItsGroupsAndPaths) {
    ASSERT_TRUE(everyPathChecked()) << h_.logText();
    // Each map shows the node it got; which map got dm-0 depends on which
    // creation ended first, which the workers decide.
    auto node = [this](const char *wwid) {
        auto *v = published(mpathd::BusService::mapPath(wwid), "BlockDevice");
        const std::string dev = v ? std::get<std::string>(*v) : "";
        return dev.rfind("/dev/", 0) == 0 ? dev.substr(5) : "(no node: '" + dev + "')";
    };
    const std::string a = node(kMapA), b = node(kMapB);
    EXPECT_NE(a, b);
    EXPECT_TRUE((a == "dm-0" && b == "dm-1") || (a == "dm-1" && b == "dm-0")) << a << " " << b;
    std::string out;
    ASSERT_EQ(mpathctl("--color=never show topology", &out), 0) << out;
    // Named by their WWIDs (no user_friendly_names), in name order; the
    // groups' priorities are their paths' (prio sysfs: 50 optimized, 1
    // standby).
    EXPECT_EQ(out, "36001405aaaa " + a +
                       " ACME,Array\n"
                       "size=1.0M features='0' hwhandler='0' target=multipath\n"
                       "|-+- policy='service-time 0' prio=50 status=enabled\n"
                       "| `- sdb 8:16 active up\n"
                       "`-+- policy='service-time 0' prio=1 status=enabled\n"
                       "  `- sdc 8:32 active up\n"
                       "36001405bbbb " +
                       b +
                       " ACME,Array\n"
                       "size=1.0M features='0' hwhandler='0' target=multipath\n"
                       "|-+- policy='service-time 0' prio=50 status=enabled\n"
                       "| `- sdd 8:48 active up\n"
                       "`-+- policy='service-time 0' prio=1 status=enabled\n"
                       "  `- sde 8:64 active up\n");
}

TEST_F(MpathctlBusTest, ShowMapsJsonListsBothMapsWithTheirPaths) {
    const nlohmann::json j = json("show maps");
    EXPECT_EQ(j.value("version", 0), 1) << j.dump(2);
    ASSERT_TRUE(j.contains("maps")) << j.dump(2);
    ASSERT_EQ(j["maps"].size(), 2u) << j.dump(2);
    std::map<std::string, std::vector<std::string>> paths;
    for (const auto &m : j["maps"]) {
        EXPECT_EQ(m.value("name", ""), m.value("wwid", "")) << m.dump(2);
        std::vector<std::string> names;
        for (const auto &p : m["paths"])
            names.push_back(p.get<std::string>());
        paths[m.value("wwid", "")] = names;
    }
    EXPECT_EQ(paths, (std::map<std::string, std::vector<std::string>>{{kMapA, {"sdb", "sdc"}},
                                                                      {kMapB, {"sdd", "sde"}}}))
        << j.dump(2);
}

TEST_F(MpathctlBusTest, ShowMapsJsonPrintsWhatShowTopologyReadsOfTheMapsLaidOutAlike) {
    // show maps reads the daemon's document, show topology every object:
    // the maps are the same, down to the layout.
    std::string maps, topology;
    ASSERT_EQ(mpathctl("show maps --json", &maps), 0) << maps;
    ASSERT_EQ(mpathctl("show topology --json", &topology), 0) << topology;
    const nlohmann::json m = nlohmann::json::parse(maps, nullptr, false);
    const nlohmann::json t = nlohmann::json::parse(topology, nullptr, false);
    ASSERT_FALSE(m.is_discarded()) << maps;
    ASSERT_FALSE(t.is_discarded()) << topology;
    EXPECT_EQ(m["maps"], t["maps"]) << maps << topology;
    ASSERT_EQ(m["maps"].size(), 2u) << maps;
    EXPECT_EQ(m["maps"][0]["groups"].size(), 2u) << maps;
    EXPECT_EQ(maps, m.dump(2) + "\n");
    EXPECT_EQ(m.size(), 2u) << "only version and maps: " << maps;
}

TEST_F(MpathctlBusTest, ShowTopologyJsonSaysOfEachMapAndPathWhatShowMapAndShowPathSay) {
    // show topology and show paths print the daemon's DescribeTopology
    // document; show map and show path build theirs from the objects
    // (GetManagedObjects). Both say the same of every map and path.
    ASSERT_TRUE(everyPathChecked()) << h_.logText();
    std::string topology;
    ASSERT_EQ(mpathctl("show topology --json", &topology), 0) << topology;
    const nlohmann::json t = nlohmann::json::parse(topology, nullptr, false);
    ASSERT_FALSE(t.is_discarded()) << topology;
    EXPECT_EQ(topology, t.dump(2) + "\n");
    ASSERT_EQ(t["maps"].size(), 2u) << topology;
    ASSERT_EQ(t["paths"].size(), 4u) << topology;
    std::map<std::string, nlohmann::json> paths;
    for (const auto &p : t["paths"])
        paths[p["name"].get<std::string>()] = p;

    for (const auto &m : t["maps"]) {
        const nlohmann::json one = json("show map " + m["wwid"].get<std::string>());
        EXPECT_EQ(one["map"], m) << one.dump(2) << topology;
        ASSERT_EQ(one["paths"].size(), m["paths"].size()) << one.dump(2);
        for (const auto &p : one["paths"]) {
            EXPECT_EQ(p, paths[p["name"].get<std::string>()]) << topology;
            EXPECT_EQ(p["map"], m["name"]) << p.dump(2);
            EXPECT_TRUE(p["group"].is_number()) << p.dump(2);
        }
    }
    for (const auto &[name, p] : paths)
        EXPECT_EQ(json("show path " + name)["path"], p) << topology;
    EXPECT_EQ(json("show paths")["paths"], t["paths"]) << topology;
}

TEST_F(MpathctlBusTest, ShowMapsPrintsALineAMapWithItsUsableAndAllPaths) {
    std::string out;
    ASSERT_EQ(mpathctl("--color=never show maps", &out), 0) << out;
    std::istringstream lines(out);
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::vector<std::string> row;
        for (std::string w; words >> w;)
            row.push_back(w);
        rows.push_back(row);
    }
    ASSERT_EQ(rows.size(), 3u) << out;
    EXPECT_EQ(rows[0],
              (std::vector<std::string>{"NAME", "SYSFS", "WWID", "STATE", "PATHS", "SIZE"}));
    for (size_t i = 1; i < 3; ++i) {
        ASSERT_EQ(rows[i].size(), 6u) << out;
        EXPECT_EQ(rows[i][0], i == 1 ? kMapA : kMapB) << out;
        EXPECT_EQ(rows[i][2], rows[i][0]) << out;
        EXPECT_EQ(rows[i][1].rfind("dm-", 0), 0u) << out;
        EXPECT_EQ(rows[i][4].substr(rows[i][4].find('/')), "/2") << out;
        EXPECT_EQ(rows[i][5], "1.0M") << out;
    }
}

TEST_F(MpathctlBusTest, SetSelectorReloadsTheMapAndShowMapSaysSo) {
    std::string out;
    ASSERT_EQ(mpathctl(std::string("set map ") + kMapB + " selector queue-length", &out), 0) << out;
    EXPECT_NE(h_.table(kMapB).find("queue-length"), std::string::npos) << h_.table(kMapB);
    const nlohmann::json j = json(std::string("show map ") + kMapB);
    EXPECT_EQ(j["map"].value("selector", ""), "queue-length 0") << j.dump(2);
    EXPECT_EQ(j["map"]["overrides"], (nlohmann::json{{"path_selector", "runtime"}})) << j.dump(2);
}

TEST_F(MpathctlBusTest, SetPgInitRetriesOutOfRangeFailsWithTheLimitAndChangesNothing) {
    std::string out;
    EXPECT_EQ(mpathctl(std::string("set map ") + kMapA + " pg-init-retries 99", &out), 1) << out;
    EXPECT_NE(out.find("from 0 to 50"), std::string::npos) << out;
    EXPECT_TRUE(h_.calls().empty()) << h_.calls().front();
}

TEST_F(MpathctlBusTest, SetOnAnUnknownMapFailsAndNamesIt) {
    std::string out;
    EXPECT_EQ(mpathctl("set map nosuch selector round-robin", &out), 1) << out;
    EXPECT_NE(out.find("'nosuch'"), std::string::npos) << out;
    EXPECT_NE(out.find("(NotFound)"), std::string::npos) << out;
    EXPECT_TRUE(h_.calls().empty()) << h_.calls().front();
}

TEST_F(MpathctlBusTest, FailPathLeavesItFailedUntilReinstatePath) {
    std::string out;
    ASSERT_EQ(mpathctl("fail path sdc", &out), 0) << out;
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " fail_path 8:32")) << h_.logText();
    nlohmann::json j = json("show path sdc");
    EXPECT_EQ(j["path"].value("dmState", ""), "failed") << j.dump(2);
    EXPECT_TRUE(j["path"].value("adminFailed", false)) << j.dump(2);

    ASSERT_EQ(mpathctl("reinstate path sdc", &out), 0) << out;
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " reinstate_path 8:32"))
        << h_.logText();
    j = json("show path sdc");
    EXPECT_EQ(j["path"].value("dmState", ""), "active") << j.dump(2);
    EXPECT_FALSE(j["path"].value("adminFailed", true)) << j.dump(2);
}

TEST_F(MpathctlBusTest, ReconfigureSucceedsAndEndsARuntimeSetting) {
    std::string out;
    ASSERT_EQ(mpathctl(std::string("set map ") + kMapB + " selector queue-length", &out), 0) << out;
    EXPECT_EQ(mpathctl("reconfigure", &out), 0) << out;
    EXPECT_EQ(h_.table(kMapB).find("queue-length"), std::string::npos) << h_.table(kMapB);
    const nlohmann::json j = json(std::string("show map ") + kMapB);
    EXPECT_EQ(j["map"].value("selector", ""), "service-time 0") << j.dump(2);
    EXPECT_TRUE(j["map"]["overrides"].empty()) << j.dump(2);
}

TEST_F(MpathctlBusTest, UnknownSubcommandIsAUsageError) {
    std::string out;
    EXPECT_EQ(mpathctl("frobnicate", &out), 2) << out;
    EXPECT_NE(out.find("frobnicate"), std::string::npos) << out;
}

TEST_F(MpathctlBusTest, UnknownFlagIsAUsageError) {
    std::string out;
    EXPECT_EQ(mpathctl("show maps --no-such-flag", &out), 2) << out;
    EXPECT_NE(out.find("--no-such-flag"), std::string::npos) << out;
}

TEST_F(MpathctlBusTest, WatchPrintsAChangeAsItHappens) {
    // A change made while watch runs (busctl, half a second in), then
    // watch is interrupted as a user would.
    std::string out;
    const std::string change = "busctl --address=" + address_ + " call org.mpathd.Multipath1 " +
                               mpathd::BusService::mapPath(kMapA) +
                               " org.mpathd.Multipath1.Map SetPathSelector 'sa{sv}' round-robin 0";
    ASSERT_EQ(runCommand("{ (sleep 0.5; " + change +
                             " >/dev/null) & DBUS_SYSTEM_BUS_ADDRESS=" + address_ +
                             " timeout -s INT 3 " MPATHCTL " --bus system watch --json;"
                             " wait; }",
                         &out),
              0)
        << out;
    bool seen = false;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        ASSERT_FALSE(j.is_discarded()) << "not a JSON line: " << line;
        seen = seen || line.find("round-robin 0") != std::string::npos;
    }
    EXPECT_TRUE(seen) << out;
}

} // namespace mpathd_test

#else

TEST(MpathctlBus, SkipsWithoutTheMpathctlBinary) {
    GTEST_SKIP() << "mpathctl is not built in this tree";
}

#endif
