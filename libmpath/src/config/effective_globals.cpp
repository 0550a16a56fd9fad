#include "mpath/config/effective_globals.h"

#include "config/keyword_table.h"
#include "config/value_text.h"

namespace mpath::config {

std::vector<EffectiveEntry> EffectiveGlobals::entries() const {
    std::vector<EffectiveEntry> out;
    detail::forEachGlobal([&](const auto &k) {
        const auto &r = this->*k.effective;
        if (!detail::inForce(k, r.value))
            return; // refused: not acted on, so not shown as if it were
        out.push_back({std::string(k.name), detail::formatValue(r.value), r.origin, r.where});
    });
    return out;
}

} // namespace mpath::config
