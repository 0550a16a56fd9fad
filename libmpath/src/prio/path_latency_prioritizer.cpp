#include "prio/path_latency_prioritizer.h"

#include "mpath/prio.h"
#include "prio/bounded_call.h"

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <sstream>

namespace mpath {

PathLatencyPrioritizer::PathLatencyPrioritizer(PrioritizerContext context, unsigned ioCount,
                                               double base)
    : context_(std::move(context)), ioCount_(ioCount), base_(base) {}

int PathLatencyPrioritizer::parseArgs(std::string_view args, unsigned &ioCount, double &base,
                                      std::string *error) {
    ioCount = 20;
    base = 10.0;
    std::istringstream in{std::string(args)};
    std::string word;
    auto fail = [&](const std::string &why) {
        if (error)
            *error = why;
        return -EINVAL;
    };
    while (in >> word) {
        size_t eq = word.find('=');
        if (eq == std::string::npos)
            return fail("path_latency: expected key=value, got '" + word + "'");
        std::string key = word.substr(0, eq);
        std::string value = word.substr(eq + 1);
        char *end = nullptr;
        if (key == "io_num") {
            long n = std::strtol(value.c_str(), &end, 10);
            if (value.empty() || *end != '\0' || n < 2 || n > 200)
                return fail("path_latency: io_num must be 2..200, got '" + value + "'");
            ioCount = static_cast<unsigned>(n);
        } else if (key == "base_num") {
            double b = std::strtod(value.c_str(), &end);
            if (value.empty() || *end != '\0' || b < 1.1 || b > 100)
                return fail("path_latency: base_num must be 1.1..100, got '" + value + "'");
            base = b;
        } else {
            return fail("path_latency: unknown argument '" + key + "'");
        }
    }
    return 0;
}

int PathLatencyPrioritizer::priority(const Path &path) const {
    if (!context_.readLatency)
        return -ENODATA;
    auto average = std::make_shared<double>(0.0);
    auto probe = context_.readLatency;
    std::string name = path.kernelName;
    unsigned count = ioCount_;
    int r = runBounded(
        [probe, name, count, average] {
            double totalUs = 0;
            for (unsigned i = 0; i < count; ++i) {
                std::chrono::nanoseconds one{0};
                if (int e = probe(name, one); e < 0)
                    return e;
                totalUs += static_cast<double>(one.count()) / 1000.0;
            }
            *average = totalUs / count;
            return 0;
        },
        context_.timeout);
    if (r < 0)
        return r;
    return Prio::fromLatency(*average, base_);
}

} // namespace mpath
