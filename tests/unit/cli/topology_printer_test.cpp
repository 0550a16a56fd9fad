#include "objects.h"
#include "topology_printer.h"

#include <gtest/gtest.h>
#include <sstream>

using mpathctl::ManagedObject;
using mpathctl::Objects;
using mpathctl::Properties;
using mpathctl::TopologyPrinter;

namespace {

const std::string root = "/org/mpathd/Multipath1";

Properties pathProperties(const std::string &name, const std::string &devt, const std::string &map,
                          const std::string &group, const std::string &dmState,
                          const std::string &checker) {
    return {{"Name", name},
            {"Device", "/dev/" + name},
            {"DevT", devt},
            {"Wwid", "36001405aaaa"},
            {"Vendor", std::string("ACME")},
            {"Product", std::string("Array")},
            {"Transport", std::string("iscsi")},
            {"TransportIds", std::map<std::string, std::string>{{"target_port_group", "1"}}},
            {"CheckerState", checker},
            {"DmState", dmState},
            {"AdminFailed", false},
            {"Priority", int64_t{50}},
            {"FailCount", uint64_t{0}},
            {"Map", map},
            {"Group", group}};
}

/// Two maps, out of order, and one path in none: what GetManagedObjects
/// of a small setup returns.
std::vector<ManagedObject> setup() {
    const std::string a = root + "/maps/36001405aaaa", b = root + "/maps/36001405bbbb";
    std::vector<ManagedObject> objects;
    objects.push_back({root + "/Manager",
                       {{"org.mpathd.Multipath1.Manager",
                         {{"Version", std::string("0.1.0")},
                          {"Target", std::string("lmpath")},
                          {"Ready", true},
                          {"Reconfiguring", false},
                          {"PendingMaps", uint64_t{0}},
                          {"ConfigFiles", std::vector<std::string>{"/etc/mpathd/mpathd.conf"}}}}}});
    objects.push_back({b,
                       {{"org.mpathd.Multipath1.Map",
                         {{"Name", std::string("mpathb")},
                          {"Wwid", std::string("36001405bbbb")},
                          {"Uuid", std::string("mpath-36001405bbbb")},
                          {"Target", std::string("lmpath")},
                          {"Size", uint64_t{10} << 30},
                          {"Features", std::vector<std::string>{}},
                          {"HardwareHandler", std::string("")},
                          {"State", std::string("failing")},
                          {"BlockDevice", std::string("/dev/dm-4")},
                          {"DevT", std::string("253:4")},
                          {"UsablePaths", uint64_t{0}},
                          {"Groups", std::vector<std::string>{b + "/groups/1"}},
                          {"Paths", std::vector<std::string>{root + "/paths/sdc"}}}}}});
    objects.push_back({b + "/groups/1",
                       {{"org.mpathd.Multipath1.PathGroup",
                         {{"Map", b},
                          {"Number", uint64_t{1}},
                          {"State", std::string("enabled")},
                          {"Priority", int64_t{0}},
                          {"Selector", std::string("round-robin 0")},
                          {"Paths", std::vector<std::string>{root + "/paths/sdc"}}}}}});
    objects.push_back(
        {a,
         {{"org.mpathd.Multipath1.Map",
           {{"Name", std::string("mpatha")},
            {"Wwid", std::string("36001405aaaa")},
            {"Uuid", std::string("mpath-36001405aaaa")},
            {"Target", std::string("lmpath")},
            {"Size", uint64_t{1} << 30},
            {"Features", std::vector<std::string>{"queue_if_no_path"}},
            {"HardwareHandler", std::string("1 alua")},
            {"QueueIfNoPath", true},
            {"NoPathRetry", std::string("queue")},
            {"Selector", std::string("service-time 0")},
            {"ActiveGroup", uint64_t{1}},
            {"State", std::string("ready")},
            {"BlockDevice", std::string("/dev/dm-3")},
            {"DevT", std::string("253:3")},
            {"UsablePaths", uint64_t{2}},
            {"Overrides", std::map<std::string, std::string>{{"path_selector", "runtime"}}},
            {"Groups", std::vector<std::string>{a + "/groups/2", a + "/groups/1"}},
            {"Paths", std::vector<std::string>{root + "/paths/sdd", root + "/paths/sdb",
                                               root + "/paths/sdaa"}}}}}});
    objects.push_back(
        {a + "/groups/1",
         {{"org.mpathd.Multipath1.PathGroup",
           {{"Map", a},
            {"Number", uint64_t{1}},
            {"State", std::string("active")},
            {"Priority", int64_t{50}},
            {"Selector", std::string("service-time 0")},
            {"Paths", std::vector<std::string>{root + "/paths/sdb", root + "/paths/sdd"}}}}}});
    objects.push_back({a + "/groups/2",
                       {{"org.mpathd.Multipath1.PathGroup",
                         {{"Map", a},
                          {"Number", uint64_t{2}},
                          {"State", std::string("enabled")},
                          {"Priority", int64_t{10}},
                          {"Selector", std::string("service-time 0")},
                          {"Paths", std::vector<std::string>{root + "/paths/sdaa"}}}}}});
    objects.push_back({root + "/paths/sdaa",
                       {{"org.mpathd.Multipath1.Path",
                         pathProperties("sdaa", "65:160", a, a + "/groups/2", "failed", "down")}}});
    objects.push_back({root + "/paths/sdd",
                       {{"org.mpathd.Multipath1.Path",
                         pathProperties("sdd", "8:48", a, a + "/groups/1", "active", "up")}}});
    objects.push_back({root + "/paths/sdb",
                       {{"org.mpathd.Multipath1.Path",
                         pathProperties("sdb", "8:16", a, a + "/groups/1", "active", "up")}}});
    objects.push_back({root + "/paths/sdc",
                       {{"org.mpathd.Multipath1.Path",
                         pathProperties("sdc", "8:32", b, b + "/groups/1", "failed", "down")}}});
    objects.push_back({root + "/paths/sde",
                       {{"org.mpathd.Multipath1.Path",
                         pathProperties("sde", "8:64", "/", "/", "unknown", "up")}}});
    return objects;
}

std::string printed(bool colour) {
    const Objects objects = Objects::fromManagedObjects(setup());
    std::ostringstream out;
    TopologyPrinter(colour).topology(objects, out);
    return out.str();
}

} // namespace

