#include "mpath/names.h"

#include "mpath/bindings_file.h"

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
    name = alias;
    return 0;
}

} // namespace mpath
