#pragma once

#include "mpath/prio/prioritizer.h"

namespace mpath::prio {

/// "path_latency": the average of a number of timed direct reads, on a
/// logarithmic scale: faster paths rank higher.
class PathLatencyPrioritizer final : public Prioritizer {
public:
    PathLatencyPrioritizer(Context context, unsigned ioCount, double base)
        : context_(std::move(context)), ioCount_(ioCount), base_(base) {}

    /// Parses "io_num=N base_num=B" (either may be left out).
    static Result<std::unique_ptr<PathLatencyPrioritizer>> fromArgs(std::string_view args,
                                                                    Context context);

    std::string_view name() const override { return "path_latency"; }
    bool needsIo() const override { return true; }
    std::function<Result<int>()> job(const model::Path &path) const override;

    unsigned ioCount() const { return ioCount_; }
    double base() const { return base_; }

private:
    Context context_;
    unsigned ioCount_;
    double base_;
};

} // namespace mpath::prio
