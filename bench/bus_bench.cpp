// The D-Bus API's biggest answers, natively: GetManagedObjects, DescribeMaps
// and the computation of every object, for MAPS maps of 4 paths on the
// daemon's test loop (fake device-mapper, a private dbus-daemon). Not a timed
// test: it prints medians, and checks only that every object is there.
//
// usage: bus_bench [MAPS...]   (default: 64 256)

#include "bus_harness.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::vector<unsigned> gSetups;

double medianMs(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

class ManyMaps : public mpathd_test::BusFixture {
public:
    explicit ManyMaps(unsigned maps) : maps_(maps) {}
    void TestBody() override {}
    void addDisks() override {
        unsigned minor = 16;
        for (unsigned m = 0; m < maps_; ++m) {
            char wwid[32];
            std::snprintf(wwid, sizeof(wwid), "36001405%08x", m);
            for (unsigned p = 0; p < 4; ++p, minor += 16)
                h_.addDisk(diskName(minor / 16 - 1), minor, p + 1, wwid,
                           p < 2 ? "active/optimized" : "standby");
        }
    }
    static std::string diskName(unsigned i) { // sda.. sdz, sdaa..
        std::string s;
        for (++i; i > 0; i = (i - 1) / 26)
            s.insert(s.begin(), char('a' + (i - 1) % 26));
        return "sd" + s;
    }

    void run() {
        SetUp();
        const size_t objects = service_->objects().size();
        // Manager + maps + 4 groups per map (failover) + 4 paths per map.
        if (objects != 1 + maps_ * 9)
            std::printf("warning: %zu objects, expected %u\n", objects, 1 + maps_ * 9);
        std::vector<double> compute, call;
        for (int i = 0; i < 9; ++i) {
            auto t0 = Clock::now();
            service_->publish();
            compute.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        }
        const char *calls = std::getenv("BUS_BENCH_CALLS");
        for (int i = 0, n = calls ? std::atoi(calls) : 9; i < n; ++i) {
            auto f = std::async(std::launch::async, [this] {
                sd_bus *b = connect();
                auto t0 = Clock::now();
                sd_bus_message *reply = nullptr;
                int r = sd_bus_call_method(b, "org.mpathd.Multipath1", "/org/mpathd/Multipath1",
                                           "org.freedesktop.DBus.ObjectManager",
                                           "GetManagedObjects", nullptr, &reply, "");
                double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
                sd_bus_message_unref(reply);
                sd_bus_flush_close_unref(b);
                return r >= 0 ? ms : -1.0;
            });
            while (f.wait_for(0ms) != std::future_status::ready)
                h_.loop().dispatch(1ms);
            call.push_back(f.get());
        }
        std::vector<double> describe;
        for (int i = 0; i < 9; ++i)
            describe.push_back(timeOnClient([](sd_bus *b) { return describeMaps(b); }));
        std::printf("%5u maps x 4 paths: %5zu objects, compute %7.2f ms, GetManagedObjects "
                    "%7.2f ms, DescribeMaps %7.2f ms (medians)\n",
                    maps_, objects, medianMs(compute), medianMs(call), medianMs(describe));
        // The client as an administrator runs it, when its path is given.
        if (const char *ctl = std::getenv("MPATHCTL")) {
            std::vector<double> runs;
            const std::string cmd = "DBUS_SYSTEM_BUS_ADDRESS=" + address_ + " " + ctl +
                                    " --bus system show maps --json > /dev/null";
            for (int i = 0; i < 9; ++i) {
                auto t0 = Clock::now();
                if (runCommand(cmd) != 0)
                    std::printf("warning: %s failed\n", cmd.c_str());
                runs.push_back(
                    std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            }
            std::printf("%5u maps x 4 paths: mpathctl show maps --json %7.2f ms (median)\n", maps_,
                        medianMs(runs));
            runs.clear();
            const std::string topology = "DBUS_SYSTEM_BUS_ADDRESS=" + address_ + " " + ctl +
                                         " --bus system show topology --color=never > /dev/null";
            for (int i = 0; i < 9; ++i) {
                auto t0 = Clock::now();
                if (runCommand(topology) != 0)
                    std::printf("warning: %s failed\n", topology.c_str());
                runs.push_back(
                    std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            }
            std::printf("%5u maps x 4 paths: mpathctl show topology %7.2f ms (median)\n", maps_,
                        medianMs(runs));
        }
        TearDown();
    }

private:
    static int describeMaps(sd_bus *b) {
        sd_bus_message *reply = nullptr;
        int r = sd_bus_call_method(b, "org.mpathd.Multipath1", "/org/mpathd/Multipath1/Manager",
                                   "org.mpathd.Multipath1.Manager", "DescribeMaps", nullptr, &reply,
                                   "a{sv}", 0);
        sd_bus_message_unref(reply);
        return r;
    }

    /// Runs \a fn on a new client connection while the loop serves it.
    /// \return how long \a fn took, in ms; -1 when it failed
    template <typename F>
    double timeOnClient(F fn) {
        auto f = std::async(std::launch::async, [this, fn] {
            sd_bus *b = connect();
            auto t0 = Clock::now();
            int r = fn(b);
            double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            sd_bus_flush_close_unref(b);
            return r >= 0 ? ms : -1.0;
        });
        while (f.wait_for(0ms) != std::future_status::ready)
            h_.loop().dispatch(1ms);
        return f.get();
    }

    unsigned maps_;
};

} // namespace

int main(int argc, char **argv) {
    ::testing::InitGoogleTest(&argc, argv);
    for (int i = 1; i < argc; ++i)
        gSetups.push_back(static_cast<unsigned>(std::atoi(argv[i])));
    if (gSetups.empty())
        gSetups = {64, 256};
    mpathd::Log::setup(mpathd::Level::Warning);
    for (unsigned n : gSetups) {
        ManyMaps bench(n);
        bench.run();
    }
    return 0;
}
