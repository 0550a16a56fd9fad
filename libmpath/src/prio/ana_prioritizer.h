#pragma once

#include "mpath/prioritizer.h"

namespace mpath {

/// "ana": the NVMe ANA state of the namespace, from the ana_state
/// attribute (native NVMe multipath) or the ANA log page read through the
/// namespace, bounded by the context's timeout.
class AnaPrioritizer : public Prioritizer {
public:
    explicit AnaPrioritizer(PrioritizerContext context);

    std::string name() const override { return "ana"; }
    [[nodiscard]] int priority(const Path &path) const override;

private:
    PrioritizerContext context_;
};

} // namespace mpath
