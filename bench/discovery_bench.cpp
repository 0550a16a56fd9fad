// Discovery, grouping and table building for 4096 paths / 1024 maps (four
// paths per LUN, one per SCSI host, ALUA groups alternating) from a
// generated sysfs tree.
#include "mpath/config_parser.h"
#include "mpath/discovery.h"
#include "mpath/grouping.h"
#include "mpath/sysfs_tree_builder.h"
#include "mpath/sysfs_udev_properties.h"
#include "mpath/table_planner.h"

#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

using namespace mpath;

namespace {

constexpr unsigned kMaps = 1024;
constexpr unsigned kPathsPerMap = 4;

// "sda".."sdz", "sdaa".. as the kernel names disks.
std::string diskName(unsigned index) {
    std::string suffix;
    unsigned n = index + 1;
    while (n > 0) {
        --n;
        suffix.insert(suffix.begin(), static_cast<char>('a' + n % 26));
        n /= 26;
    }
    return "sd" + suffix;
}

std::string lunWwid(unsigned lun) {
    char hex[33];
    std::snprintf(hex, sizeof(hex), "6001405%025x", lun);
    return hex;
}

// One tree per process, with and without udev property files.
class Tree {
public:
    Tree() {
        char tmpl[] = "/tmp/mpath-bench-XXXXXX";
        if (::mkdtemp(tmpl) == nullptr)
            std::abort();
        dir_ = tmpl;
        build(dir_ + "/udev-on", true);
        build(dir_ + "/udev-off", false);
    }
    ~Tree() { std::filesystem::remove_all(dir_); }

    std::string root(bool udev) const { return dir_ + (udev ? "/udev-on" : "/udev-off"); }

private:
    static void build(const std::string &dir, bool withUdev) {
        SysfsTreeBuilder b(dir);
        for (unsigned lun = 0; lun < kMaps; ++lun) {
            for (unsigned host = 0; host < kPathsPerMap; ++host) {
                unsigned index = lun * kPathsPerMap + host;
                SysfsTreeBuilder::ScsiDisk d;
                d.name = diskName(index);
                d.major = 8 + index / 16;
                d.minor = (index % 16) * 16;
                d.host = host;
                d.lun = lun;
                d.vpdPage83 = SysfsTreeBuilder::naaPage83(lunWwid(lun), host % 2 ? 2 : 1);
                d.vpdPage80 = SysfsTreeBuilder::page80("SN" + std::to_string(lun));
                d.accessState = host % 2 ? "active/non-optimized" : "active/optimized";
                if (withUdev)
                    d.udev = {{"DEVNAME", "/dev/" + d.name},
                              {"ID_SERIAL", "3" + lunWwid(lun)},
                              {"ID_BUS", "scsi"}};
                if (b.addScsiDisk(d) < 0)
                    std::abort();
            }
        }
    }

    std::string dir_;
};

const Tree &tree() {
    static Tree t;
    return t;
}

void discoverAll(benchmark::State &state, bool udev) {
    std::string root = tree().root(udev);
    Discovery discovery{Sysfs(root + "/sys")};
    SysfsUdevProperties props(root + "/udev");
    for (auto _ : state) {
        std::vector<Path> paths = discovery.discoverAll(props);
        if (paths.size() != kMaps * kPathsPerMap)
            state.SkipWithError("wrong path count");
        benchmark::DoNotOptimize(paths.data());
    }
    state.counters["paths"] = kMaps * kPathsPerMap;
    state.counters["paths/s"] = benchmark::Counter(
        double(kMaps * kPathsPerMap) * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_DiscoverAllWithUdevProperties(benchmark::State &state) {
    discoverAll(state, true);
}
void BM_DiscoverAllFromVpdPage83(benchmark::State &state) {
    discoverAll(state, false);
}

std::vector<Path> discovered() {
    std::string root = tree().root(true);
    Discovery discovery{Sysfs(root + "/sys")};
    std::vector<Path> paths = discovery.discoverAll(SysfsUdevProperties(root + "/udev"));
    for (Path &p : paths)
        p.priority = p.ids.targetPortGroup == 1 ? 50 : 10;
    return paths;
}

std::vector<Map> group(std::vector<Path> paths) {
    std::vector<Map> maps;
    for (WwidPaths &w : Grouping::byWwid(std::move(paths)))
        maps.push_back(Grouping::buildMap(std::move(w), GroupingPolicy::GroupByPrio));
    return maps;
}

void BM_GroupIntoMaps(benchmark::State &state) {
    const std::vector<Path> paths = discovered();
    for (auto _ : state) {
        std::vector<Map> maps = group(paths);
        if (maps.size() != kMaps || maps[0].groups.size() != 2)
            state.SkipWithError("wrong grouping");
        benchmark::DoNotOptimize(maps.data());
    }
    state.counters["maps"] = kMaps;
}

void BM_DiscoverAndGroup(benchmark::State &state) {
    std::string root = tree().root(true);
    Discovery discovery{Sysfs(root + "/sys")};
    SysfsUdevProperties props(root + "/udev");
    for (auto _ : state) {
        std::vector<Map> maps = group(discovery.discoverAll(props));
        if (maps.size() != kMaps)
            state.SkipWithError("wrong map count");
        benchmark::DoNotOptimize(maps.data());
    }
    state.counters["paths"] = kMaps * kPathsPerMap;
    state.counters["maps"] = kMaps;
}

// The whole plan, as mpathd and `mpathctl plan` make it: discovery,
// blacklist, priorities (the LIO-ORG built-in entry asks for alua; with no
// SCSI access here it falls back to sysfs access_state, as on a host whose
// RTPG fails), find_multipaths, grouping, naming and the table text.
void BM_PlanTables(benchmark::State &state) {
    std::string root = tree().root(true);
    ConfigResult cfg = ConfigParser::parseString(
        "defaults {\n find_multipaths off\n user_friendly_names no\n}\n", "bench.conf", true);
    if (cfg.hasErrors()) {
        state.SkipWithError("configuration rejected");
        return;
    }
    Sysfs sysfs(root + "/sys");
    SysfsUdevProperties props(root + "/udev");
    PlanOptions opts{{}, {}, PrioritizerContext{sysfs, "/dev", {}, {}, {}, {}}};
    opts.prioritizers.scsiCommand = [](const std::string &, std::span<const uint8_t>,
                                       std::vector<uint8_t> &,
                                       std::chrono::milliseconds) { return -ENODEV; };
    size_t tableBytes = 0;
    for (auto _ : state) {
        Plan plan = TablePlanner::plan(cfg.config, sysfs, props, opts);
        if (plan.maps.size() != kMaps || plan.maps[0].map.groups.size() != 2 ||
            plan.maps[0].table.empty()) {
            state.SkipWithError("wrong plan");
            break;
        }
        tableBytes = 0;
        for (const PlannedMap &m : plan.maps)
            tableBytes += m.table.size();
        benchmark::DoNotOptimize(plan.maps.data());
    }
    state.counters["paths"] = kMaps * kPathsPerMap;
    state.counters["maps"] = kMaps;
    state.counters["table_bytes"] = double(tableBytes);
}

} // namespace

BENCHMARK(BM_DiscoverAllWithUdevProperties)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DiscoverAllFromVpdPage83)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GroupIntoMaps)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DiscoverAndGroup)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlanTables)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
