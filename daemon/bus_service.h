#pragma once

#include "bus_call.h"

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
struct sd_bus_message;

namespace mpathd {

class BusActions;
class BusArguments;
enum class BusAct;
class Daemon;
class PolkitAuthorizer;
struct BusMethod;

/// mpathd's D-Bus API (daemon/data/dbus-1/interfaces/org.mpathd.Multipath1.xml)
/// on one or more connections: the system bus and the private socket's
/// peers. Properties are computed from the daemon's state: at most every
/// kPublishDelay after callbacks of the loop ran, and before any read
/// that would see an older computation; what changed goes out as
/// PropertiesChanged and InterfacesAdded/Removed.
/// Every method call goes the same way (the table of bus_method.cpp):
/// its arguments are read and checked (BusArguments), its object found and
/// checked (BusActions::prepare()), then it is authorized by polkit
/// (PolkitAuthorizer) on the system bus -- a peer of the private socket is
/// root, the endpoint checks -- and carried out (BusActions::run()); what
/// changed is signalled before the reply.
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

    /// Manager.DescribeMaps' answer for the objects(): rendered once after
    /// each change that a read asks for, then given as it is.
    const std::string &mapsDocument();

    /// Manager.DescribeTopology's answer, kept as mapsDocument() is.
    const std::string &topologyDocument();

    /// Computes the objects again and signals what changed.
    void publish();

    /// Carries out \a act (BusMethod::of()) on the object at
    /// \a objectPath with \a args for a front-end whose caller is root
    /// (multipath-tools' command socket checks it): the object is found
    /// and checked, and what changed signalled, as for a D-Bus call; no
    /// polkit. \a answer gets the outcome once.
    void act(BusAct act, const std::string &objectPath, const BusArguments &args,
             TextCall::Answer answer);

    /// The object path of map \a wwid / path \a kernelName.
    static std::string mapPath(const std::string &wwid);
    static std::string groupPath(const std::string &wwid, unsigned number);
    static std::string pathPath(const std::string &kernelName);

private:
    struct Connection;

    /// After each callback of the loop: answers waiting calls, and marks
    /// the objects for computing again.
    void changed();
    /// A call of \a method: parse, validate, authorize, act, signal, reply.
    void dispatch(const BusMethod &method, sd_bus_message *m);
    Connection *connectionOf(sd_bus_message *m);

    /// The sd-bus callbacks (bus_service.cpp); userdata is the service.
    struct Callbacks;

    Daemon &daemon_;
    std::vector<std::unique_ptr<Connection>> connections_;
    std::map<std::string, Object> objects_;
    /// A document rendered from objects_, and whether objects_ changed
    /// since.
    struct Document {
        std::string text;
        bool stale{true};
    };
    const std::string &render(Document &d,
                              std::string (*write)(const std::map<std::string, Object> &));
    Document mapsDocument_;
    Document topologyDocument_;
    /// objects_ changed: every document is rendered again when asked for.
    void documentsStale() { mapsDocument_.stale = topologyDocument_.stale = true; }
    std::unique_ptr<BusActions> actions_;
    std::unique_ptr<PolkitAuthorizer> authorizer_;
    mpath::sys::EventLoop::SourcePtr afterDispatch_;
    mpath::sys::EventLoop::SourcePtr publishTimer_;
    bool dirty_{true};
    bool publishedByTimer_{false}; ///< the callback that just ran was publish()'s own
    /// Calls still waiting when the service goes hold it weakly: they
    /// answer without signalling.
    std::shared_ptr<bool> alive_{std::make_shared<bool>(true)};
};

} // namespace mpathd
