#include "bus_endpoints.h"

#include "bus_service.h"
#include "log.h"

#include <cstring>
#include <mpath/sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-id128.h>
#include <unistd.h>

namespace mpathd {

using mpath::Error;
using mpath::Result;

namespace {

constexpr const char *kDisconnected = "type='signal',sender='org.freedesktop.DBus.Local',"
                                      "interface='org.freedesktop.DBus.Local',"
                                      "member='Disconnected'";

constexpr const char *kConnected = "type='signal',sender='org.freedesktop.DBus.Local',"
                                   "interface='org.freedesktop.DBus.Local',"
                                   "member='Connected'";

int onSystemConnect(sd_bus_message *, void *self, sd_bus_error *) {
    static_cast<BusEndpoints *>(self)->systemConnected();
    return 0;
}

int onSystemDisconnect(sd_bus_message *, void *self, sd_bus_error *) {
    static_cast<BusEndpoints *>(self)->systemDisconnected();
    return 0;
}

/// The bus's answer to RequestName. sd-bus's own handler closes the
/// connection on an error and says why only at debug level; this one says
/// it, and keeps the connection when the name only waits its turn.
int onNameRequested(sd_bus_message *m, void *self, sd_bus_error *) {
    auto *e = static_cast<BusEndpoints *>(self);
    if (sd_bus_message_is_method_error(m, nullptr)) {
        const sd_bus_error *err = sd_bus_message_get_error(m);
        if (sd_bus_error_has_name(err, SD_BUS_ERROR_NO_REPLY)) {
            // sd-bus's own timeout: the bus was slow, not against it.
            logWarning({}, std::string("system bus: no answer to the request for ") +
                               BusService::kBusName + " in time; asking again");
            e->requestName();
            return 1;
        }
        e->nameRefused(
            std::string(err && err->name ? err->name : "error") + ": " +
            (err && err->message ? err->message : strerror(sd_bus_message_get_errno(m))));
        return 1;
    }
    uint32_t reply = 0;
    if (sd_bus_message_read(m, "u", &reply) < 0) {
        e->nameRefused("an answer that cannot be read");
        return 1;
    }
    switch (reply) {
    case 1: // DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
    case 4: // DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER
        logDebug({}, std::string("system bus: owns ") + BusService::kBusName);
        break;
    case 2: // DBUS_REQUEST_NAME_REPLY_IN_QUEUE
        logWarning({}, std::string("system bus: another process owns ") + BusService::kBusName +
                           "; mpathd answers there once it lets it go");
        break;
    default:
        e->nameRefused("reply " + std::to_string(reply));
        break;
    }
    return 1;
}

} // namespace

struct BusEndpoints::Peer {
    BusEndpoints *owner{nullptr};
    sd_bus *bus{nullptr};
    sd_bus_slot *disconnect{nullptr};
    sd_event_source *drop{nullptr}; ///< frees it after the disconnect

    ~Peer() {
        sd_event_source_unref(drop);
        sd_bus_slot_unref(disconnect);
        if (bus) {
            owner->service_.detach(bus);
            (void)sd_bus_detach_event(bus);
            sd_bus_close_unref(bus);
        }
    }
};

BusEndpoints::BusEndpoints(BusService &service, sd_event *event)
    : service_(service), event_(sd_event_ref(event)) {}

BusEndpoints::~BusEndpoints() {
    peers_.clear();
    dropSystemBus();
    sd_event_source_unref(retry_);
    sd_event_source_unref(accept_);
    if (listenFd_ >= 0) {
        ::close(listenFd_);
        (void)::unlink(socketPath_.c_str());
    }
    sd_event_unref(event_);
}

Result<void> BusEndpoints::start(const std::string &socketPath) {
    connectSystemBus();

    socketPath_ = socketPath;
    if (auto r = mpath::sys::makeDirectories(mpath::sys::directoryOf(socketPath)); !r)
        return r.error().context("private bus socket");
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    if (socketPath.size() >= sizeof(sa.sun_path))
        return Error{ENAMETOOLONG, "private bus socket " + socketPath + ": name too long"};
    memcpy(sa.sun_path, socketPath.c_str(), socketPath.size());
    listenFd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listenFd_ < 0)
        return Error::fromErrno(errno, "private bus socket");
    (void)::unlink(socketPath.c_str()); // left by a daemon that died
    const mode_t old = ::umask(0077);   // root's only: its callers are trusted
    const int b = ::bind(listenFd_, reinterpret_cast<sockaddr *>(&sa), sizeof(sa));
    ::umask(old);
    if (b < 0 || ::chmod(socketPath.c_str(), 0600) < 0 || ::listen(listenFd_, 16) < 0)
        return Error::fromErrno(errno, "private bus socket " + socketPath);
    if (int r =
            sd_event_add_io(event_, &accept_, listenFd_, EPOLLIN, &BusEndpoints::onAccept, this);
        r < 0)
        return Error::fromErrno(-r, "private bus socket " + socketPath);
    return mpath::ok();
}

