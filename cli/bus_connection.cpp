#include "bus_connection.h"

#include <cerrno>
#include <ctime>
#include <poll.h>
#include <system_error>
#include <systemd/sd-bus.h>
#include <unistd.h>

namespace mpathctl {

struct BusConnection::Handler {
    std::function<void(BusMessage &)> fn;
    sd_bus_slot *slot{nullptr};

    ~Handler() { sd_bus_slot_unref(slot); }

    // The one place sd-bus calls back into C++: nothing may escape it.
    static int dispatch(sd_bus_message *m, void *userdata, sd_bus_error *) {
        auto *h = static_cast<Handler *>(userdata);
        try {
            BusMessage message = BusMessage::ref(m);
            h->fn(message);
        } catch (...) {
            // A malformed message is skipped; the caller's state says the rest.
        }
        return 0;
    }
};

namespace {

void configure(sd_bus *bus) {
    // polkit may ask the person at the terminal for a password.
    sd_bus_set_allow_interactive_authorization(bus, isatty(STDIN_FILENO) == 1);
}

} // namespace

BusConnection::BusConnection(sd_bus *bus, bool busClient) : bus_(bus), busClient_(busClient) {}

BusConnection::~BusConnection() {
    handlers_.clear();
    sd_bus_flush_close_unref(bus_);
}

int BusConnection::openSystem(std::unique_ptr<BusConnection> &out) {
    sd_bus *bus = nullptr;
    if (int r = sd_bus_open_system(&bus); r < 0)
        return r;
    configure(bus);
    out.reset(new BusConnection(bus, true));
    return 0;
}

int BusConnection::openPeer(const std::string &address, std::unique_ptr<BusConnection> &out) {
    sd_bus *bus = nullptr;
    int r = sd_bus_new(&bus);
    if (r < 0)
        return r;
    if ((r = sd_bus_set_address(bus, address.c_str())) < 0 ||
        (r = sd_bus_set_bus_client(bus, 0)) < 0 || (r = sd_bus_start(bus)) < 0) {
        sd_bus_unref(bus);
        return r;
    }
    configure(bus);
    out.reset(new BusConnection(bus, false));
    return 0;
}

BusMessage BusConnection::newMethodCall(const char *destination, const std::string &path,
                                        const char *interface, const char *member) {
    sd_bus_message *m = nullptr;
    int r = sd_bus_message_new_method_call(bus_, &m, busClient_ ? destination : nullptr,
                                           path.c_str(), interface, member);
    if (r < 0)
        throw std::system_error(-r, std::generic_category(), "cannot build a method call");
    return BusMessage::adopt(m);
}

int BusConnection::call(BusMessage &call, uint64_t timeoutUsec, BusMessage &reply,
                        CallError &error) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *m = nullptr;
    int r = sd_bus_call(bus_, call.get(), timeoutUsec, &e, &m);
    if (r < 0) {
        error.error = -r;
        error.name = e.name ? e.name : "";
        error.message = e.message ? e.message : "";
        sd_bus_error_free(&e);
        return r;
    }
    reply = BusMessage::adopt(m);
    return 0;
}

int BusConnection::callAsync(BusMessage &call, uint64_t timeoutUsec,
                             std::function<void(BusMessage &)> onReply) {
    auto h = std::make_unique<Handler>();
    h->fn = std::move(onReply);
    int r = sd_bus_call_async(bus_, &h->slot, call.get(), Handler::dispatch, h.get(), timeoutUsec);
    if (r < 0)
        return r;
    handlers_.push_back(std::move(h));
    return 0;
}

int BusConnection::addMatch(const std::string &rule, std::function<void(BusMessage &)> onMessage) {
    auto h = std::make_unique<Handler>();
    h->fn = std::move(onMessage);
    int r = sd_bus_add_match(bus_, &h->slot, rule.c_str(), Handler::dispatch, h.get());
    if (r < 0)
        return r;
    handlers_.push_back(std::move(h));
    return 0;
}

int BusConnection::run(const std::function<bool()> &done, int stopFd) {
    for (;;) {
        if (done())
            return 0;
        int r = sd_bus_process(bus_, nullptr);
        if (r < 0)
            return r;
        if (r > 0)
            continue;
        if (done())
            return 0;
        int fd = sd_bus_get_fd(bus_);
        int events = sd_bus_get_events(bus_);
        if (fd < 0)
            return fd;
        if (events < 0)
            return events;
        uint64_t until = 0;
        int timeoutMs = -1;
        if (sd_bus_get_timeout(bus_, &until) >= 0 && until != UINT64_MAX) {
            struct timespec now {};
            clock_gettime(CLOCK_MONOTONIC, &now);
            const uint64_t nowUsec = static_cast<uint64_t>(now.tv_sec) * 1000000 +
                                     static_cast<uint64_t>(now.tv_nsec) / 1000;
            const uint64_t ms = until <= nowUsec ? 0 : (until - nowUsec + 999) / 1000;
            timeoutMs = ms > 60000 ? 60000 : static_cast<int>(ms);
        }
        struct pollfd fds[2] = {{fd, static_cast<short>(events), 0}, {stopFd, POLLIN, 0}};
        r = poll(fds, stopFd >= 0 ? 2 : 1, timeoutMs);
        if (r < 0 && errno != EINTR)
            return -errno;
        if (stopFd >= 0 && (fds[1].revents & POLLIN))
            return -EINTR;
    }
}

} // namespace mpathctl
