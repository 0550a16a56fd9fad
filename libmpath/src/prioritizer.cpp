#include "mpath/prioritizer.h"

#include "prio/alua_prioritizer.h"
#include "prio/ana_prioritizer.h"
#include "prio/const_prioritizer.h"
#include "prio/device_io.h"
#include "prio/path_latency_prioritizer.h"
#include "prio/sysfs_prioritizer.h"
#include "prio/weighted_path_prioritizer.h"

#include <sstream>

namespace mpath {

namespace {

// Fills the seams left empty with the real device I/O.
void completeContext(PrioritizerContext &c) {
    const std::string dev = c.devDirectory;
    if (!c.scsiCommand)
        c.scsiCommand = [dev](const std::string &name, std::span<const uint8_t> cdb,
                              std::vector<uint8_t> &data, std::chrono::milliseconds timeout) {
            return DeviceIo::scsiCommand(dev + "/" + name, cdb, data, timeout);
        };
    if (!c.nvmeAnaLog)
        c.nvmeAnaLog = [dev](const std::string &name, std::vector<uint8_t> &log,
                             std::chrono::milliseconds timeout) {
            return DeviceIo::nvmeAnaLog(dev + "/" + name, log, timeout);
        };
    if (!c.readLatency)
        c.readLatency = [dev](const std::string &name, std::chrono::nanoseconds &latency) {
            return DeviceIo::timedRead(dev + "/" + name, latency);
        };
}

// "exclusive_pref_bit" or nothing.
bool exclusivePreferred(std::string_view args, bool &ok) {
    std::istringstream in{std::string(args)};
    std::string word;
    bool exclusive = false;
    ok = true;
    while (in >> word) {
        if (word == "exclusive_pref_bit")
            exclusive = true;
        else
            ok = false;
    }
    return exclusive;
}

} // namespace

PrioritizerContext PrioritizerContext::system(Sysfs sysfs, std::string devDirectory) {
    PrioritizerContext c;
    c.sysfs = std::move(sysfs);
    c.devDirectory = std::move(devDirectory);
    completeContext(c);
    return c;
}

std::unique_ptr<Prioritizer> Prioritizer::create(std::string_view name, std::string_view args,
                                                 PrioritizerContext context, std::string *error) {
    auto fail = [&](const std::string &why) -> std::unique_ptr<Prioritizer> {
        if (error)
            *error = why;
        return nullptr;
    };
    completeContext(context);
    if (name == "const")
        return std::make_unique<ConstPrioritizer>();
    if (name == "sysfs" || name == "alua") {
        bool ok = true;
        bool exclusive = exclusivePreferred(args, ok);
        if (!ok)
            return fail(std::string(name) + ": unknown argument in '" + std::string(args) +
                        "', expected exclusive_pref_bit");
        if (name == "sysfs")
            return std::make_unique<SysfsPrioritizer>(std::move(context.sysfs), exclusive);
        return std::make_unique<AluaPrioritizer>(std::move(context), exclusive);
    }
    if (name == "ana")
        return std::make_unique<AnaPrioritizer>(std::move(context));
    if (name == "path_latency") {
        unsigned count = 0;
        double base = 0;
        if (PathLatencyPrioritizer::parseArgs(args, count, base, error) < 0)
            return nullptr;
        return std::make_unique<PathLatencyPrioritizer>(std::move(context), count, base);
    }
    if (name == "weightedpath")
        return WeightedPathPrioritizer::fromArgs(args, error);
    for (std::string_view known :
         {"ontap", "rdac", "emc", "hp_sw", "hds", "random", "datacore", "iet"})
        if (name == known)
            return fail("'" + std::string(name) +
                        "' is a multipath-tools prioritizer not implemented here");
    return fail("unknown prioritizer '" + std::string(name) + "'");
}

} // namespace mpath
