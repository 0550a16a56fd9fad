#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mpath/sys/event_loop.h>
#include <string>
#include <variant>
#include <vector>

struct sd_bus;
struct sd_bus_slot;

namespace mpathd {

class Daemon;

/// mpathd's D-Bus API (daemon/data/dbus-1/interfaces/org.mpathd.Multipath1.xml)
/// on one or more connections: the system bus and the private socket's
/// peers. Properties are computed from the daemon's state: at most every
/// kPublishDelay after callbacks of the loop ran, and before any read
/// that would see an older computation; what changed goes out as
/// PropertiesChanged and InterfacesAdded/Removed.
/// Changes are authorized by polkit (asynchronously) on the system bus;
/// a peer of the private socket (root only, by its mode) is trusted.
class BusService {
public:
    static constexpr const char *kBusName = "org.mpathd.Multipath1";
    static constexpr const char *kRoot = "/org/mpathd/Multipath1";

    explicit BusService(Daemon &daemon);
    ~BusService();
    BusService(const BusService &) = delete;
    BusService &operator=(const BusService &) = delete;

    /// Serves the API on \a bus (the caller attaches it to the loop and
    /// keeps it open until detach()). \a peer: a private peer-to-peer
    /// connection, whose caller is trusted.
    /// \return 0 or a negative errno from sd-bus
    [[nodiscard]] int attach(sd_bus *bus, bool peer);
    void detach(sd_bus *bus);

    /// One property's value.
    struct ObjectPath {
        std::string path;
        bool operator==(const ObjectPath &) const = default;
    };
    using Value =
        std::variant<bool, uint32_t, int32_t, uint64_t, std::string, std::vector<std::string>,
                     ObjectPath, std::vector<ObjectPath>, std::map<std::string, std::string>>;
    /// One object: its interface and its properties in the XML's order.
    struct Object {
        std::string interface;
        std::vector<std::pair<std::string, Value>> properties;
        bool operator==(const Object &) const = default;
    };

    /// How long changes gather before they are computed and signalled.
    static constexpr std::chrono::milliseconds kPublishDelay{100};

    /// The objects by object path, computed again first when the state may
    /// have changed since.
    const std::map<std::string, Object> &objects();

    /// Computes the objects again and signals what changed.
    void publish();

    /// The object path of map \a wwid / path \a kernelName.
    static std::string mapPath(const std::string &wwid);
    static std::string groupPath(const std::string &wwid, unsigned number);
    static std::string pathPath(const std::string &kernelName);

    // Called from the sd-bus C callbacks (bus_service.cpp).
    struct Connection;
    struct Impl;

private:
    std::map<std::string, Object> compute() const;
    /// After each callback of the loop: answers waiting calls, and marks
    /// the objects for computing again.
    void changed();

    Daemon &daemon_;
    std::vector<std::unique_ptr<Connection>> connections_;
    std::map<std::string, Object> objects_;
    std::unique_ptr<Impl> impl_;
    mpath::sys::EventLoop::SourcePtr afterDispatch_;
    mpath::sys::EventLoop::SourcePtr publishTimer_;
    bool dirty_{true};
    bool publishedByTimer_{false}; ///< the callback that just ran was publish()'s own
};

} // namespace mpathd
