#include "mpath/config/effective_settings.h"

#include "config/keyword_table.h"
#include "config/value_text.h"

namespace mpath::config {

std::vector<EffectiveEntry> EffectiveSettings::entries() const {
    std::vector<EffectiveEntry> out;
    out.push_back({"alias", alias.value, alias.origin, alias.where});
    detail::forEachSetting([&](const auto &k) {
        const auto &r = this->*k.effective;
        if (!detail::inForce(k, r.value))
            return; // refused: not acted on, so not shown as if it were
        if (k.unsetByDefault && r.origin == Origin::Builtin)
            return; // unset: nothing is applied, so no value is shown
        out.push_back({std::string(k.name), detail::formatValue(r.value), r.origin, r.where});
    });
    return out;
}

} // namespace mpath::config
