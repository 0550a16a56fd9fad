#pragma once

#include <chrono>
#include <memory>
#include <mpath/error.h>
#include <string>
#include <vector>

struct sd_bus;
struct sd_bus_slot;
struct sd_event;
struct sd_event_source;

namespace mpathd {

class BusService;

/// Where the D-Bus API answers: the system bus under the name
/// org.mpathd.Multipath1 (waiting for the bus's socket when it is not there
/// yet, as in early boot, and connecting again when the bus restarts), and
/// a private peer-to-peer socket for root that answers with no bus at all:
/// its mode is 0600, and a peer whose credentials (SO_PEERCRED) are not
/// root's is closed at once, since its calls would not be authorized.
class BusEndpoints {
public:
    static constexpr const char *kSocket = "/run/mpathd/bus";

    BusEndpoints(BusService &service, sd_event *event);
    ~BusEndpoints();
    BusEndpoints(const BusEndpoints &) = delete;
    BusEndpoints &operator=(const BusEndpoints &) = delete;

    /// Starts both. A missing system bus is no error; a private socket
    /// that cannot be made is.
    mpath::Result<void> start(const std::string &socketPath = kSocket);

    /// The private socket's connections open now.
    size_t peerCount() const { return peers_.size(); }

    // For the sd-bus callbacks of bus_endpoints.cpp.
    struct Peer;
    void systemConnected();
    void systemDisconnected();
    void nameRefused(const std::string &why);
    void requestName();
    void peerDisconnected(Peer *peer);

private:
    void connectSystemBus();
    void dropSystemBus();
    static int onAccept(sd_event_source *, int fd, uint32_t, void *self);
    static int onRetry(sd_event_source *, uint64_t, void *self);

    BusService &service_;
    sd_event *event_;
    sd_bus *system_{nullptr};
    sd_bus_slot *systemDisconnect_{nullptr};
    sd_bus_slot *systemConnect_{nullptr};
    bool systemReady_{false}; ///< the bus said Hello back
    std::chrono::steady_clock::time_point connecting_;
    static constexpr std::chrono::seconds kFirstReconnect{1}, kReconnect{10};
    std::chrono::seconds reconnectDelay_{kFirstReconnect}; ///< after the next disconnect
    sd_event_source *retry_{nullptr};
    int listenFd_{-1};
    std::string socketPath_;
    sd_event_source *accept_{nullptr};
    std::vector<std::unique_ptr<Peer>> peers_;
};

} // namespace mpathd