TEST(Objects, SortsMapsByNameAndPathsInTheKernelsNamingOrder) {
    const Objects objects = Objects::fromManagedObjects(setup());
    ASSERT_EQ(objects.maps.size(), 2u);
    EXPECT_EQ(objects.maps[0].name, "mpatha");
    EXPECT_EQ(objects.maps[1].name, "mpathb");
    std::vector<std::string> names;
    for (const auto &p : objects.paths)
        names.push_back(p.name);
    EXPECT_EQ(names, (std::vector<std::string>{"sdb", "sdc", "sdd", "sde", "sdaa"}));
    EXPECT_EQ(objects.maps[0].paths, (std::vector<std::string>{"sdb", "sdd", "sdaa"}));
    ASSERT_EQ(objects.maps[0].groups.size(), 2u);
    EXPECT_EQ(objects.maps[0].groups[0].number, 1u) << "groups by number, not by Groups' order";
    EXPECT_EQ(objects.path("sdaa")->mapName, "mpatha");
    EXPECT_EQ(objects.path("sdaa")->groupNumber, 2u);
    EXPECT_EQ(objects.path("sde")->mapName, "") << "\"/\" is no map";
    EXPECT_EQ(objects.manager.configFiles.size(), 1u);
}

TEST(Objects, OrdersNamesAsTheKernelGivesThem) {
    EXPECT_TRUE(Objects::nameLess("sdz", "sdaa"));
    EXPECT_TRUE(Objects::nameLess("nvme0n2", "nvme0n10"));
    EXPECT_TRUE(Objects::nameLess("mpathz", "mpathaa"));
    EXPECT_FALSE(Objects::nameLess("sdb", "sdb"));
    EXPECT_TRUE(Objects::nameLess("sd", "sda"));
}

