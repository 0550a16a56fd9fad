#include "polkit_authorizer.h"

#include <cstring>
#include <systemd/sd-bus.h>

namespace mpathd {

using mpath::Error;
using mpath::Result;

/// One check under way: the call it is for, and the bus call asking.
struct PolkitAuthorizer::Check {
    PolkitAuthorizer *owner{nullptr};
    sd_bus_message *call{nullptr}; ///< a reference
    std::string sender;
    std::string action;
    Done done;
    sd_bus_slot *slot{nullptr}; ///< the question to polkit or to the bus

    ~Check() {
        sd_bus_slot_unref(slot);
        sd_bus_message_unref(call);
    }
};

struct PolkitAuthorizer::Callbacks {
    static int onPolkit(sd_bus_message *reply, void *userdata, sd_bus_error *error);
    static int onUnixUser(sd_bus_message *reply, void *userdata, sd_bus_error *error);
};

PolkitAuthorizer::PolkitAuthorizer() = default;
PolkitAuthorizer::~PolkitAuthorizer() = default;

unsigned PolkitAuthorizer::pending(const std::string &sender) const {
    auto it = pendingBySender_.find(sender);
    return it == pendingBySender_.end() ? 0 : it->second;
}

void PolkitAuthorizer::authorize(sd_bus_message *m, const std::string &action, Done done) {
    const char *sender = sd_bus_message_get_sender(m);
    if (!sender) {
        done(Error{EACCES, "not authorized: cannot tell who is calling"});
        return;
    }
    if (pending(sender) >= kPendingPerCaller) {
        done(Error{EBUSY, std::string("caller ") + sender + " has " +
                              std::to_string(kPendingPerCaller) +
                              " authorizations waiting already, the most one caller may have; "
                              "try again once one is answered"});
        return;
    }
    if (checks_.size() >= kPendingInAll) {
        done(Error{EBUSY, std::to_string(kPendingInAll) +
                              " authorizations are waiting already, the most the daemon keeps; "
                              "try again later"});
        return;
    }
    auto check = std::make_unique<Check>();
    check->owner = this;
    check->call = sd_bus_message_ref(m);
    check->sender = sender;
    check->action = action;
    check->done = std::move(done);

    const uint32_t flags = sd_bus_message_get_allow_interactive_authorization(m) > 0 ? 1 : 0;
    sd_bus *bus = sd_bus_message_get_bus(m);
    sd_bus_message *req = nullptr;
    int r = sd_bus_message_new_method_call(
        bus, &req, "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
        "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
    if (r >= 0)
        r = sd_bus_message_append(req, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s",
                                  sender, action.c_str(), 0, flags, "");
    // An interactive check waits for a person: up to sd-bus's longest.
    if (r >= 0)
        r = sd_bus_call_async(bus, &check->slot, req, &Callbacks::onPolkit, check.get(),
                              flags ? UINT64_C(25) * 60 * 1000000 : 0);
    sd_bus_message_unref(req);
    if (r < 0) {
        check->done(
            Error{EACCES, std::string("not authorized: cannot ask polkit: ") + strerror(-r)});
        return;
    }
    ++pendingBySender_[check->sender];
    checks_.push_back(std::move(check));
}

void PolkitAuthorizer::finish(Check &check, Result<void> result) {
    Done done = std::move(check.done);
    auto it = pendingBySender_.find(check.sender);
    if (it != pendingBySender_.end() && --it->second == 0)
        pendingBySender_.erase(it);
    // Freed before the caller acts: its slot is released from inside its
    // own callback, which sd-bus allows (it holds a reference meanwhile).
    checks_.remove_if([&check](const auto &c) { return c.get() == &check; });
    done(std::move(result));
}

int PolkitAuthorizer::Callbacks::onPolkit(sd_bus_message *reply, void *userdata, sd_bus_error *) {
    auto &check = *static_cast<Check *>(userdata);
    PolkitAuthorizer &self = *check.owner;
    if (const sd_bus_error *e = sd_bus_message_get_error(reply)) {
        if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
                                   SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
            self.askUnixUser(check); // no polkit: root only
            return 0;
        }
        self.finish(check, Error{EACCES, "not authorized: polkit cannot decide on " + check.action +
                                             ": " + (e->message ? e->message : e->name)});
        return 0;
    }
    int authorized = 0, challenge = 0;
    if (sd_bus_message_enter_container(reply, 'r', "bba{ss}") < 0 ||
        sd_bus_message_read(reply, "bb", &authorized, &challenge) < 0) {
        self.finish(check, Error{EACCES, "not authorized: polkit's answer is unreadable"});
        return 0;
    }
    if (!authorized) {
        self.finish(check,
                    Error{EACCES, "not authorized to " + check.action +
                                      (challenge ? " without authentication (call again allowing "
                                                   "interactive authorization)"
                                                 : "")});
        return 0;
    }
    self.finish(check, mpath::ok());
    return 0;
}

void PolkitAuthorizer::askUnixUser(Check &check) {
    sd_bus_slot_unref(check.slot);
    check.slot = nullptr;
    const int r = sd_bus_call_method_async(
        sd_bus_message_get_bus(check.call), &check.slot, "org.freedesktop.DBus",
        "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixUser",
        &Callbacks::onUnixUser, &check, "s", check.sender.c_str());
    if (r < 0)
        finish(check, Error{EACCES, "not authorized: cannot tell who is calling"});
}

int PolkitAuthorizer::Callbacks::onUnixUser(sd_bus_message *reply, void *userdata, sd_bus_error *) {
    auto &check = *static_cast<Check *>(userdata);
    uint32_t uid = 1;
    if (sd_bus_message_is_method_error(reply, nullptr) ||
        sd_bus_message_read(reply, "u", &uid) < 0 || uid != 0) {
        check.owner->finish(check, Error{EACCES, "not authorized: " + check.action +
                                                     " needs root (polkit is absent)"});
        return 0;
    }
    check.owner->finish(check, mpath::ok());
    return 0;
}

void PolkitAuthorizer::forget(sd_bus *bus) {
    std::erase_if(checks_, [this, bus](const auto &c) {
        if (sd_bus_message_get_bus(c->call) != bus)
            return false;
        auto it = pendingBySender_.find(c->sender);
        if (it != pendingBySender_.end() && --it->second == 0)
            pendingBySender_.erase(it);
        return true;
    });
}

} // namespace mpathd
