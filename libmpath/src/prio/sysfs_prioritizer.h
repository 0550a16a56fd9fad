#pragma once

#include "mpath/prioritizer.h"

namespace mpath {

/// "sysfs": the ALUA state scsi_dh_alua keeps in access_state.
class SysfsPrioritizer : public Prioritizer {
public:
    SysfsPrioritizer(Sysfs sysfs, bool exclusivePreferred);

    std::string name() const override { return "sysfs"; }
    [[nodiscard]] int priority(const Path &path) const override;

    /// The priority from access_state / preferred_path of \a path's SCSI
    /// device. \return the priority, or -ENODATA when there is no
    /// access_state (no ALUA handler attached)
    [[nodiscard]] static int fromSysfs(const Sysfs &sysfs, const Path &path,
                                       bool exclusivePreferred);

private:
    Sysfs sysfs_;
    bool exclusivePreferred_;
};

} // namespace mpath
