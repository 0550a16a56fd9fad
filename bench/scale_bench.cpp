// mpathd at sizes the VM lab cannot reach: the daemon's real loop over a
// generated sysfs tree, a fake udev and a fake device-mapper, with PATHS
// paths of 4 per map. Not a timed test: it prints what each size cost, so
// that growth with the number of maps shows side by side.
//
//   cold    daemon start -> every map made (all paths present at start)
//   hot     a host's paths (one per map) removed, then added back in one
//           burst -> every map reloaded with it
//   event   one path's change uevent, and one device-mapper PATH_FAILED /
//           PATH_REINSTATED, each planned and acted on alone: CPU per event
//   heap    what the heap grew by from start to assembled, per path, and
//           what the daemon alone holds at the end (dropped, the fakes kept)
//
// CPU is the process's (every thread's) user+system time around the daemon's
// own work: the harness's set-up and injection are outside it.
//
// usage: scale_bench [PATHS...]   (default: 1024 4096 16384)

#include "daemon_harness.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <map>
#include <sys/resource.h>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double cpuMs() {
    struct rusage u {};
    getrusage(RUSAGE_SELF, &u);
    auto ms = [](const timeval &t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
    return ms(u.ru_utime) + ms(u.ru_stime);
}

double sinceMs(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

std::string diskName(unsigned i) { // sda.. sdz, sdaa..
    std::string s;
    for (++i; i > 0; i = (i - 1) / 26)
        s.insert(s.begin(), char('a' + (i - 1) % 26));
    return "sd" + s;
}

std::string wwidOf(unsigned map) {
    char w[32];
    std::snprintf(w, sizeof(w), "36001405%08x", map);
    return w;
}

std::string devt(unsigned disk) {
    const unsigned minor = 16 * (disk + 1);
    return std::to_string(8 + minor / 256) + ":" + std::to_string(minor % 256);
}

void run(unsigned paths) {
    const unsigned maps = paths / 4;
    mpathd_test::DaemonHarness h;
    mpathd::Log::setup(mpathd::Level::Warning);
    // Checks far apart: the events' cost is what is measured, not checks.
    // Friendly names on (as mpathconf sets them): the bindings file is
    // written for each new map and handed to each plan.
    h.config("defaults {\n find_multipaths on\n dm_target multipath\n prio const\n"
             " polling_interval 3600\n max_polling_interval 3600\n user_friendly_names yes\n}\n");
    // Disk i is map i % maps's path on host i / maps: a host's disks are a
    // block of names, as a scan makes them.
    for (unsigned i = 0; i < paths; ++i)
        h.addDisk(diskName(i), 16 * (i + 1), i / maps, wwidOf(i % maps));

    const size_t heap0 = mallinfo2().uordblks;
    double cpu0 = cpuMs();
    auto t0 = Clock::now();
    h.start();
    h.settle(50ms, 100000);
    const double coldMs = sinceMs(t0), coldCpu = cpuMs() - cpu0;
    const unsigned coldPlans = h.daemon().counters().plans;
    const size_t heap1 = mallinfo2().uordblks;
    const unsigned made = h.count("create ");
    if (made != maps)
        std::printf("warning: %u maps made of %u\n", made, maps);

    // Hot: host 3's paths go, then come back in one burst.
    // The devices as udev describes them, by name: an event is a copy.
    std::map<std::string, mpath::discovery::UdevDevice> known;
    for (auto &d : h.devices())
        known.emplace(d.sysname, d);
    auto event = [&](const std::string &action, unsigned disk) {
        auto d = known.at(diskName(disk));
        d.action = action;
        h.injectDevice(std::move(d));
    };
    for (unsigned i = 3 * maps; i < paths; ++i)
        event("remove", i);
    h.settle(50ms, 100000);
    h.clearCalls();
    for (unsigned i = 3 * maps; i < paths; ++i)
        event("add", i);
    const unsigned plans0 = h.daemon().counters().plans;
    cpu0 = cpuMs();
    t0 = Clock::now();
    h.settle(50ms, 100000);
    const unsigned hotPlans = h.daemon().counters().plans - plans0;
    const double hotMs = sinceMs(t0), hotCpu = cpuMs() - cpu0;
    const unsigned reloads = h.count("reload ");
    if (reloads != maps)
        std::printf("warning: %u maps reloaded of %u\n", reloads, maps);

    // One event at a time, spread over the maps.
    std::vector<double> change, failed, reinstated;
    for (unsigned k = 0; k < 100; ++k) {
        const unsigned disk = (k * 7919) % paths;
        event("change", disk);
        cpu0 = cpuMs();
        h.settle(50ms, 100000);
        change.push_back(cpuMs() - cpu0);

        h.injectMap("change", wwidOf(disk % maps), "PATH_FAILED", devt(disk));
        cpu0 = cpuMs();
        h.settle(50ms, 100000);
        failed.push_back(cpuMs() - cpu0);

        h.injectMap("change", wwidOf(disk % maps), "PATH_REINSTATED", devt(disk));
        cpu0 = cpuMs();
        h.settle(50ms, 100000);
        reinstated.push_back(cpuMs() - cpu0);
    }

    // What the daemon holds: its heap, with the fakes' (their devices and
    // tables, the calls they record) left out by dropping the daemon alone.
    const size_t heapEnd = mallinfo2().uordblks;
    h.dropDaemon();
    const size_t heapFakes = mallinfo2().uordblks;
    const double daemonHeap = double(heapEnd > heapFakes ? heapEnd - heapFakes : 0) / paths;

    std::printf(
        "%6u paths %5u maps: cold %8.0f ms (cpu %8.0f, %u passes)  hot burst %8.0f ms "
        "(cpu %8.0f, %u passes, %u reloads)  cpu/event: change %6.2f ms, PATH_FAILED %6.2f ms, "
        "PATH_REINSTATED %6.2f ms  heap/path %5.0f B (daemon's %5.0f B)\n",
        paths, maps, coldMs, coldCpu, coldPlans, hotMs, hotCpu, hotPlans, reloads, median(change),
        median(failed), median(reinstated), double(heap1 > heap0 ? heap1 - heap0 : 0) / paths,
        daemonHeap);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
    std::vector<unsigned> sizes;
    for (int i = 1; i < argc; ++i)
        sizes.push_back(static_cast<unsigned>(std::atoi(argv[i])));
    if (sizes.empty())
        sizes = {1024, 4096, 16384};
    for (unsigned n : sizes)
        run(n - n % 4);
    return 0;
}
