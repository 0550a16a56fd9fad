#pragma once

#include "mpath/config.h"

#include <string>
#include <string_view>

namespace mpath {

class BindingsFile;

/// How a map is named: the alias its multipaths {} entry gives; else, with
/// user_friendly_names, its alias in the bindings file (bound on first
/// use); else its WWID.
class Names {
public:
    /// Choose the name of the map of \a wwid.
    /// \param config the configuration (its multipaths {} aliases are never
    ///        handed out as user-friendly names)
    /// \param settings the effective settings of the map
    /// \param bindings the bindings file; may be null, then user-friendly
    ///        names fall back to the WWID
    /// \param name receives the name; the WWID when an error is returned,
    ///        so the caller can go on with a working if less friendly name
    /// \return 0 on success, -EEXIST when the WWID's binding is an alias
    ///         the configuration gives to another map, or a negative error
    ///         code from the bindings file
    [[nodiscard]] static int mapName(const Config &config, const EffectiveSettings &settings,
                                     std::string_view wwid, BindingsFile *bindings,
                                     std::string &name);
};

} // namespace mpath
