#pragma once

#include "bus_connection.h"
#include "objects.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mpathctl {

/// mpathd's API as mpathctl uses it: finds the daemon (system bus, else
/// its private socket), makes the calls and turns every failure into a
/// DaemonError with the exit code it means.
class BusClient {
public:
    enum class Mode { Auto, System, Private };

    static constexpr const char *busName = "org.mpathd.Multipath1";
    static constexpr const char *rootPath = "/org/mpathd/Multipath1";
    static constexpr const char *managerPath = "/org/mpathd/Multipath1/Manager";
    static constexpr const char *managerInterface = "org.mpathd.Multipath1.Manager";
    static constexpr const char *mapInterface = "org.mpathd.Multipath1.Map";
    static constexpr const char *pathInterface = "org.mpathd.Multipath1.Path";
    static constexpr const char *defaultSocket = "/run/mpathd/bus";

    /// \param socketPath the private socket's file
    BusClient(Mode mode, std::string socketPath);
    ~BusClient();

    /// Every object, from one GetManagedObjects call.
    std::vector<ManagedObject> managedObjects();
    /// Every map as JSON, from Manager.DescribeMaps: the document `show
    /// maps --json` prints. \return nothing when the daemon has no such
    /// method (older than the client)
    std::optional<std::string> describeMaps();
    /// Every map and path as JSON, from Manager.DescribeTopology: the
    /// document `show topology --json` prints. \return nothing when the
    /// daemon has no such method
    std::optional<std::string> describeTopology();
    /// The object path of a map or path named any way ResolveDevice
    /// accepts.
    std::string resolve(const std::string &device);
    /// One property, read with org.freedesktop.DBus.Properties.Get.
    PropertyValue property(const std::string &path, const char *interface, const char *name);

    /// A method whose arguments \p append adds before the options.
    void call(const std::string &path, const char *interface, const char *member,
              const std::function<void(BusMessage &)> &append, bool persist = false,
              uint64_t timeoutUsec = 0);

    /// Calls like call() without waiting: \p done becomes true when the
    /// reply is in, from run(); a failure is thrown from run().
    void callAsync(const std::string &path, const char *interface, const char *member,
                   uint64_t timeoutUsec, bool &done);

    /// Signals from mpathd's objects under \p pathNamespace; \p onSignal
    /// runs from run(). Connects first when needed.
    void subscribe(const std::string &pathNamespace, const char *interface, const char *member,
                   std::function<void(BusMessage &)> onSignal);

    /// Dispatches until \p done or SIGINT/SIGTERM. \return false when a
    /// signal stopped it
    bool run(const std::function<bool()> &done);

    /// Whether the daemon answered on the system bus (else the socket).
    bool onSystemBus() const;

private:
    /// The JSON document Manager.\a method answers with; nothing when the
    /// daemon does not know \a method.
    std::optional<std::string> describe(const char *method);
    void connect();
    BusMessage callChecked(const std::string &path, const char *interface, const char *member,
                           const std::function<void(BusMessage &)> &append, bool options,
                           bool persist, uint64_t timeoutUsec);
    [[noreturn]] void fail(const BusConnection::CallError &e) const;

    Mode mode_;
    std::string socketPath_;
    std::unique_ptr<BusConnection> connection_;
    /// A D-Bus error an asynchronous reply carried, thrown from run().
    std::unique_ptr<BusConnection::CallError> asyncError_;
    /// The name answered on the system bus once: no fallback after that.
    bool confirmed_{false};
    /// Auto tried the private socket first (root can open it): no
    /// dbus-daemon between us and mpathd, and no Hello.
    bool triedPeer_{false};
};

} // namespace mpathctl
