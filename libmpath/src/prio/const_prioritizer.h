#pragma once

#include "mpath/prioritizer.h"

namespace mpath {

/// "const": every path gets 1.
class ConstPrioritizer : public Prioritizer {
public:
    std::string name() const override { return "const"; }
    [[nodiscard]] int priority(const Path &) const override { return 1; }
};

} // namespace mpath
