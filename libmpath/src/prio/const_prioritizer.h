#pragma once

#include "mpath/prio/prioritizer.h"

namespace mpath::prio {

/// "const": every path gets 1.
class ConstPrioritizer final : public Prioritizer {
public:
    std::string_view name() const override { return "const"; }
    bool needsIo() const override { return false; }
    std::function<Result<int>()> job(const model::Path &) const override {
        return []() -> Result<int> { return 1; };
    }
};

} // namespace mpath::prio
