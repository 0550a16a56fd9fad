#pragma once

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mpath/error.h>
#include <string>

struct sd_bus;
struct sd_bus_message;
struct sd_bus_slot;

namespace mpathd {

/// Asks polkit whether the sender of a call may do an action, without
/// waiting on the loop; without polkit, only root may. A check that lets
/// the caller authenticate interactively may wait for a person for up to
/// 25 minutes, so how many checks wait at once is bounded: per caller (a
/// further call is Busy until one is answered) and in all, below the
/// bus's limit of replies one connection may wait for, so that no caller
/// can keep the daemon from asking for anyone else.
class PolkitAuthorizer {
public:
    /// Checks of one caller (a unique bus name) that may wait at once.
    static constexpr unsigned kPendingPerCaller = 8;
    /// Checks that may wait at once, all callers together (dbus-daemon's
    /// max_replies_per_connection is 128 on the system bus).
    static constexpr unsigned kPendingInAll = 64;

    /// \a result is nothing when the caller may, else EACCES (not
    /// authorized, with the reason) or EBUSY (too many checks wait).
    using Done = std::function<void(mpath::Result<void> result)>;

    PolkitAuthorizer();
    /// Checks still waiting are dropped: their calls are not answered.
    ~PolkitAuthorizer();
    PolkitAuthorizer(const PolkitAuthorizer &) = delete;
    PolkitAuthorizer &operator=(const PolkitAuthorizer &) = delete;

    /// Asks whether the sender of \a m may do \a action, honouring the
    /// call's allow-interactive-authorization flag. \a done is called
    /// once, later from the loop, or at once when the check cannot start.
    void authorize(sd_bus_message *m, const std::string &action, Done done);

    /// Drops the checks of calls that came on \a bus (it is going away).
    void forget(sd_bus *bus);

    /// How many checks of \a sender wait.
    unsigned pending(const std::string &sender) const;

private:
    struct Check;
    /// The sd-bus callbacks (polkit_authorizer.cpp).
    struct Callbacks;
    void askUnixUser(Check &check);
    void finish(Check &check, mpath::Result<void> result);

    std::list<std::unique_ptr<Check>> checks_;
    std::map<std::string, unsigned> pendingBySender_;
};

} // namespace mpathd
