#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace mpathctl {

/// A property value as D-Bus carried it, with the integer types widened:
/// the model reads it without knowing sd-bus.
using PropertyValue = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string,
                                   std::vector<std::string>, std::map<std::string, std::string>>;
/// Property name to value, of one interface.
using Properties = std::map<std::string, PropertyValue>;

/// One object of ObjectManager.GetManagedObjects or InterfacesAdded.
struct ManagedObject {
    std::string path;
    /// Interface name to its properties.
    std::map<std::string, Properties> interfaces;
};

/// org.mpathd.Multipath1.Manager.
struct ManagerInfo {
    std::string version;
    std::string target;
    bool ready{false};
    bool reconfiguring{false};
    uint32_t pendingMaps{0};
    std::vector<std::string> configFiles;
};

/// org.mpathd.Multipath1.Path.
struct PathInfo {
    std::string objectPath;
    std::string name;
    std::string device;
    std::string devt;
    std::string wwid;
    std::string vendor;
    std::string product;
    std::string transport;
    std::map<std::string, std::string> transportIds;
    std::string checkerState;
    std::string dmState;
    bool adminFailed{false};
    /// Held failed as a shaky path (san_path_err_*) until it has stayed up
    /// its recovery time.
    bool shaky{false};
    int32_t priority{0};
    uint32_t failCount{0};
    /// The map's name, "" when the path is in none.
    std::string mapName;
    /// The group's number, 0 when the path is in none.
    uint32_t groupNumber{0};
};

/// org.mpathd.Multipath1.PathGroup.
struct GroupInfo {
    std::string objectPath;
    uint32_t number{0};
    std::string state;
    int32_t priority{0};
    std::string selector;
    /// Kernel names, in the table's order.
    std::vector<std::string> paths;
};

/// org.mpathd.Multipath1.Map.
struct MapInfo {
    std::string objectPath;
    std::string name;
    std::string wwid;
    std::string uuid;
    std::string target;
    uint64_t sizeBytes{0};
    std::vector<std::string> features;
    std::string hardwareHandler;
    bool queueIfNoPath{false};
    std::string noPathRetry;
    uint32_t pgInitRetries{0};
    uint32_t pgInitDelayMsecs{0};
    std::string selector;
    uint32_t activeGroup{0};
    std::string blockDevice;
    std::string devt;
    std::string state;
    uint32_t usablePaths{0};
    /// By number.
    std::vector<GroupInfo> groups;
    /// Kernel names, in the kernel's naming order.
    std::vector<std::string> paths;
    std::map<std::string, std::string> overrides;
};

/// What mpathd exports, as plain data: built from one GetManagedObjects
/// answer, maps sorted by name and paths by kernel name so that every
/// listing is deterministic.
struct Objects {
    /// Builds the model from \p objects; unknown interfaces and
    /// properties are ignored, missing ones keep their defaults.
    static Objects fromManagedObjects(const std::vector<ManagedObject> &objects);
    /// The maps of a DescribeMaps answer (the document `show maps --json`
    /// prints); no manager, no paths. Fields it lacks keep their defaults.
    /// \throw std::runtime_error when \p json is not such a document
    static Objects fromMapsDocument(const std::string &json);
    /// The maps and paths of a DescribeTopology answer (the document
    /// `show topology --json` prints); no manager. Paths have no object
    /// path. \throw std::runtime_error when \p json is not such a document
    static Objects fromTopologyDocument(const std::string &json);

    /// "sdb" < "sdz" < "sdaa", "nvme0n2" < "nvme0n10": the order the
    /// kernel names devices in.
    static bool nameLess(const std::string &a, const std::string &b);

    /// \return the map with object path \p objectPath, or nullptr
    const MapInfo *mapAt(const std::string &objectPath) const;
    /// \return the path with object path \p objectPath, or nullptr
    const PathInfo *pathAt(const std::string &objectPath) const;
    /// \return the path with kernel name \p name, or nullptr
    const PathInfo *path(const std::string &name) const;

    ManagerInfo manager;
    std::vector<MapInfo> maps;
    std::vector<PathInfo> paths;
};

} // namespace mpathctl
