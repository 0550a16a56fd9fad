#pragma once

#include "mpath/prio/prioritizer.h"

namespace mpath::prio {

/// "sysfs": the ALUA state scsi_dh_alua keeps in access_state and
/// preferred_path, as discovery read them. No I/O.
class SysfsPrioritizer final : public Prioritizer {
public:
    explicit SysfsPrioritizer(bool exclusivePreferred) : exclusivePreferred_(exclusivePreferred) {}

    std::string_view name() const override { return "sysfs"; }
    bool needsIo() const override { return false; }
    std::function<Result<int>()> job(const model::Path &path) const override;

    /// The priority from \a path's access state and preferred bit.
    /// \return the priority, or ENODATA when the path has no access state
    ///         (no ALUA handler attached)
    static Result<int> fromPath(const model::Path &path, bool exclusivePreferred);

private:
    bool exclusivePreferred_;
};

} // namespace mpath::prio
