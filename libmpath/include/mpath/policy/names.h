#pragma once

#include "mpath/config/config.h"
#include "mpath/state/bindings.h"

#include <string>
#include <utility>
#include <vector>

namespace mpath::policy {

/// The name a map gets, and what that asks of the bindings file.
struct NameChoice {
    std::string name;
    /// user_friendly_names and no usable binding: the WWID gets this new
    /// alias, which the bindings file must hold before a map is made under
    /// it; "" when nothing is to be bound.
    std::string newAlias;
    /// The WWID's binding that is the alias the configuration gives another
    /// map: to be dropped from the bindings file (multipath-tools rewrites
    /// the file the same way); "" when there is none.
    std::string droppedAlias;
    /// Why the name is not the one the bindings file gives, "" when it is.
    std::string note;

    bool operator==(const NameChoice &) const = default;
};

/// Names the maps of one plan, as multipath-tools does: the alias the
/// map's multipaths {} entry gives; else, with user_friendly_names, the
/// WWID's alias in the bindings file, or the lowest free alias with
/// alias_prefix when it has none; else the WWID. An alias the
/// configuration gives to one WWID is no other map's name: a binding that
/// gives it to another WWID is dropped and that WWID gets a new alias.
/// The one place libmpath decides names; it touches no file.
class Namer {
public:
    Namer(const config::Config &config, state::Bindings bindings);

    /// The name of the map of \a wwid with effective \a settings. New
    /// aliases it hands out are kept, so later calls do not hand them out
    /// again.
    NameChoice name(const config::EffectiveSettings &settings, const std::string &wwid);

    /// The bindings with the changes of every choice so far.
    const state::Bindings &bindings() const { return bindings_; }

private:
    /// The WWID the configuration gives \a alias to, or "".
    std::string configuredFor(const std::string &alias) const;

    std::vector<std::pair<std::string, std::string>> configured_; ///< {alias, wwid}
    std::vector<std::string> reserved_;                           ///< the aliases of configured_
    state::Bindings bindings_;
};

} // namespace mpath::policy
