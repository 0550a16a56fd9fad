#include "mpath/find_multipaths.h"

namespace mpath {

FindMultipathsDecision FindMultipathsPolicy::decide(const FindMultipathsInput &in) {
    using D = FindMultipathsDecision;
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

const char *toString(FindMultipathsDecision d) {
    switch (d) {
    case FindMultipathsDecision::Multipath:
        return "multipath";
    case FindMultipathsDecision::NotMultipath:
        return "not multipath";
    case FindMultipathsDecision::Wait:
        return "wait";
    }
    return "unknown";
}

} // namespace mpath
