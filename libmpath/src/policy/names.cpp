#include "mpath/policy/names.h"

#include <algorithm>

namespace mpath::policy {

Namer::Namer(const config::Config &config, state::Bindings bindings)
    : bindings_(std::move(bindings)) {
    // The first entry that gives an alias keeps it (a later one for another
    // WWID is a configuration error, and gets no alias).
    for (const auto &mp : config.multipaths) {
        if (mp.alias.empty() || !configuredFor(mp.alias).empty())
            continue;
        configured_.emplace_back(mp.alias, mp.wwid);
        reserved_.push_back(mp.alias);
    }
}

std::string Namer::configuredFor(const std::string &alias) const {
    for (const auto &[a, w] : configured_)
        if (a == alias)
            return w;
    return {};
}

NameChoice Namer::name(const config::EffectiveSettings &settings, const std::string &wwid) {
    NameChoice c;
    if (!settings.alias.value.empty()) {
        c.name = settings.alias.value;
        return c;
    }
    c.name = wwid;
    if (!settings.userFriendlyNames.value)
        return c;
    if (auto bound = bindings_.aliasFor(wwid)) {
        const std::string owner = configuredFor(*bound);
        if (owner.empty() || owner == wwid) {
            c.name = *bound;
            return c;
        }
        // Two maps cannot share a name; the configured one keeps it.
        c.droppedAlias = *bound;
        c.note = "its binding '" + *bound + "' is the alias multipaths {} gives " + owner +
                 "; the binding is replaced";
        (void)bindings_.remove(wwid);
    }
    c.newAlias = bindings_.nextFreeAlias(settings.aliasPrefix.value, reserved_);
    if (auto r = bindings_.add(c.newAlias, wwid); !r) {
        // A WWID the bindings file cannot hold (blanks around it): it
        // keeps its WWID as name, as multipath-tools would.
        c.note = r.error().message + "; named by its WWID";
        c.newAlias.clear();
        return c;
    }
    c.name = c.newAlias;
    return c;
}

} // namespace mpath::policy
