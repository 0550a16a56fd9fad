#pragma once

#include "mpath/prioritizer.h"

namespace mpath {

/// "path_latency": times io_num direct reads and maps the average onto a
/// logarithmic scale of base base_num. All reads of one call share the
/// context's timeout.
class PathLatencyPrioritizer : public Prioritizer {
public:
    PathLatencyPrioritizer(PrioritizerContext context, unsigned ioCount, double base);

    /// Parses "io_num=N base_num=B" (either may be left out).
    /// \return 0, or -EINVAL with \a error set
    [[nodiscard]] static int parseArgs(std::string_view args, unsigned &ioCount, double &base,
                                       std::string *error);

    std::string name() const override { return "path_latency"; }
    [[nodiscard]] int priority(const Path &path) const override;

private:
    PrioritizerContext context_;
    unsigned ioCount_;
    double base_;
};

} // namespace mpath
