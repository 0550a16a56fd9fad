#include "prio/path_latency_prioritizer.h"

#include "mpath/prio/states.h"

#include <cstdlib>
#include <sstream>

namespace mpath::prio {

Result<std::unique_ptr<PathLatencyPrioritizer>>
PathLatencyPrioritizer::fromArgs(std::string_view args, Context context) {
    unsigned ioCount = 20;
    double base = 10.0;
    std::istringstream in{std::string(args)};
    std::string word;
    auto fail = [](const std::string &why) { return Error{EINVAL, "path_latency: " + why}; };
    while (in >> word) {
        size_t eq = word.find('=');
        if (eq == std::string::npos)
            return fail("expected key=value, got '" + word + "'");
        std::string key = word.substr(0, eq);
        std::string value = word.substr(eq + 1);
        char *end = nullptr;
        if (key == "io_num") {
            long n = std::strtol(value.c_str(), &end, 10);
            if (value.empty() || *end != '\0' || n < 2 || n > 200)
                return fail("io_num must be 2..200, got '" + value + "'");
            ioCount = static_cast<unsigned>(n);
        } else if (key == "base_num") {
            double b = std::strtod(value.c_str(), &end);
            if (value.empty() || *end != '\0' || b < 1.1 || b > 100)
                return fail("base_num must be 1.1..100, got '" + value + "'");
            base = b;
        } else {
            return fail("unknown argument '" + key + "'");
        }
    }
    return std::make_unique<PathLatencyPrioritizer>(std::move(context), ioCount, base);
}

std::function<Result<int>()> PathLatencyPrioritizer::job(const model::Path &path) const {
    return [name = path.kernelName, probe = context_.readLatency, count = ioCount_,
            base = base_]() -> Result<int> {
        if (!probe)
            return Error{ENODATA, "no way to time reads"};
        double totalUs = 0;
        for (unsigned i = 0; i < count; ++i) {
            auto one = probe(name);
            if (!one)
                return one.error();
            totalUs += static_cast<double>(one->count()) / 1000.0;
        }
        return fromLatency(totalUs / count, base);
    };
}

} // namespace mpath::prio
