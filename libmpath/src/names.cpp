#include "mpath/names.h"

#include "mpath/bindings_file.h"

#include <algorithm>
#include <cerrno>

namespace mpath {

int Names::mapName(const Config &config, const EffectiveSettings &settings, std::string_view wwid,
                   BindingsFile *bindings, std::string &name) {
    if (!settings.alias.value.empty()) {
        name = settings.alias.value;
        return 0;
    }
    name = std::string(wwid);
    if (!settings.userFriendlyNames.value || !bindings)
        return 0;
    std::vector<std::string> reserved;
    for (const auto &mp : config.multipaths)
        if (!mp.alias.empty() && mp.wwid != wwid)
            reserved.push_back(mp.alias);
    std::string alias;
    int r = bindings->bind(wwid, settings.aliasPrefix.value, alias, reserved);
    if (r < 0)
        return r;
    // A binding made before the configuration gave its name to another
    // map: two maps cannot share a name, the configured one wins.
    if (std::find(reserved.begin(), reserved.end(), alias) != reserved.end())
        return -EEXIST;
    name = alias;
    return 0;
}

} // namespace mpath
