#pragma once

#include "mpath/prio/prioritizer.h"

namespace mpath::prio {

/// "ana": the NVMe ANA state of the namespace, from ana_state (native NVMe
/// multipath) as discovery read it, else from the ANA log page read
/// through the namespace.
class AnaPrioritizer final : public Prioritizer {
public:
    explicit AnaPrioritizer(Context context) : context_(std::move(context)) {}

    std::string_view name() const override { return "ana"; }
    bool needsIo() const override { return true; }
    std::function<Result<int>()> job(const model::Path &path) const override;

private:
    Context context_;
};

} // namespace mpath::prio