TEST(Objects, IgnoresValuesOfAnotherTypeThanExpected) {
    std::vector<ManagedObject> objects{
        {root + "/paths/sdb",
         {{"org.mpathd.Multipath1.Path", {{"Name", std::string("sdb")}, {"Priority", true}}}}}};
    const Objects o = Objects::fromManagedObjects(objects);
    ASSERT_EQ(o.paths.size(), 1u);
    EXPECT_EQ(o.paths[0].priority, 0);
}

TEST(TopologyPrinter, PrintsTheTopologyLikeMultipathLl) {
    EXPECT_EQ(printed(false), "mpatha (36001405aaaa) dm-3 ACME,Array\n"
                              "size=1.0G features='1 queue_if_no_path' hwhandler='1 alua' "
                              "target=lmpath\n"
                              "|-+- policy='service-time 0' prio=50 status=active\n"
                              "| |- sdb 8:16 active up\n"
                              "| `- sdd 8:48 active up\n"
                              "`-+- policy='service-time 0' prio=10 status=enabled\n"
                              "  `- sdaa 65:160 failed down\n"
                              "mpathb (36001405bbbb) dm-4 ACME,Array\n"
                              "size=10G features='0' hwhandler='0' target=lmpath state=failing\n"
                              "`-+- policy='round-robin 0' prio=0 status=enabled\n"
                              "  `- sdc 8:32 failed down\n");
}

