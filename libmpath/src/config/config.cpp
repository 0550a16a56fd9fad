#include "mpath/config/config.h"

#include "mpath/config/resolve.h"

namespace mpath::config {

EffectiveSettings Config::effective(std::string_view vendor, std::string_view product,
                                    std::string_view revision, std::string_view wwid) const {
    return resolve(*this, {vendor, product, revision, wwid});
}

EffectiveSettings Config::effective(const model::Path &path) const {
    return effective(path.vendor, path.product, path.revision, path.wwid);
}

EffectiveGlobals Config::effectiveGlobals() const {
    return resolveGlobals(*this);
}

const MultipathEntry *Config::multipathFor(std::string_view wwid) const {
    const MultipathEntry *found = nullptr;
    for (const auto &mp : multipaths)
        if (mp.wwid == wwid)
            found = &mp;
    return found;
}

} // namespace mpath::config
