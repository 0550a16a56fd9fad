#pragma once

#include "objects.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace mpathctl {

/// mpathd's objects for people (like `multipath -ll`) and for programs
/// (JSON, docs/mpathctl-json.md). Reads the model only.
class TopologyPrinter {
public:
    /// The version of the JSON schema, in every object's "version".
    static constexpr int jsonVersion = 1;

    /// \param colour mark states with ANSI colours
    explicit TopologyPrinter(bool colour) : colour_(colour) {}

    /// Every map with its groups and paths.
    void topology(const Objects &objects, std::ostream &out) const;
    /// One map's tree and its settings.
    void map(const Objects &objects, const MapInfo &map, std::ostream &out) const;
    /// One line per map.
    void maps(const Objects &objects, std::ostream &out) const;
    /// One line per path.
    void paths(const Objects &objects, std::ostream &out) const;
    /// One path, a property per line.
    void path(const PathInfo &path, std::ostream &out) const;
    /// The Manager's properties.
    void manager(const ManagerInfo &manager, std::ostream &out) const;

    static nlohmann::json topologyJson(const Objects &objects);
    static nlohmann::json mapsJson(const Objects &objects);
    static nlohmann::json pathsJson(const Objects &objects);
    static nlohmann::json mapJson(const Objects &objects, const MapInfo &map);
    static nlohmann::json pathJson(const PathInfo &path);
    static nlohmann::json managerJson(const ManagerInfo &manager);

    /// A map or path as one JSON object (no "version").
    static nlohmann::json mapObject(const MapInfo &map);
    static nlohmann::json pathObject(const PathInfo &path);

    /// Bytes as multipath -ll prints sizes: "64M", "1.5G", "10G".
    static std::string humanSize(uint64_t bytes);

private:
    /// \p word in the colour its meaning has, when colour is on.
    std::string state(const std::string &word) const;
    void tree(const Objects &objects, const MapInfo &map, std::ostream &out) const;

    bool colour_;
};

} // namespace mpathctl
