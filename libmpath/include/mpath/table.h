#pragma once

#include "mpath/map.h"

#include <string>
#include <string_view>

namespace mpath {

/// The device-mapper constructor table of a multipath map, as the stock
/// `multipath` target and `lmpath` both read it:
///
///     <#features> [features] <#hwh args> [hwh [args]] <#pgs> <initial pg>
///     {<selector> <#selector args> [args] <#paths> <#path args>
///         {<major:minor> [path args]}}
///
/// The same text is what `dmsetup table` prints back (STATUSTYPE_TABLE).
class Table {
public:
    /// Builds the constructor parameters of \p map (without start, length
    /// and target name).
    /// \param why receives a sentence naming the problem when the map
    ///        cannot be expressed as a table; may be null.
    /// \return 0 on success or -EINVAL.
    [[nodiscard]] static int build(const Map &map, std::string &params, std::string *why = nullptr);

    /// Builds a full `dmsetup` table line: "0 <size> <target> <params>".
    [[nodiscard]] static int buildLine(const Map &map, std::string &line,
                                       std::string *why = nullptr);

    /// Parses constructor parameters into \p map: features, hardware
    /// handler, groups with selector and per-path arguments, initial group.
    /// Paths carry only their devt; other fields of \p map are left alone.
    /// \return 0 on success or -EINVAL with \p why set.
    [[nodiscard]] static int parse(std::string_view params, Map &map, std::string *why = nullptr);

    /// Parses a `dmsetup table` line "<start> <length> <target> <params>";
    /// sets sizeSectors and target as well.
    [[nodiscard]] static int parseLine(std::string_view line, Map &map, std::string *why = nullptr);

    /// How many per-path table arguments a known selector takes, -1 when the
    /// selector is not known.
    static int selectorTableArgs(std::string_view selector);
};

} // namespace mpath
