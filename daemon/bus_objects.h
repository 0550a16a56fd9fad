#pragma once

#include "bus_service.h"

#include <map>
#include <span>
#include <string>
#include <string_view>

namespace mpathd {

class Daemon;

/// The objects of the D-Bus API computed from the daemon's state: the
/// manager, every map with its path groups, every path with a WWID; and
/// the properties each interface has, in the interface XML's order.
class BusObjects {
public:
    /// One property of an interface.
    struct Property {
        const char *name;
        const char *signature;
    };

    static constexpr const char *kManagerInterface = "org.mpathd.Multipath1.Manager";
    static constexpr const char *kMapInterface = "org.mpathd.Multipath1.Map";
    static constexpr const char *kGroupInterface = "org.mpathd.Multipath1.PathGroup";
    static constexpr const char *kPathInterface = "org.mpathd.Multipath1.Path";
    static constexpr const char *kManagerPath = "/org/mpathd/Multipath1/Manager";
    static constexpr const char *kMapsPrefix = "/org/mpathd/Multipath1/maps";
    static constexpr const char *kPathsPrefix = "/org/mpathd/Multipath1/paths";

    /// The properties of \a interface, in order; none for an unknown one.
    static std::span<const Property> properties(std::string_view interface);

    /// Every object of \a daemon's state by object path.
    static std::map<std::string, BusService::Object> compute(const Daemon &daemon);

    /// The answer of Manager.DescribeMaps: every map of \a objects with its
    /// groups and its paths' kernel names, as JSON in the layout and order
    /// of `mpathctl show maps --json` (docs/mpathctl-json.md, version 1).
    static std::string mapsDocument(const std::map<std::string, BusService::Object> &objects);

    /// The answer of Manager.DescribeTopology: mapsDocument() and every
    /// path of \a objects, in the layout and order of `mpathctl show
    /// topology --json`.
    static std::string topologyDocument(const std::map<std::string, BusService::Object> &objects);
};

} // namespace mpathd
