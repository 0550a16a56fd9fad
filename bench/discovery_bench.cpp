// Discovery, grouping and table building for 4096 paths / 1024 maps (four
// paths per LUN, one per SCSI host, ALUA groups alternating) from a
// generated sysfs tree.
#include "mpath/config/parser.h"
#include "mpath/discovery/discovery.h"
#include "mpath/discovery/udev_property_files.h"
#include "mpath/policy/gatherer.h"
#include "mpath/policy/grouping.h"
#include "mpath/policy/planner.h"
#include "mpath/testing/sysfs_tree_builder.h"

#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

using namespace mpath;
using namespace mpath::discovery;
using namespace mpath::policy;
using config::ConfigResult;
using config::GroupingPolicy;
using model::Map;
using model::Path;
using mpath::testing::SysfsTreeBuilder;

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
                if (!b.addScsiDisk(d))
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
    UdevPropertyFiles props(root + "/udev");
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
    std::vector<Path> paths = discovery.discoverAll(UdevPropertyFiles(root + "/udev"));
    for (Path &p : paths)
        p.priority = p.ids.targetPortGroup == 1 ? 50 : 10;
    return paths;
}

std::vector<Map> group(std::vector<Path> paths) {
    std::vector<Map> maps;
    for (WwidPaths &w : byWwid(std::move(paths)))
        maps.push_back(buildMap(std::move(w), GroupingPolicy::GroupByPrio));
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
    UdevPropertyFiles props(root + "/udev");
    for (auto _ : state) {
        std::vector<Map> maps = group(discovery.discoverAll(props));
        if (maps.size() != kMaps)
            state.SkipWithError("wrong map count");
        benchmark::DoNotOptimize(maps.data());
    }
    state.counters["paths"] = kMaps * kPathsPerMap;
    state.counters["maps"] = kMaps;
}

// What mpathd and `mpathctl plan` gather from the system: discovery and
// priorities (the LIO-ORG built-in entry asks for alua; with no SCSI access
// here its commands fail at once and it falls back to the access_state
// discovery read, as on a host whose RTPG fails).
PlanInput gathered(const config::Config &config, const std::string &root) {
    Gatherer::Options o;
    o.prio = prio::Context::noDevices();
    return gatherNow(config, Sysfs(root + "/sys"), UdevPropertyFiles(root + "/udev"), std::move(o));
}

ConfigResult benchConfig() {
    return config::parseString("defaults {\n find_multipaths off\n user_friendly_names no\n}\n",
                               "bench.conf", true);
}

void BM_GatherPlanInput(benchmark::State &state) {
    std::string root = tree().root(true);
    ConfigResult cfg = benchConfig();
    for (auto _ : state) {
        PlanInput in = gathered(cfg.config, root);
        if (in.paths.size() != kMaps * kPathsPerMap || in.paths[0].priority < 0) {
            state.SkipWithError("wrong input");
            break;
        }
        benchmark::DoNotOptimize(in.paths.data());
    }
    state.counters["paths"] = kMaps * kPathsPerMap;
}

// The pure plan alone, from gathered input: blacklist, find_multipaths,
// grouping, naming and the table text.
void BM_PlanFromInput(benchmark::State &state) {
    std::string root = tree().root(true);
    ConfigResult cfg = benchConfig();
    const PlanInput in = gathered(cfg.config, root);
    size_t tableBytes = 0;
    for (auto _ : state) {
        Plan p = policy::plan(cfg.config, in);
        if (p.maps.size() != kMaps || p.maps[0].map.groups.size() != 2 || p.maps[0].table.empty()) {
            state.SkipWithError("wrong plan");
            break;
        }
        tableBytes = 0;
        for (const PlannedMap &m : p.maps)
            tableBytes += m.table.size();
        benchmark::DoNotOptimize(p.maps.data());
    }
    state.counters["maps"] = kMaps;
    state.counters["table_bytes"] = double(tableBytes);
}

// The whole plan, as `mpathctl plan` makes it: gather, then plan.
void BM_PlanTables(benchmark::State &state) {
    std::string root = tree().root(true);
    ConfigResult cfg = benchConfig();
    if (cfg.hasErrors()) {
        state.SkipWithError("configuration rejected");
        return;
    }
    for (auto _ : state) {
        Plan p = policy::plan(cfg.config, gathered(cfg.config, root));
        if (p.maps.size() != kMaps || p.maps[0].map.groups.size() != 2 || p.maps[0].table.empty()) {
            state.SkipWithError("wrong plan");
            break;
        }
        benchmark::DoNotOptimize(p.maps.data());
    }
    state.counters["paths"] = kMaps * kPathsPerMap;
    state.counters["maps"] = kMaps;
}

} // namespace

BENCHMARK(BM_DiscoverAllWithUdevProperties)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DiscoverAllFromVpdPage83)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GroupIntoMaps)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DiscoverAndGroup)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GatherPlanInput)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlanFromInput)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlanTables)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
