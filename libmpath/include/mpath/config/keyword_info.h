#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mpath::config {

/// What the keyword table says about one keyword, for listings and for
/// checking the documentation against the code.
struct KeywordInfo {
    /// How the keyword is treated.
    enum class Kind {
        Setting,     ///< per map/path: resolved for each path
        Global,      ///< daemon-wide: defaults {} only
        NoEffect,    ///< accepted without a field; nothing to do here
        Deprecated,  ///< ignored with multipath-tools' deprecation notice
        Unsupported, ///< a multipath-tools keyword we do not act on
    };

    std::string name;
    Kind kind{Kind::Setting};
    /// Sections that accept it, of "defaults", "devices", "multipaths",
    /// "overrides" (devices stands for its device {} entries, multipaths
    /// for its multipath {} entries).
    std::vector<std::string> sections;
    /// The built-in default as written; none when the keyword has none
    /// (it is unset unless a section sets it) or sets no field.
    std::optional<std::string> builtin;
    bool hasEffect{false}; ///< something here acts on it
    bool extension{false}; ///< ours; multipath-tools 0.9.4 has no such keyword

    bool operator==(const KeywordInfo &) const = default;
};

/// Every keyword of the keyword table (settings, then daemon-wide ones, then
/// the fieldless ones, each in table order); synonyms are not listed.
std::vector<KeywordInfo> keywords();

} // namespace mpath::config
