#pragma once

#include "mpath/prioritizer.h"

namespace mpath {

/// "alua": REPORT TARGET PORT GROUPS through SG_IO, bounded by the
/// context's timeout; sysfs access_state when the command cannot be sent
/// or its answer does not name the path's group. A device whose INQUIRY
/// data reports no ALUA support (TPGS 0) is not asked: -EOPNOTSUPP.
class AluaPrioritizer : public Prioritizer {
public:
    AluaPrioritizer(PrioritizerContext context, bool exclusivePreferred);

    std::string name() const override { return "alua"; }
    [[nodiscard]] int priority(const Path &path) const override;

private:
    int readDeviceAttribute(const Path &path, const std::string &name,
                            std::vector<uint8_t> &data) const;
    int targetPortGroup(const Path &path) const;
    int targetPortGroupSupport(const Path &path) const;

    PrioritizerContext context_;
    bool exclusivePreferred_;
};

} // namespace mpath
