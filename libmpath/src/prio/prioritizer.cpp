#include "mpath/prio/prioritizer.h"

#include "mpath/sys/device_io.h"
#include "prio/alua_prioritizer.h"
#include "prio/ana_prioritizer.h"
#include "prio/const_prioritizer.h"
#include "prio/path_latency_prioritizer.h"
#include "prio/sysfs_prioritizer.h"
#include "prio/weighted_path_prioritizer.h"

#include <sstream>

namespace mpath::prio {

namespace {

// "exclusive_pref_bit" or nothing.
Result<bool> exclusivePreferred(std::string_view name, std::string_view args) {
    std::istringstream in{std::string(args)};
    std::string word;
    bool exclusive = false;
    while (in >> word) {
        if (word != "exclusive_pref_bit")
            return Error{EINVAL, std::string(name) + ": unknown argument '" + word +
                                     "', expected exclusive_pref_bit"};
        exclusive = true;
    }
    return exclusive;
}

Result<std::unique_ptr<Prioritizer>> make(std::string_view name, std::string_view args,
                                          Context context) {
    using Ptr = std::unique_ptr<Prioritizer>;
    if (name == "const")
        return Ptr(std::make_unique<ConstPrioritizer>());
    if (name == "sysfs" || name == "alua") {
        auto exclusive = exclusivePreferred(name, args);
        if (!exclusive)
            return exclusive.error();
        if (name == "sysfs")
            return Ptr(std::make_unique<SysfsPrioritizer>(*exclusive));
        return Ptr(std::make_unique<AluaPrioritizer>(std::move(context), *exclusive));
    }
    if (name == "ana")
        return Ptr(std::make_unique<AnaPrioritizer>(std::move(context)));
    if (name == "path_latency") {
        auto p = PathLatencyPrioritizer::fromArgs(args, std::move(context));
        if (!p)
            return p.error();
        return Ptr(std::move(*p));
    }
    if (name == "weightedpath") {
        auto p = WeightedPathPrioritizer::fromArgs(args);
        if (!p)
            return p.error();
        return Ptr(std::move(*p));
    }
    for (std::string_view known :
         {"ontap", "rdac", "emc", "hp_sw", "hds", "random", "datacore", "iet"})
        if (name == known)
            return Error{ENOTSUP, "'" + std::string(name) +
                                      "' is a multipath-tools prioritizer not implemented here"};
    return Error{EINVAL, "unknown prioritizer '" + std::string(name) + "'"};
}

} // namespace

Context Context::system(std::string devDirectory) {
    Context c;
    c.devDirectory = devDirectory;
    const std::string dev = std::move(devDirectory);
    c.scsiCommand = [dev](const std::string &name, std::span<const uint8_t> cdb, size_t length,
                          std::chrono::milliseconds timeout) -> Result<std::vector<uint8_t>> {
        std::vector<uint8_t> data(length);
        const std::string node = dev + "/" + name;
        auto done = sys::scsiCommand(node, cdb, data, timeout);
        if (!done)
            return done.error();
        if (!done->good())
            return Error{EIO, node + ": SCSI status " + std::to_string(done->status) +
                                  ", host status " + std::to_string(done->hostStatus) +
                                  ", driver status " + std::to_string(done->driverStatus)};
        data.resize(done->received);
        return data;
    };
    c.nvmeAnaLog = [dev](const std::string &name, std::chrono::milliseconds timeout) {
        return sys::nvmeAnaLog(dev + "/" + name, timeout);
    };
    c.readLatency = [dev](const std::string &name) { return sys::directRead(dev + "/" + name); };
    return c;
}

Context Context::noDevices() {
    Context c;
    c.scsiCommand = [](const std::string &name, std::span<const uint8_t>, size_t,
                       std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        return Error{ENODEV, name + ": not a device of this machine"};
    };
    c.nvmeAnaLog = [](const std::string &name,
                      std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        return Error{ENODEV, name + ": not a device of this machine"};
    };
    c.readLatency = [](const std::string &name) -> Result<std::chrono::nanoseconds> {
        return Error{ENODEV, name + ": not a device of this machine"};
    };
    return c;
}

Result<std::unique_ptr<Prioritizer>> Prioritizer::create(std::string_view name,
                                                         std::string_view args, Context context) {
    const std::string dev = context.devDirectory;
    auto p = make(name, args, std::move(context));
    if (p)
        (*p)->devDirectory_ = dev;
    return p;
}

namespace {

/// \a primary, or \a fallback for a device without \a primary's method.
class FallbackPrioritizer final : public Prioritizer {
public:
    FallbackPrioritizer(std::unique_ptr<Prioritizer> primary, std::unique_ptr<Prioritizer> fallback)
        : primary_(std::move(primary)), fallback_(std::move(fallback)) {}
    std::string_view name() const override { return primary_->name(); }
    bool needsIo() const override { return primary_->needsIo() || fallback_->needsIo(); }
    std::function<Result<int>()> job(const model::Path &path) const override {
        return [first = primary_->job(path), second = fallback_->job(path)]() -> Result<int> {
            auto r = first();
            if (r || r.code() != EOPNOTSUPP)
                return r;
            return second();
        };
    }

private:
    std::unique_ptr<Prioritizer> primary_;
    std::unique_ptr<Prioritizer> fallback_;
};

} // namespace

Result<std::unique_ptr<Prioritizer>>
Prioritizer::create(std::string_view name, std::string_view args, std::string_view fallback,
                    std::string_view fallbackArgs, Context context) {
    auto primary = create(name, args, context);
    if (!primary || fallback.empty())
        return primary;
    auto second = create(fallback, fallbackArgs, context);
    if (!second)
        return second.error();
    const std::string dev = context.devDirectory;
    std::unique_ptr<Prioritizer> p =
        std::make_unique<FallbackPrioritizer>(std::move(*primary), std::move(*second));
    p->devDirectory_ = dev;
    return p;
}

sys::Executor::JobId startPriority(sys::Executor &executor, const Prioritizer &prioritizer,
                                   const model::Path &path, std::chrono::milliseconds deadline,
                                   std::function<void(Result<int>)> done) {
    return executor.run<int>(prioritizer.devnode(path), deadline, prioritizer.job(path),
                             std::move(done));
}

} // namespace mpath::prio
