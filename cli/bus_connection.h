#pragma once

#include "bus_message.h"

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>

struct sd_bus;
struct sd_bus_slot;

namespace mpathctl {

/// One sd-bus connection, to the system bus or to mpathd's private
/// socket, with its matches and pending asynchronous calls. Errors are
/// values: a negative errno, or a D-Bus error in CallError.
class BusConnection {
public:
    /// A failed call: the D-Bus error, or only errno when there is none.
    struct CallError {
        std::string name;
        std::string message;
        int error{0};
    };

    /// Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS or the default).
    /// \return 0 on success or a negative error code
    [[nodiscard]] static int openSystem(std::unique_ptr<BusConnection> &out);
    /// Connects directly to a peer at \p address ("unix:path=/run/mpathd/bus").
    /// \return 0 on success or a negative error code
    [[nodiscard]] static int openPeer(const std::string &address,
                                      std::unique_ptr<BusConnection> &out);

    ~BusConnection();
    BusConnection(const BusConnection &) = delete;
    BusConnection &operator=(const BusConnection &) = delete;

    /// On the system bus calls go to a bus name; on a peer socket to no one.
    bool isBusClient() const { return busClient_; }

    /// A method call on \p path to \p destination (ignored on a peer socket).
    BusMessage newMethodCall(const char *destination, const std::string &path,
                             const char *interface, const char *member);
    /// Sends \p call and waits \p timeoutUsec (0: sd-bus's default) for
    /// the reply. \return 0 on success or a negative error code, \p error
    /// filled
    [[nodiscard]] int call(BusMessage &call, uint64_t timeoutUsec, BusMessage &reply,
                           CallError &error);
    /// Sends \p call; \p onReply runs with the reply (or the error) from
    /// run(). \return 0 on success or a negative error code
    [[nodiscard]] int callAsync(BusMessage &call, uint64_t timeoutUsec,
                                std::function<void(BusMessage &)> onReply);
    /// \p onMessage runs from run() for each message \p rule matches.
    /// \return 0 on success or a negative error code
    [[nodiscard]] int addMatch(const std::string &rule,
                               std::function<void(BusMessage &)> onMessage);

    /// Dispatches messages until \p done says so or \p stopFd (-1: none)
    /// becomes readable. \return 0, -EINTR when stopped by \p stopFd, or
    /// a negative error code
    [[nodiscard]] int run(const std::function<bool()> &done, int stopFd);

private:
    struct Handler;

    BusConnection(sd_bus *bus, bool busClient);

    sd_bus *bus_;
    bool busClient_;
    /// Matches and pending calls, each with its sd-bus slot.
    std::list<std::unique_ptr<Handler>> handlers_;
};

} // namespace mpathctl