TEST(TopologyPrinter, ColoursStatesWhenAsked) {
    const std::string out = printed(true);
    EXPECT_NE(out.find("\033[1mmpatha\033[0m (36001405aaaa)"), std::string::npos) << out;
    EXPECT_NE(out.find("| |- sdb 8:16 \033[32mactive\033[0m \033[32mup\033[0m\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("  `- sdaa 65:160 \033[31mfailed\033[0m \033[31mdown\033[0m\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("status=\033[32mactive\033[0m"), std::string::npos) << out;
    EXPECT_NE(out.find("state=\033[31mfailing\033[0m"), std::string::npos) << out;
    EXPECT_EQ(printed(false).find('\033'), std::string::npos);
}

TEST(TopologyPrinter, ListsMapsAndPathsOneALine) {
    const Objects objects = Objects::fromManagedObjects(setup());
    std::ostringstream maps, paths;
    TopologyPrinter(false).maps(objects, maps);
    TopologyPrinter(false).paths(objects, paths);
    EXPECT_EQ(
        maps.str(),
        "NAME             SYSFS    WWID                               STATE     PATHS  SIZE\n"
        "mpatha           dm-3     36001405aaaa                       ready     2/3    1.0G\n"
        "mpathb           dm-4     36001405bbbb                       failing   0/1    10G\n");
    EXPECT_EQ(paths.str(),
              "DEV        DEVT     MAP              GROUP DM       CHECKER   PRIO  FAILS\n"
              "sdb        8:16     mpatha           1     active   up        50    0\n"
              "sdc        8:32     mpathb           1     failed   down      50    0\n"
              "sdd        8:48     mpatha           1     active   up        50    0\n"
              "sde        8:64     -                -     unknown  up        50    0\n"
              "sdaa       65:160   mpatha           2     failed   down      50    0\n");
}

TEST(Objects, ReadsBackTheMapsOfTheShowMapsDocument) {
    // What DescribeMaps answers is that document: read back, every map
    // prints as it did.
    const Objects objects = Objects::fromManagedObjects(setup());
    const std::string document = TopologyPrinter::mapsJson(objects).dump(2);
    const Objects maps = Objects::fromMapsDocument(document);
    EXPECT_EQ(TopologyPrinter::mapsJson(maps).dump(2), document);
    EXPECT_TRUE(maps.paths.empty());
    std::ostringstream before, after;
    TopologyPrinter(false).maps(objects, before);
    TopologyPrinter(false).maps(maps, after);
    EXPECT_EQ(after.str(), before.str());
}

TEST(Objects, ReadsBackTheShowTopologyDocument) {
    // What DescribeTopology answers: read back, the topology, the maps and
    // the paths print as they did, the paths in no map included.
    const Objects objects = Objects::fromManagedObjects(setup());
    const std::string document = TopologyPrinter::topologyJson(objects).dump(2);
    const Objects read = Objects::fromTopologyDocument(document);
    EXPECT_EQ(TopologyPrinter::topologyJson(read).dump(2), document);
    ASSERT_EQ(read.paths.size(), objects.paths.size());
    for (auto print :
         {&TopologyPrinter::topology, &TopologyPrinter::maps, &TopologyPrinter::paths}) {
        std::ostringstream before, after;
        (TopologyPrinter(false).*print)(objects, before);
        (TopologyPrinter(false).*print)(read, after);
        EXPECT_EQ(after.str(), before.str());
    }
    EXPECT_THROW(Objects::fromTopologyDocument("{\"maps\": [], \"version\": 1}"),
                 std::runtime_error);
}

TEST(Objects, RefusesADocumentWithoutMaps) {
    EXPECT_THROW(Objects::fromMapsDocument("{\"version\": 1}"), std::runtime_error);
    EXPECT_THROW(Objects::fromMapsDocument("not json"), std::runtime_error);
    EXPECT_NO_THROW(Objects::fromMapsDocument("{\"maps\": [], \"version\": 1}"));
}

TEST(TopologyPrinter, JsonCarriesVersionOneAndEveryField) {
    const Objects objects = Objects::fromManagedObjects(setup());
    const nlohmann::json j = TopologyPrinter::topologyJson(objects);
    EXPECT_EQ(j["version"], 1);
    ASSERT_EQ(j["maps"].size(), 2u);
    const auto &a = j["maps"][0];
    EXPECT_EQ(a["name"], "mpatha");
    EXPECT_EQ(a["wwid"], "36001405aaaa");
    EXPECT_EQ(a["uuid"], "mpath-36001405aaaa");
    EXPECT_EQ(a["sizeBytes"], uint64_t{1} << 30);
    EXPECT_EQ(a["features"], nlohmann::json::array({"queue_if_no_path"}));
    EXPECT_EQ(a["queueIfNoPath"], true);
    EXPECT_EQ(a["noPathRetry"], "queue");
    EXPECT_EQ(a["activeGroup"], 1);
    EXPECT_EQ(a["blockDevice"], "/dev/dm-3");
    EXPECT_EQ(a["overrides"]["path_selector"], "runtime");
    EXPECT_EQ(a["groups"][1]["paths"], nlohmann::json::array({"sdaa"}));
    EXPECT_EQ(a["groups"][0]["state"], "active");
    EXPECT_EQ(a["paths"], nlohmann::json::array({"sdb", "sdd", "sdaa"}));
    ASSERT_EQ(j["paths"].size(), 5u);
    const auto &sde = j["paths"][3];
    EXPECT_EQ(sde["name"], "sde");
    EXPECT_TRUE(sde["map"].is_null());
    EXPECT_TRUE(sde["group"].is_null());
    EXPECT_EQ(j["paths"][0]["map"], "mpatha");
    EXPECT_EQ(j["paths"][0]["group"], 1);
    EXPECT_EQ(j["paths"][0]["transportIds"]["target_port_group"], "1");

    const nlohmann::json one = TopologyPrinter::mapJson(objects, objects.maps[1]);
    EXPECT_EQ(one["version"], 1);
    EXPECT_EQ(one["map"]["name"], "mpathb");
    ASSERT_EQ(one["paths"].size(), 1u);
    EXPECT_EQ(one["paths"][0]["name"], "sdc");
    const nlohmann::json manager = TopologyPrinter::managerJson(objects.manager);
    EXPECT_EQ(manager["manager"]["target"], "lmpath");
    EXPECT_EQ(manager["manager"]["ready"], true);
}

TEST(TopologyPrinter, PrintsSizesAsMultipathDoes) {
    EXPECT_EQ(TopologyPrinter::humanSize(64ull << 20), "64M");
    EXPECT_EQ(TopologyPrinter::humanSize(3ull << 29), "1.5G");
    EXPECT_EQ(TopologyPrinter::humanSize(2ull << 40), "2.0T");
    EXPECT_EQ(TopologyPrinter::humanSize(512), "0.5K");
}
