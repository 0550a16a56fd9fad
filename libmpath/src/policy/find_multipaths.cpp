#include "mpath/policy/find_multipaths.h"

#include <array>

namespace mpath::policy {

FindMultipathsDecision decideFindMultipaths(const FindMultipathsInput &in) {
    using D = FindMultipathsDecision;
    using config::FindMultipaths;
    if (in.wwid.empty())
        return D::NotMultipath;
    bool known = in.knownWwid || in.mapExists;
    switch (in.mode) {
    case FindMultipaths::Strict:
        return known ? D::Multipath : D::NotMultipath;
    case FindMultipaths::Off:
    case FindMultipaths::Greedy:
        return D::Multipath;
    case FindMultipaths::On:
        return known || in.pathCount >= 2 ? D::Multipath : D::NotMultipath;
    case FindMultipaths::Smart:
        if (known || in.pathCount >= 2)
            return D::Multipath;
        return in.timedOut ? D::NotMultipath : D::Wait;
    }
    return D::NotMultipath;
}

std::string_view toString(FindMultipathsDecision d) {
    static constexpr std::array<EnumName<FindMultipathsDecision>, 3> names{{
        {FindMultipathsDecision::Multipath, "multipath"},
        {FindMultipathsDecision::NotMultipath, "not multipath"},
        {FindMultipathsDecision::Wait, "wait"},
    }};
    return nameOf(names, d);
}

} // namespace mpath::policy
