#include "bus_client.h"

#include "daemon_error.h"

#include <csignal>
#include <cstring>
#include <sys/signalfd.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

namespace mpathctl {

namespace {

bool noOwner(const std::string &name) {
    return name == "org.freedesktop.DBus.Error.ServiceUnknown" ||
           name == "org.freedesktop.DBus.Error.NameHasNoOwner";
}

std::string errnoText(int error) {
    return std::strerror(error < 0 ? -error : error);
}

/// SIGINT and SIGTERM as a file descriptor while this lives.
class StopSignals {
public:
    StopSignals() {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigprocmask(SIG_BLOCK, &set, &old_);
        fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    }
    ~StopSignals() {
        if (fd_ >= 0)
            close(fd_);
        sigprocmask(SIG_SETMASK, &old_, nullptr);
    }
    StopSignals(const StopSignals &) = delete;
    StopSignals &operator=(const StopSignals &) = delete;

    int fd() const { return fd_; }

private:
    sigset_t old_{};
    int fd_{-1};
};

} // namespace

BusClient::BusClient(Mode mode, std::string socketPath)
    : mode_(mode), socketPath_(std::move(socketPath)) {}

BusClient::~BusClient() = default;

bool BusClient::onSystemBus() const {
    return connection_ && connection_->isBusClient();
}

void BusClient::connect() {
    if (connection_)
        return;
    std::string systemError;
    if (mode_ == Mode::Auto && !triedPeer_) {
        // Root reaches mpathd directly through its socket: a query costs
        // one round trip instead of two through dbus-daemon.
        triedPeer_ = true;
        if (::access(socketPath_.c_str(), R_OK | W_OK) == 0 &&
            BusConnection::openPeer("unix:path=" + socketPath_, connection_) >= 0)
            return;
        connection_.reset();
    }
    if (mode_ != Mode::Private) {
        int r = BusConnection::openSystem(connection_);
        if (r >= 0)
            return;
        systemError = errnoText(r);
        if (mode_ == Mode::System)
            throw DaemonError(ExitNotRunning, "cannot reach the system bus: " + systemError);
    }
    int r = BusConnection::openPeer("unix:path=" + socketPath_, connection_);
    if (r >= 0)
        return;
    if (mode_ == Mode::Private)
        throw DaemonError(ExitNotRunning,
                          "mpathd is not running: " + socketPath_ + ": " + errnoText(r));
    throw DaemonError(ExitNotRunning,
                      "mpathd is not running: the system bus " +
                          (systemError.empty() ? std::string("has no ") + busName
                                               : "cannot be reached (" + systemError + ")") +
                          ", and " + socketPath_ + ": " + errnoText(r));
}

void BusClient::fail(const BusConnection::CallError &e) const {
    std::string message = e.message;
    if (message.empty())
        message = e.name.empty() ? errnoText(e.error) : e.name;
    const std::string ownPrefix = std::string(busName) + ".Error.";
    if (e.name.rfind(ownPrefix, 0) == 0)
        message += " (" + e.name.substr(ownPrefix.size()) + ")";
    else if (e.name == "org.freedesktop.DBus.Error.AccessDenied" ||
             e.name == "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired")
        message += " (not authorized: run as root, or allow it in polkit)";
    else if (e.name == "org.freedesktop.DBus.Error.NoReply" || e.error == ETIMEDOUT)
        message += " (mpathd did not answer in time)";
    throw DaemonError(ExitFailure, message, e.name);
}

BusMessage BusClient::callChecked(const std::string &path, const char *interface,
                                  const char *member,
                                  const std::function<void(BusMessage &)> &append, bool options,
                                  bool persist, uint64_t timeoutUsec) {
    for (int attempt = 0;; ++attempt) {
        connect();
        BusMessage call = connection_->newMethodCall(busName, path, interface, member);
        if (append)
            append(call);
        if (options)
            call.appendOptions(persist);
        BusMessage reply;
        BusConnection::CallError error;
        if (connection_->call(call, timeoutUsec, reply, error) >= 0) {
            confirmed_ = true;
            return reply;
        }
        if (connection_->isBusClient() && !confirmed_ && noOwner(error.name)) {
            if (mode_ == Mode::System)
                throw DaemonError(ExitNotRunning, std::string("mpathd is not running: ") + busName +
                                                      " has no owner on the system bus");
            // The call never reached mpathd: the private socket may answer.
            if (attempt == 0) {
                connection_.reset();
                mode_ = Mode::Private;
                try {
                    connect();
                } catch (const DaemonError &e) {
                    throw DaemonError(ExitNotRunning, std::string("mpathd is not running: ") +
                                                          busName +
                                                          " has no owner on the system bus, and " +
                                                          socketPath_ + " does not answer");
                }
                continue;
            }
        }
        if (!connection_->isBusClient() && !confirmed_ && mode_ == Mode::Auto && attempt == 0 &&
            (error.error == ECONNRESET || error.error == ENOTCONN || error.error == ECONNREFUSED)) {
            // A socket left by a daemon that is gone: the system bus decides.
            connection_.reset();
            continue;
        }
        if (!connection_->isBusClient() && !confirmed_ &&
            (error.error == ECONNRESET || error.error == ENOTCONN || error.error == ECONNREFUSED))
            throw DaemonError(ExitNotRunning, "mpathd is not running: " + socketPath_ + ": " +
                                                  errnoText(error.error));
        fail(error);
    }
}

std::vector<ManagedObject> BusClient::managedObjects() {
    BusMessage reply = callChecked(rootPath, "org.freedesktop.DBus.ObjectManager",
                                   "GetManagedObjects", {}, false, false, 0);
    return reply.readManagedObjects();
}

std::optional<std::string> BusClient::describeMaps() {
    return describe("DescribeMaps");
}

std::optional<std::string> BusClient::describeTopology() {
    return describe("DescribeTopology");
}

std::optional<std::string> BusClient::describe(const char *method) {
    try {
        BusMessage reply = callChecked(managerPath, managerInterface, method, {}, true, false, 0);
        return reply.readString();
    } catch (const DaemonError &e) {
        if (e.name() == "org.freedesktop.DBus.Error.UnknownMethod")
            return std::nullopt;
        throw;
    }
}

std::string BusClient::resolve(const std::string &device) {
    BusMessage reply = callChecked(
        managerPath, managerInterface, "ResolveDevice",
        [&](BusMessage &m) { m.appendString(device); }, true, false, 0);
    return reply.readObjectPath();
}

PropertyValue BusClient::property(const std::string &path, const char *interface,
                                  const char *name) {
    BusMessage reply = callChecked(
        path, "org.freedesktop.DBus.Properties", "Get",
        [&](BusMessage &m) {
            m.appendString(interface);
            m.appendString(name);
        },
        false, false, 0);
    return reply.readVariant();
}

void BusClient::call(const std::string &path, const char *interface, const char *member,
                     const std::function<void(BusMessage &)> &append, bool persist,
                     uint64_t timeoutUsec) {
    callChecked(path, interface, member, append, true, persist, timeoutUsec);
}

void BusClient::callAsync(const std::string &path, const char *interface, const char *member,
                          uint64_t timeoutUsec, bool &done) {
    connect();
    BusMessage call = connection_->newMethodCall(busName, path, interface, member);
    call.appendOptions(false);
    int r = connection_->callAsync(call, timeoutUsec, [this, &done](BusMessage &reply) {
        if (const sd_bus_error *e = sd_bus_message_get_error(reply.get())) {
            asyncError_ = std::make_unique<BusConnection::CallError>();
            asyncError_->name = e->name ? e->name : "";
            asyncError_->message = e->message ? e->message : "";
            asyncError_->error = sd_bus_message_get_errno(reply.get());
        }
        done = true;
    });
    if (r < 0)
        fail({"", "cannot send " + std::string(member) + ": " + errnoText(r), -r});
}

void BusClient::subscribe(const std::string &pathNamespace, const char *interface,
                          const char *member, std::function<void(BusMessage &)> onSignal) {
    connect();
    std::string rule = "type='signal'";
    if (connection_->isBusClient())
        rule += std::string(",sender='") + busName + "'";
    rule += ",path_namespace='" + pathNamespace + "',interface='" + interface + "',member='" +
            member + "'";
    if (int r = connection_->addMatch(rule, std::move(onSignal)); r < 0)
        fail({"", "cannot subscribe to " + std::string(member) + ": " + errnoText(r), -r});
}

bool BusClient::run(const std::function<bool()> &done) {
    connect();
    StopSignals stop;
    int r = connection_->run(done, stop.fd());
    if (r == -EINTR)
        return false;
    if (r < 0)
        fail({"", "connection to mpathd lost: " + errnoText(r), -r});
    if (asyncError_)
        fail(*asyncError_);
    return true;
}

} // namespace mpathctl
