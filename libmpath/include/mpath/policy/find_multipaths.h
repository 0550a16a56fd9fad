#pragma once

#include "mpath/config/config.h"

#include <string>

namespace mpath::policy {

/// What find_multipaths decides for one path. Waiting is the daemon's
/// business: it asks again when a path appears or the timeout expires.
enum class FindMultipathsDecision {
    Multipath,    ///< claim the path and build (or extend) the map
    NotMultipath, ///< leave the path to the rest of the system
    Wait,         ///< smart: hold the path back until another path appears or the timeout ends
};

/// What the decision is based on.
struct FindMultipathsInput {
    config::FindMultipaths mode{config::FindMultipaths::Strict};
    std::string wwid;      ///< "" never multipaths
    bool knownWwid{false}; ///< in the wwids file or in multipaths {}
    bool mapExists{false}; ///< a map for the WWID is already set up
    unsigned pathCount{1}; ///< non-blacklisted paths with this WWID, this one included
    bool timedOut{false};  ///< smart only: find_multipaths_timeout has passed for this path
};

/// find_multipaths as multipath-tools defines it:
/// - strict: known WWIDs (or existing maps) only;
/// - off and greedy: every non-blacklisted path with a WWID;
/// - on: known WWIDs, existing maps, or two paths or more;
/// - smart: like on, and a lone path with an unknown WWID waits for a
///   second one until the timeout, then is left alone.
FindMultipathsDecision decideFindMultipaths(const FindMultipathsInput &input);

std::string_view toString(FindMultipathsDecision d);

} // namespace mpath::policy
