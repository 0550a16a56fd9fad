#pragma once

#include "mpath/prio/prioritizer.h"

namespace mpath::prio {

/// "alua": REPORT TARGET PORT GROUPS, answered for the path's target port
/// group; the access_state the kernel shows when the command cannot be
/// sent or its answer does not name the group. A device whose INQUIRY
/// data reports no ALUA support (TPGS 0) is not asked: EOPNOTSUPP.
class AluaPrioritizer final : public Prioritizer {
public:
    AluaPrioritizer(Context context, bool exclusivePreferred)
        : context_(std::move(context)), exclusivePreferred_(exclusivePreferred) {}

    std::string_view name() const override { return "alua"; }
    bool needsIo() const override { return true; }
    std::function<Result<int>()> job(const model::Path &path) const override;

private:
    Context context_;
    bool exclusivePreferred_;
};

} // namespace mpath::prio
