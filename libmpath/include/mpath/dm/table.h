#pragma once

#include "mpath/error.h"
#include "mpath/model/map.h"

#include <string>
#include <string_view>

// The device-mapper constructor table of a multipath map, as the stock
// `multipath` target and `lmpath` both read it:
//
//     <#features> [features] <#hwh args> [hwh [args]] <#pgs> <initial pg>
//     {<selector> <#selector args> [args] <#paths> <#path args>
//         {<major:minor> [path args]}}
//
// The same text is what `dmsetup table` prints back (STATUSTYPE_TABLE).

namespace mpath::dm {

/// The constructor parameters of \a map (without start, length and target
/// name).
/// \return the text, or EINVAL with a sentence naming the problem when the
///         map cannot be expressed as a table the kernel takes
Result<std::string> buildTable(const model::Map &map);

/// A full `dmsetup` table line: "0 <size> <target> <params>".
Result<std::string> buildTableLine(const model::Map &map);

/// \a base with the features, hardware handler, groups (selector and
/// per-path arguments; paths carry only their devt) and initial group of
/// the constructor parameters \a params.
/// \return the map, or EINVAL naming the word at fault
Result<model::Map> parseTable(std::string_view params, model::Map base = {});

/// Parses a `dmsetup table` line "<start> <length> <target> <params>";
/// sets sizeSectors and target as well.
Result<model::Map> parseTableLine(std::string_view line, model::Map base = {});

/// A device number written "major:minor", as tables and DM_PATH say it.
/// \return the number, or EINVAL naming the text
Result<dev_t> parseDeviceNumber(std::string_view text);

} // namespace mpath::dm
