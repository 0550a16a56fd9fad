#pragma once

#include "mpath/config/source_location.h"
#include "mpath/enum_names.h"

#include <array>
#include <string_view>

namespace mpath::config {

/// Which layer of the configuration decided an effective value.
enum class Origin {
    Builtin,    ///< compiled-in default
    Defaults,   ///< defaults {} section
    Hwtable,    ///< built-in device table entry
    Devices,    ///< devices {} entry of a configuration file
    Multipaths, ///< multipaths {} entry for the WWID
    Overrides,  ///< overrides {} section
};

inline constexpr std::array<EnumName<Origin>, 6> kOriginNames{{
    {Origin::Builtin, "built-in"},
    {Origin::Defaults, "defaults"},
    {Origin::Hwtable, "built-in device table"},
    {Origin::Devices, "devices"},
    {Origin::Multipaths, "multipaths"},
    {Origin::Overrides, "overrides"},
}};

constexpr std::string_view toString(Origin v) {
    return nameOf(kOriginNames, v);
}

/// An effective value and the layer that decided it.
template <typename T>
struct Resolved {
    T value{};
    Origin origin{Origin::Builtin};
    SourceLocation where; ///< the line that set it; empty for Builtin and Hwtable

    bool operator==(const Resolved &) const = default;
};

} // namespace mpath::config
