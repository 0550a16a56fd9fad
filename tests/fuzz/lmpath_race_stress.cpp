// ThreadSanitizer stress of dm-lmpath's lock-free fast path, on the kernel
// selector code in its userspace build.  For every selector, a map of two
// priority groups of four paths is driven the way lmpath-target.c does:
//  - four "CPU" threads: read the current group (READ_ONCE), select_path,
//    start_io, end_io — no lock, as in map/end_io;
//  - a fail/reinstate thread and a switch_group thread, both under the
//    map lock (a mutex here), failing paths by clearing LMPP_USABLE first
//    and reinstating them by setting it last (lmpath-ps.h);
//  - a status thread printing INFO and TABLE status under the map lock,
//    which reads the counters the fast path updates.
// Path 0 of each group is never failed, so a selection must always find a
// path.  ThreadSanitizer reports any data race (exit code 66); the program
// itself exits 1 when an invariant breaks.
//
// usage: lmpath_race_stress [milliseconds per selector, default 1000]

#include "lmpath-ps.h"
#include "lmpath-user.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

const char *const kSelectors[] = {"round-robin", "queue-length", "service-time",
                                  "historical-service-time", "io-affinity"};

std::string tableFor(const std::string &sel) {
    // io-affinity: paths 0..3 of each group serve CPUs 0..3
    std::string t = "1 queue_if_no_path 0 2 1";
    const char *devs[2][4] = {{"8:16", "8:32", "8:48", "8:64"},
                              {"259:0", "259:1", "259:2", "259:3"}};
    for (auto &group : devs) {
        t += " " + sel + " 0 4 " + (sel == "io-affinity" ? "1" : "0");
        for (int i = 0; i < 4; ++i) {
            t += std::string(" ") + group[i];
            if (sel == "io-affinity")
                t += " " + std::to_string(1 << i);
        }
    }
    return t;
}

int runOne(const char *sel, std::chrono::milliseconds length) {
    lmpath *m = nullptr;
    const char *error = nullptr;
    const std::string table = tableFor(sel);
    if (lmpath_user_create(table.c_str(), &m, &error)) {
        std::fprintf(stderr, "%s: table rejected: %s\n", sel, error);
        return 1;
    }

    std::mutex mapLock;           // the map's slow-path lock
    lmpath_ps *current = nullptr; // the current group: lock to write, READ_ONCE to read
    WRITE_ONCE(current, lmpath_user_ps(m, 0));
    std::atomic<bool> stop{false};
    std::atomic<long> ios{0}, misses{0}, foreign{0};

    auto groupOf = [&](lmpath_ps *ps) { return ps == lmpath_user_ps(m, 0) ? 0u : 1u; };

    std::vector<std::thread> threads;
    for (unsigned cpu = 0; cpu < 4; ++cpu)
        threads.emplace_back([&, cpu] {
            lmpath_user_set_cpu(cpu);
            while (!stop.load(std::memory_order_relaxed)) {
                lmpath_ps *ps = READ_ONCE(current);
                lmpath_ps_path *p = ps->type->select_path(ps, 4096);
                if (!p) {
                    ++misses;
                    continue;
                }
                bool mine = false;
                for (unsigned i = 0; i < 4; ++i)
                    mine |= lmpath_user_path(m, groupOf(ps), i) == p;
                if (!mine)
                    ++foreign;
                const u64 start = ktime_get_ns();
                if (ps->type->start_io)
                    ps->type->start_io(ps, p, 4096);
                if (ps->type->end_io)
                    ps->type->end_io(ps, p, 4096, start);
                ++ios;
            }
        });

    threads.emplace_back([&] { // fail_path / reinstate_path
        lmpath_user_set_cpu(4);
        for (unsigned round = 0; !stop.load(std::memory_order_relaxed); ++round) {
            const unsigned pg = round % 2, idx = 1 + round % 3;
            lmpath_ps *ps = lmpath_user_ps(m, pg);
            lmpath_ps_path *p = lmpath_user_path(m, pg, idx);
            {
                std::lock_guard<std::mutex> lock(mapLock);
                if (test_and_clear_bit(LMPP_USABLE, &p->flags) && ps->type->fail_path)
                    ps->type->fail_path(ps, p);
            }
            std::this_thread::yield();
            {
                std::lock_guard<std::mutex> lock(mapLock);
                if (ps->type->reinstate_path)
                    ps->type->reinstate_path(ps, p);
                set_bit(LMPP_USABLE, &p->flags);
            }
        }
    });

    threads.emplace_back([&] { // switch_group
        lmpath_user_set_cpu(5);
        for (unsigned round = 0; !stop.load(std::memory_order_relaxed); ++round) {
            std::lock_guard<std::mutex> lock(mapLock);
            WRITE_ONCE(current, lmpath_user_ps(m, round % 2));
        }
    });

    threads.emplace_back([&] { // dmsetup status / table
        lmpath_user_set_cpu(6);
        static char buf[64 * 1024];
        while (!stop.load(std::memory_order_relaxed)) {
            std::lock_guard<std::mutex> lock(mapLock);
            lmpath_user_status(m, 0, buf, sizeof(buf));
            lmpath_user_status(m, 1, buf, sizeof(buf));
        }
    });

    std::this_thread::sleep_for(length);
    stop = true;
    for (auto &t : threads)
        t.join();

    char info[64 * 1024];
    lmpath_user_status(m, 0, info, sizeof(info));
    lmpath_user_destroy(m);

    std::printf("%-24s %9ld I/Os, %ld without a path, %ld outside the group; status: %s\n", sel,
                ios.load(), misses.load(), foreign.load(), info);
    if (misses || foreign || ios < 1000) {
        std::fprintf(stderr, "%s: invariant broken\n", sel);
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    const long ms = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 1000;
    lmpath_user_set_nr_cpus(8, 2);
    int failed = 0;
    for (const char *sel : kSelectors)
        failed |= runOne(sel, std::chrono::milliseconds(ms));
    return failed;
}