void BusEndpoints::connectSystemBus() {
    sd_bus *bus = nullptr;
    int r = sd_bus_new(&bus);
    const char *address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
    if (r >= 0)
        r = sd_bus_set_address(bus, address ? address : "unix:path=/run/dbus/system_bus_socket");
    if (r >= 0)
        r = sd_bus_set_bus_client(bus, 1);
    // In early boot the socket is not there yet: wait for it to appear.
    if (r >= 0)
        r = sd_bus_set_watch_bind(bus, 1);
    if (r >= 0)
        r = sd_bus_set_connected_signal(bus, 1);
    if (r >= 0)
        r = sd_bus_start(bus);
    if (r >= 0)
        r = sd_bus_attach_event(bus, event_, SD_EVENT_PRIORITY_NORMAL);
    if (r >= 0)
        r = sd_bus_add_match(bus, &systemDisconnect_, kDisconnected, &onSystemDisconnect, this);
    if (r >= 0)
        r = sd_bus_add_match(bus, &systemConnect_, kConnected, &onSystemConnect, this);
    if (r >= 0)
        r = service_.attach(bus, false);
    if (r < 0) {
        logWarning({}, std::string("system bus: ") + strerror(-r) + "; trying again in 10 s");
        sd_bus_slot_unref(systemDisconnect_);
        systemDisconnect_ = nullptr;
        sd_bus_slot_unref(systemConnect_);
        systemConnect_ = nullptr;
        if (bus) {
            service_.detach(bus);
            (void)sd_bus_detach_event(bus);
            sd_bus_close_unref(bus);
        }
        (void)sd_event_add_time_relative(event_, &retry_, CLOCK_MONOTONIC, 10 * 1000000, 0,
                                         &BusEndpoints::onRetry, this);
        return;
    }
    system_ = bus;
    systemReady_ = false;
    connecting_ = std::chrono::steady_clock::now();
    logDebug({}, "system bus: connecting");
}

void BusEndpoints::dropSystemBus() {
    sd_bus_slot_unref(systemDisconnect_);
    systemDisconnect_ = nullptr;
    sd_bus_slot_unref(systemConnect_);
    systemConnect_ = nullptr;
    if (system_) {
        service_.detach(system_);
        (void)sd_bus_detach_event(system_);
        sd_bus_close_unref(system_);
        system_ = nullptr;
    }
}

int BusEndpoints::onRetry(sd_event_source *s, uint64_t, void *self) {
    auto *e = static_cast<BusEndpoints *>(self);
    sd_event_source_unref(s);
    e->retry_ = nullptr;
    e->dropSystemBus();
    e->connectSystemBus();
    return 0;
}

void BusEndpoints::systemConnected() {
    systemReady_ = true;
    reconnectDelay_ = kFirstReconnect;
    logDebug({}, "system bus: connected");
    // Asked once the bus accepted the connection: a request sent with the
    // connection would spend its time (sd-bus's 25 s) waiting for that.
    requestName();
}

void BusEndpoints::requestName() {
    if (!system_)
        return;
    // Queued behind an owner that is still going away (a daemon restarted
    // at once): sd-bus's default would refuse it instead, and close the
    // connection.
    if (int r = sd_bus_request_name_async(system_, nullptr, BusService::kBusName, SD_BUS_NAME_QUEUE,
                                          &onNameRequested, this);
        r < 0)
        nameRefused(std::string("cannot ask for it: ") + strerror(-r));
}

void BusEndpoints::systemDisconnected() {
    if (retry_)
        return; // said already (a refused name, then its disconnect)
    // The first time at once (a bus that restarted), then every 10 s.
    const auto delay = std::exchange(reconnectDelay_, kReconnect);
    const std::string again = "; connecting again in " + std::to_string(delay.count()) + " s";
    if (systemReady_) {
        logWarning({}, "system bus: disconnected" + again);
    } else {
        const auto s = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - connecting_)
                           .count();
        logWarning({}, "system bus: the connection closed before the bus accepted it (" +
                           std::to_string(s / 1000) + "." + std::to_string(s % 1000 / 100) +
                           " s after it began: the bus refused it or did not answer in time)" +
                           again);
    }
    // Dropped by the timer, not from inside the bus's own callback.
    (void)sd_event_add_time_relative(
        event_, &retry_, CLOCK_MONOTONIC,
        std::chrono::duration_cast<std::chrono::microseconds>(delay).count(), 0,
        &BusEndpoints::onRetry, this);
}

void BusEndpoints::nameRefused(const std::string &why) {
    if (retry_)
        return;
    logWarning({}, std::string("system bus: cannot own ") + BusService::kBusName + " (" + why +
                       "); connecting again in 10 s");
    (void)sd_event_add_time_relative(event_, &retry_, CLOCK_MONOTONIC, 10 * 1000000, 0,
                                     &BusEndpoints::onRetry, this);
}

int BusEndpoints::onAccept(sd_event_source *, int fd, uint32_t, void *self) {
    auto *e = static_cast<BusEndpoints *>(self);
    const int c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (c < 0)
        return 0;
    // The socket's mode keeps others out, unless someone loosened it or
    // passed a connected socket on: every caller here is trusted as root,
    // so the kernel is asked who connected. (sd-bus's server leaves this
    // to its owner, before the bus is made.)
    ucred cred{};
    socklen_t len = sizeof(cred);
    const bool known =
        ::getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && len == sizeof(cred);
    const int err = errno;
    if (!known || cred.uid != 0) {
        logWarning({}, known ? "private bus: refused a connection from uid " +
                                   std::to_string(cred.uid) + " (pid " + std::to_string(cred.pid) +
                                   "): the socket is root's only"
                             : std::string("private bus: refused a connection: its peer is not "
                                           "known: ") +
                                   strerror(err));
        ::close(c);
        return 0;
    }
    auto peer = std::make_unique<Peer>();
    peer->owner = e;
    sd_id128_t id;
    int r = sd_id128_randomize(&id);
    if (r >= 0)
        r = sd_bus_new(&peer->bus);
    if (r >= 0)
        r = sd_bus_set_fd(peer->bus, c, c);
    if (r >= 0)
        r = sd_bus_set_server(peer->bus, 1, id);
    if (r >= 0)
        r = sd_bus_start(peer->bus);
    if (r >= 0)
        r = sd_bus_attach_event(peer->bus, e->event_, SD_EVENT_PRIORITY_NORMAL);
    if (r >= 0)
        r = sd_bus_add_match(
            peer->bus, &peer->disconnect, kDisconnected,
            [](sd_bus_message *, void *p, sd_bus_error *) -> int {
                auto *peer = static_cast<Peer *>(p);
                peer->owner->peerDisconnected(peer);
                return 0;
            },
            peer.get());
    if (r >= 0)
        r = e->service_.attach(peer->bus, true);
    if (r < 0) {
        if (!peer->bus)
            ::close(c);
        logWarning({}, std::string("private bus: cannot take a connection: ") + strerror(-r));
        return 0;
    }
    e->peers_.push_back(std::move(peer));
    return 0;
}

void BusEndpoints::peerDisconnected(Peer *peer) {
    if (peer->drop)
        return;
    // Freed from a deferred source: this runs inside the bus's callback.
    (void)sd_event_add_defer(
        event_, &peer->drop,
        [](sd_event_source *, void *p) -> int {
            auto *peer = static_cast<Peer *>(p);
            auto &peers = peer->owner->peers_;
            std::erase_if(peers, [peer](const auto &q) { return q.get() == peer; });
            return 0;
        },
        peer);
}

} // namespace mpathd
