#include "bus_service.h"

#include "checker_scheduler.h"
#include "daemon.h"
#include "dm_ops.h"
#include "log.h"
#include "overrides.h"
#include "path_tracker.h"
#include "reconciler.h"

#include <algorithm>
#include <cstring>
#include <list>
#include <mpath/config/values.h>
#include <mpath/dm/selectors.h>
#include <mpath/policy/grouping.h>
#include <optional>
#include <set>
#include <sys/sysmacros.h>
#include <systemd/sd-bus.h>

namespace mpathd {

using mpath::Error;
using mpath::Result;

namespace {

constexpr const char *kManagerIface = "org.mpathd.Multipath1.Manager";
constexpr const char *kMapIface = "org.mpathd.Multipath1.Map";
constexpr const char *kGroupIface = "org.mpathd.Multipath1.PathGroup";
constexpr const char *kPathIface = "org.mpathd.Multipath1.Path";
constexpr const char *kManagerPath = "/org/mpathd/Multipath1/Manager";
constexpr const char *kMapsPrefix = "/org/mpathd/Multipath1/maps";
constexpr const char *kPathsPrefix = "/org/mpathd/Multipath1/paths";

constexpr const char *kErrNotFound = "org.mpathd.Multipath1.Error.NotFound";
constexpr const char *kErrInvalid = "org.mpathd.Multipath1.Error.InvalidArgument";
constexpr const char *kErrNotAuthorized = "org.mpathd.Multipath1.Error.NotAuthorized";
constexpr const char *kErrBusy = "org.mpathd.Multipath1.Error.Busy";
constexpr const char *kErrDm = "org.mpathd.Multipath1.Error.DmError";
constexpr const char *kErrFailed = "org.mpathd.Multipath1.Error.Failed";

constexpr const char *kActionModifyMap = "org.mpathd.multipath1.modify-map";
constexpr const char *kActionManagePaths = "org.mpathd.multipath1.manage-paths";
constexpr const char *kActionReconfigure = "org.mpathd.multipath1.reconfigure";

std::string encode(const char *prefix, const std::string &id) {
    char *out = nullptr;
    if (sd_bus_path_encode(prefix, id.c_str(), &out) < 0 || !out)
        return prefix;
    std::string s(out);
    free(out);
    return s;
}

std::string devtString(dev_t d) {
    return d == 0 ? "" : std::to_string(major(d)) + ":" + std::to_string(minor(d));
}

/// A method call answered later, once authorized and carried out.
class Call {
public:
    explicit Call(sd_bus_message *m) : m_(sd_bus_message_ref(m)) {}
    ~Call() { sd_bus_message_unref(m_); }
    Call(const Call &) = delete;
    Call &operator=(const Call &) = delete;

    sd_bus_message *message() const { return m_; }
    const char *path() const { return sd_bus_message_get_path(m_); }

    void ok() {
        if (!answered_)
            (void)sd_bus_reply_method_return(m_, nullptr);
        answered_ = true;
    }
    void okObject(const std::string &path) {
        if (!answered_)
            (void)sd_bus_reply_method_return(m_, "o", path.c_str());
        answered_ = true;
    }
    void fail(const char *name, const std::string &message) {
        if (!answered_)
            (void)sd_bus_reply_method_errorf(m_, name, "%s", message.c_str());
        answered_ = true;
    }

private:
    sd_bus_message *m_;
    bool answered_{false};
};
using CallPtr = std::shared_ptr<Call>;

/// The options argument: only the keys in \a allowed are taken.
struct Options {
    bool persist{false};
};

int readOptions(sd_bus_message *m, bool persistAllowed, Options &out, std::string &error) {
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    if (r < 0)
        return r;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *key = nullptr;
        if ((r = sd_bus_message_read(m, "s", &key)) < 0)
            return r;
        if (persistAllowed && strcmp(key, "persist") == 0) {
            int b = 0;
            if (sd_bus_message_read(m, "v", "b", &b) < 0) {
                error = "option 'persist' takes a boolean";
                return 0;
            }
            out.persist = b != 0;
        } else {
            error = std::string("unknown option '") + key + "'" +
                    (persistAllowed ? "; known: persist" : "; this method takes none");
            return 0;
        }
        if ((r = sd_bus_message_exit_container(m)) < 0)
            return r;
    }
    if (r < 0)
        return r;
    return sd_bus_message_exit_container(m) < 0 ? -EBADMSG : 1;
}

int appendValue(sd_bus_message *reply, const BusService::Value &value) {
    return std::visit(
        [reply](const auto &v) -> int {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>) {
                return sd_bus_message_append(reply, "b", static_cast<int>(v));
            } else if constexpr (std::is_same_v<T, uint32_t>) {
                return sd_bus_message_append(reply, "u", v);
            } else if constexpr (std::is_same_v<T, int32_t>) {
                return sd_bus_message_append(reply, "i", v);
            } else if constexpr (std::is_same_v<T, uint64_t>) {
                return sd_bus_message_append(reply, "t", v);
            } else if constexpr (std::is_same_v<T, std::string>) {
                return sd_bus_message_append(reply, "s", v.c_str());
            } else if constexpr (std::is_same_v<T, BusService::ObjectPath>) {
                return sd_bus_message_append(reply, "o", v.path.c_str());
            } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
                int r = sd_bus_message_open_container(reply, 'a', "s");
                for (const auto &s : v)
                    if (r >= 0)
                        r = sd_bus_message_append(reply, "s", s.c_str());
                return r < 0 ? r : sd_bus_message_close_container(reply);
            } else if constexpr (std::is_same_v<T, std::vector<BusService::ObjectPath>>) {
                int r = sd_bus_message_open_container(reply, 'a', "o");
                for (const auto &s : v)
                    if (r >= 0)
                        r = sd_bus_message_append(reply, "o", s.path.c_str());
                return r < 0 ? r : sd_bus_message_close_container(reply);
            } else {
                static_assert(std::is_same_v<T, std::map<std::string, std::string>>,
                              "a property type without marshalling");
                int r = sd_bus_message_open_container(reply, 'a', "{ss}");
                for (const auto &[k, s] : v)
                    if (r >= 0)
                        r = sd_bus_message_append(reply, "{ss}", k.c_str(), s.c_str());
                return r < 0 ? r : sd_bus_message_close_container(reply);
            }
        },
        value);
}

/// The D-Bus signature of \a value.
const char *signatureOf(const BusService::Value &value) {
    static constexpr const char *kSignatures[] = {"b",  "u", "i",  "t",    "s",
                                                  "as", "o", "ao", "a{ss}"};
    static_assert(std::variant_size_v<BusService::Value> == std::size(kSignatures));
    return kSignatures[value.index()];
}

/// One object as GetManagedObjects and InterfacesAdded carry it: its
/// interfaces with their properties, a{sa{sv}}.
int appendInterfaces(sd_bus_message *m, const BusService::Object &o) {
    int r = sd_bus_message_open_container(m, 'a', "{sa{sv}}");
    if (r >= 0)
        r = sd_bus_message_open_container(m, 'e', "sa{sv}");
    if (r >= 0)
        r = sd_bus_message_append(m, "s", o.interface.c_str());
    if (r >= 0)
        r = sd_bus_message_open_container(m, 'a', "{sv}");
    for (const auto &[name, value] : o.properties) {
        if (r >= 0)
            r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0)
            r = sd_bus_message_append(m, "s", name.c_str());
        if (r >= 0)
            r = sd_bus_message_open_container(m, 'v', signatureOf(value));
        if (r >= 0)
            r = appendValue(m, value);
        if (r >= 0)
            r = sd_bus_message_close_container(m);
        if (r >= 0)
            r = sd_bus_message_close_container(m);
    }
    for (int i = 0; i < 3 && r >= 0; ++i)
        r = sd_bus_message_close_container(m);
    return r;
}

bool usable(const PathRecord &p) {
    return p.path.dmState == mpath::model::DmPathState::Active;
}

/// "pg_init_retries 5" among a table's feature words.
uint32_t featureNumber(const std::vector<std::string> &features, const std::string &name) {
    for (size_t i = 0; i + 1 < features.size(); ++i)
        if (features[i] == name)
            try {
                return static_cast<uint32_t>(std::stoul(features[i + 1]));
            } catch (const std::exception &) {
                return 0;
            }
    return 0;
}

std::string selectorText(const mpath::model::PathGroup &g) {
    std::string s = g.selector + " " + std::to_string(g.selectorArgs.size());
    for (const auto &a : g.selectorArgs)
        s += " " + a;
    return s;
}

} // namespace

struct BusService::Connection {
    sd_bus *bus{nullptr};
    bool peer{false};
    std::vector<sd_bus_slot *> slots;

    ~Connection() {
        for (auto *s : slots)
            sd_bus_slot_unref(s);
        sd_bus_unref(bus);
    }
};

/// The parts of the service the C callbacks reach.
struct BusService::Impl {
    explicit Impl(BusService &s) : service(s), daemon(s.daemon_) {}

    BusService &service;
    Daemon &daemon;

    /// A call waiting for the maps to follow a change.
    struct Waiter {
        std::function<bool()> done;
        std::function<void()> complete;
        mpath::sys::EventLoop::SourcePtr deadline;
    };
    std::list<std::shared_ptr<Waiter>> waiters;

    Connection *connectionOf(sd_bus_message *m) {
        sd_bus *bus = sd_bus_message_get_bus(m);
        for (auto &c : service.connections_)
            if (c->bus == bus)
                return c.get();
        return nullptr;
    }

    // --- lookups ------------------------------------------------------

    MapRecord *mapAt(const char *path) {
        for (auto &[wwid, rec] : daemon.mutableState().maps)
            if (mapPath(wwid) == path)
                return &rec;
        return nullptr;
    }
    PathRecord *pathAt(const char *path) {
        for (auto &[name, rec] : daemon.mutableState().paths)
            if (pathPath(name) == path)
                return &rec;
        return nullptr;
    }

    /// Any name of a map or path, as ResolveDevice takes it.
    std::optional<std::string> resolve(std::string name) {
        const State &st = daemon.state();
        if (name.rfind("/dev/mapper/", 0) == 0) {
            name = name.substr(12);
            for (const auto &[wwid, rec] : st.maps)
                if (rec.name == name)
                    return mapPath(wwid);
            return std::nullopt;
        }
        if (name.rfind("/dev/", 0) == 0)
            name = name.substr(5);
        if (auto p = st.paths.find(name); p != st.paths.end() && !p->second.path.wwid.empty())
            return pathPath(name);
        for (const auto &[wwid, rec] : st.maps) {
            if (rec.name == name || wwid == name)
                return mapPath(wwid);
            if (rec.devt != 0 &&
                (devtString(rec.devt) == name || "dm-" + std::to_string(minor(rec.devt)) == name))
                return mapPath(wwid);
        }
        for (const auto &[kname, rec] : st.paths)
            if (!rec.path.wwid.empty() && rec.path.devtString() == name)
                return pathPath(kname);
        return std::nullopt;
    }

    // --- waiting for the maps -------------------------------------------

    void wait(std::function<bool()> done, std::function<void()> complete,
              std::function<void()> timedOut) {
        auto w = std::make_shared<Waiter>();
        w->done = std::move(done);
        w->complete = std::move(complete);
        std::weak_ptr<Waiter> weak = w;
        w->deadline = daemon.loop().addTimer(daemon.env().dmDeadline + std::chrono::seconds(10),
                                             [this, weak, timedOut] {
                                                 if (auto w = weak.lock()) {
                                                     waiters.remove(w);
                                                     timedOut();
                                                 }
                                             });
        waiters.push_back(std::move(w));
        check();
    }

    void check() {
        for (auto it = waiters.begin(); it != waiters.end();) {
            auto w = *it;
            if (w->done()) {
                it = waiters.erase(it);
                w->complete();
            } else {
                ++it;
            }
        }
    }

    /// Answers \a call once a plan made after now has been carried out for
    /// map \a wwid: DmError with the reason when device-mapper refused it.
    void afterPass(const CallPtr &call, const std::string &wwid) {
        const unsigned plans = daemon.counters().plans;
        wait(
            [this, plans, wwid] {
                const auto &maps = daemon.state().maps;
                auto it = maps.find(wwid);
                if (it == maps.end())
                    return daemon.counters().plans > plans;
                // A pass after the change acted on the map, and what it
                // started has ended.
                return it->second.actedPlan > plans && it->second.idle();
            },
            [this, call, wwid] {
                const auto &maps = daemon.state().maps;
                auto it = maps.find(wwid);
                if (it != maps.end() && !it->second.lastError.empty())
                    call->fail(kErrDm, "map " + it->second.name + ": " + it->second.lastError);
                else
                    call->ok();
            },
            [call, wwid] { call->fail(kErrFailed, "map " + wwid + ": no answer in time"); });
    }

    // --- authorization ---------------------------------------------------

    struct AuthContext {
        Impl *impl;
        CallPtr call;
        std::string action;
        std::function<void()> granted;
    };

    static int onUnixUser(sd_bus_message *reply, void *userdata, sd_bus_error *) {
        std::unique_ptr<AuthContext> ctx(static_cast<AuthContext *>(userdata));
        uint32_t uid = 1;
        if (sd_bus_message_is_method_error(reply, nullptr) ||
            sd_bus_message_read(reply, "u", &uid) < 0 || uid != 0) {
            ctx->call->fail(kErrNotAuthorized,
                            "not authorized: " + ctx->action + " needs root (polkit is absent)");
            return 0;
        }
        ctx->impl->granted(*ctx);
        return 0;
    }

    static int onPolkit(sd_bus_message *reply, void *userdata, sd_bus_error *) {
        std::unique_ptr<AuthContext> ctx(static_cast<AuthContext *>(userdata));
        if (const sd_bus_error *e = sd_bus_message_get_error(reply)) {
            const bool absent = sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
                                                       SD_BUS_ERROR_NAME_HAS_NO_OWNER);
            if (!absent) {
                ctx->call->fail(kErrNotAuthorized, "not authorized: polkit cannot decide on " +
                                                       ctx->action + ": " +
                                                       (e->message ? e->message : e->name));
                return 0;
            }
            // No polkit: root only, asked of the bus, without blocking.
            sd_bus_message *m = ctx->call->message();
            AuthContext *raw = ctx.get();
            if (sd_bus_call_method_async(sd_bus_message_get_bus(m), nullptr, "org.freedesktop.DBus",
                                         "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         "GetConnectionUnixUser", &Impl::onUnixUser, raw, "s",
                                         sd_bus_message_get_sender(m)) >= 0)
                (void)ctx.release();
            else
                ctx->call->fail(kErrNotAuthorized, "not authorized: cannot tell who is calling");
            return 0;
        }
        int authorized = 0, challenge = 0;
        if (sd_bus_message_enter_container(reply, 'r', "bba{ss}") < 0 ||
            sd_bus_message_read(reply, "bb", &authorized, &challenge) < 0) {
            ctx->call->fail(kErrNotAuthorized, "not authorized: polkit's answer is unreadable");
            return 0;
        }
        if (!authorized) {
            ctx->call->fail(kErrNotAuthorized,
                            std::string("not authorized to ") + ctx->action +
                                (challenge ? " without authentication (call again allowing "
                                             "interactive authorization)"
                                           : ""));
            return 0;
        }
        ctx->impl->granted(*ctx);
        return 0;
    }

    void granted(AuthContext &ctx) {
        try {
            ctx.granted();
        } catch (const std::exception &e) {
            ctx.call->fail(kErrFailed, e.what());
        }
    }

    /// Runs \a then once the caller of \a call may do \a action; answers
    /// NotAuthorized otherwise. Never waits on the loop.
    void authorize(const CallPtr &call, const char *action, std::function<void()> then) {
        Connection *c = connectionOf(call->message());
        if (c && c->peer) {
            then(); // the private socket is root's only
            return;
        }
        auto ctx = std::make_unique<AuthContext>(AuthContext{this, call, action, std::move(then)});
        sd_bus_message *m = call->message();
        const uint32_t flags = sd_bus_message_get_allow_interactive_authorization(m) > 0 ? 1 : 0;
        sd_bus_message *req = nullptr;
        sd_bus *bus = sd_bus_message_get_bus(m);
        int r = sd_bus_message_new_method_call(
            bus, &req, "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
            "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
        if (r >= 0)
            r = sd_bus_message_append(req, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s",
                                      sd_bus_message_get_sender(m), action, 0, flags, "");
        // An interactive check waits for a human: up to sd-bus's longest.
        if (r >= 0)
            r = sd_bus_call_async(bus, nullptr, req, &Impl::onPolkit, ctx.get(),
                                  flags ? UINT64_C(25) * 60 * 1000000 : 0);
        sd_bus_message_unref(req);
        if (r < 0) {
            call->fail(kErrNotAuthorized,
                       std::string("not authorized: cannot ask polkit: ") + strerror(-r));
            return;
        }
        (void)ctx.release(); // onPolkit owns it now
    }

    // --- method bodies ----------------------------------------------------

    /// The map of \a call's object, or an answer NotFound.
    MapRecord *map(const CallPtr &call) {
        MapRecord *rec = mapAt(call->path());
        if (!rec)
            call->fail(kErrNotFound, std::string("no map at ") + call->path());
        return rec;
    }

    bool requireLive(const CallPtr &call, const MapRecord &rec) {
        if (rec.live)
            return true;
        call->fail(kErrBusy, "map " + rec.name + " is not made yet");
        return false;
    }

    void setting(const CallPtr &call, const std::string &keyword, const std::string &value,
                 const Options &o) {
        MapRecord *rec = map(call);
        if (!rec)
            return;
        if (auto e = Overrides::parse(rec->wwid, keyword, value); !e) {
            call->fail(kErrInvalid, "map " + rec->name + ": " + e.error().message);
            return;
        }
        const std::string wwid = rec->wwid;
        authorize(call, kActionModifyMap, [this, call, wwid, keyword, value, o] {
            auto it = daemon.mutableState().maps.find(wwid);
            if (it == daemon.mutableState().maps.end()) {
                call->fail(kErrNotFound, "map " + wwid + " is gone");
                return;
            }
            const std::string name = it->second.name;
            daemon.setMapSetting(
                wwid, keyword, value, o.persist, [this, call, wwid, name](Result<void> r) {
                    if (!r) {
                        call->fail(kErrFailed, "map " + name + ": " + r.error().message);
                        return;
                    }
                    afterPass(call, wwid);
                });
        });
    }

    /// Sends \a text to map \a wwid's target, reads the map back, answers.
    /// \a after learns whether it was sent, and may return why the call
    /// failed all the same.
    void message(const CallPtr &call, const std::string &wwid, const std::string &text,
                 std::function<std::optional<std::string>(bool)> after = {}) {
        auto &maps = daemon.mutableState().maps;
        auto it = maps.find(wwid);
        if (it == maps.end()) {
            call->fail(kErrNotFound, "map " + wwid + " is gone");
            return;
        }
        const std::string name = it->second.name;
        daemon.dmOps().message(
            wwid, name, text, [this, call, wwid, name, text, after](Result<void> r) {
                std::optional<std::string> failure;
                if (after)
                    failure = after(static_cast<bool>(r));
                if (!r) {
                    call->fail(kErrDm, "map " + name + ": " + text + ": " + r.error().message);
                    return;
                }
                if (failure) {
                    call->fail(kErrFailed, "map " + name + ": " + *failure);
                    return;
                }
                daemon.reconciler().refresh(wwid, [call] { call->ok(); });
            });
    }

    void flush(const CallPtr &call) {
        MapRecord *rec = map(call);
        if (!rec || !requireLive(call, *rec))
            return;
        const std::string wwid = rec->wwid;
        authorize(call, kActionModifyMap, [this, call, wwid] {
            State &st = daemon.mutableState();
            auto it = st.maps.find(wwid);
            if (it == st.maps.end() || !it->second.live) {
                call->fail(kErrNotFound, "map " + wwid + " is gone");
                return;
            }
            MapRecord &rec = it->second;
            if (rec.busy) {
                call->fail(kErrBusy, "map " + rec.name + " is being changed; try again");
                return;
            }
            rec.busy = true;
            const std::string name = rec.name;
            // Taken as an administrator's removal: not made again until a
            // path changes or the configuration is read again.
            st.removedByAdmin.insert(wwid);
            st.removing.insert(wwid);
            daemon.dmOps().remove(wwid, name, false, [this, call, wwid, name](Result<bool> r) {
                State &st = daemon.mutableState();
                auto it = st.maps.find(wwid);
                if (!r || !*r) {
                    st.removedByAdmin.erase(wwid);
                    st.removing.erase(wwid);
                    if (it != st.maps.end())
                        it->second.busy = false;
                    if (r || r.error().code == EBUSY)
                        call->fail(kErrBusy, "map " + name + " is in use: not removed");
                    else
                        call->fail(kErrDm,
                                   "map " + name + ": cannot remove it: " + r.error().message);
                    daemon.reconciler().schedule();
                    return;
                }
                logNotice(aboutMap(name, wwid), "removed on request");
                if (it != st.maps.end())
                    st.maps.erase(it);
                for (auto &[n, p] : st.paths)
                    if (p.mapWwid == wwid)
                        p.mapWwid.clear();
                daemon.checks().sync();
                daemon.publishStatus();
                daemon.reconciler().schedule(); // what waited for the removal
                call->ok();
            });
        });
    }

    void switchGroup(const CallPtr &call, uint32_t group) {
        MapRecord *rec = map(call);
        if (!rec || !requireLive(call, *rec))
            return;
        const size_t n = rec->liveMap.groups.size();
        if (group < 1 || group > n) {
            call->fail(kErrInvalid, "map " + rec->name + " has " + std::to_string(n) +
                                        " path group" + (n == 1 ? "" : "s") +
                                        ": there is no group " + std::to_string(group));
            return;
        }
        const std::string wwid = rec->wwid;
        authorize(call, kActionModifyMap, [this, call, wwid, group] {
            message(call, wwid, "switch_group " + std::to_string(group));
        });
    }

    void queueIfNoPath(const CallPtr &call, bool enable, const Options &o) {
        MapRecord *rec = map(call);
        if (!rec || !requireLive(call, *rec))
            return;
        const std::string wwid = rec->wwid;
        authorize(call, kActionModifyMap, [this, call, wwid, enable, o] {
            auto it = daemon.mutableState().maps.find(wwid);
            if (it == daemon.mutableState().maps.end()) {
                call->fail(kErrNotFound, "map " + wwid + " is gone");
                return;
            }
            const std::string name = it->second.name;
            const std::string text = enable ? "queue_if_no_path" : "fail_if_no_path";
            daemon.dmOps().message(
                wwid, name, text, [this, call, wwid, name, text, enable, o](Result<void> r) {
                    if (!r) {
                        call->fail(kErrDm, "map " + name + ": " + text + ": " + r.error().message);
                        return;
                    }
                    // The setting follows, so that the next plan keeps the
                    // table as the message left it (no reload), and so that no
                    // no_path_retry countdown undoes it.
                    daemon.setMapSetting(
                        wwid, "no_path_retry", enable ? "queue" : "fail", o.persist,
                        [this, call, wwid, name, enable](Result<void> s) {
                            if (!s) {
                                call->fail(
                                    kErrFailed,
                                    "map " + name + ": queueing is " + (enable ? "on" : "off") +
                                        " but the setting is not kept: " + s.error().message);
                                return;
                            }
                            daemon.reconciler().refresh(wwid, [call] { call->ok(); });
                        });
                });
        });
    }

    void pathFail(const CallPtr &call, bool fail) {
        PathRecord *p = pathAt(call->path());
        if (!p) {
            call->fail(kErrNotFound, std::string("no path at ") + call->path());
            return;
        }
        const std::string kname = p->path.kernelName;
        auto &maps = daemon.mutableState().maps;
        auto m = maps.find(p->mapWwid);
        if (m == maps.end() || !m->second.live) {
            call->fail(kErrInvalid, "path " + kname + " is in no map");
            return;
        }
        const std::string wwid = m->second.wwid;
        authorize(call, kActionManagePaths, [this, call, kname, wwid, fail] {
            auto &paths = daemon.mutableState().paths;
            auto it = paths.find(kname);
            if (it == paths.end()) {
                call->fail(kErrNotFound, "path " + kname + " is gone");
                return;
            }
            if (it->second.mapWwid != wwid) {
                call->fail(kErrBusy, "path " + kname + " left its map meanwhile; try again");
                return;
            }
            const bool wasFailed = it->second.adminFailed;
            it->second.adminFailed = fail;
            it->second.path.dmState =
                fail ? mpath::model::DmPathState::Failed : mpath::model::DmPathState::Active;
            logNotice(aboutPath(kname),
                      fail ? "failed on request: checks leave it failed" : "reinstated on request");
            message(call, wwid,
                    std::string(fail ? "fail_path " : "reinstate_path ") +
                        it->second.path.devtString(),
                    [this, kname, fail, wasFailed](bool sent) -> std::optional<std::string> {
                        if (!sent) {
                            // Refused: nothing changes.
                            auto it = daemon.mutableState().paths.find(kname);
                            if (it != daemon.mutableState().paths.end()) {
                                it->second.adminFailed = wasFailed;
                                it->second.path.dmState = mpath::model::DmPathState::Unknown;
                            }
                            return std::nullopt;
                        }
                        if (!fail)
                            daemon.checks().checkSoon(kname); // is it up after all?
                        return std::nullopt;
                    });
        });
    }

    void addPath(const CallPtr &call, const std::string &device) {
        std::string name = device.rfind("/dev/", 0) == 0 ? device.substr(5) : device;
        authorize(call, kActionManagePaths, [this, call, name] {
            auto devices = daemon.env().udev->enumerate("block", "disk");
            if (!devices) {
                call->fail(kErrFailed, "cannot list block devices: " + devices.error().message);
                return;
            }
            for (const auto &d : *devices) {
                if (d.sysname != name)
                    continue;
                if (!daemon.paths().update(d)) {
                    call->fail(kErrInvalid, name + " is not a path device");
                    return;
                }
                State &st = daemon.mutableState();
                PathRecord &rec = st.paths.at(name);
                if (auto why = daemon.paths().excluded(name)) {
                    call->fail(kErrInvalid, name + " is in no map: " + *why);
                    return;
                }
                rec.adminRemoved = false;
                st.removedByAdmin.erase(rec.path.wwid);
                daemon.reconciler().schedule();
                afterPass(call, rec.path.wwid);
                return;
            }
            call->fail(kErrNotFound, "no block device " + name);
        });
    }

    void removePath(const CallPtr &call, const std::string &device) {
        std::string name = device.rfind("/dev/", 0) == 0 ? device.substr(5) : device;
        auto &paths = daemon.mutableState().paths;
        if (!paths.count(name)) {
            call->fail(kErrNotFound, "no path " + name);
            return;
        }
        authorize(call, kActionManagePaths, [this, call, name] {
            auto &paths = daemon.mutableState().paths;
            auto it = paths.find(name);
            if (it == paths.end()) {
                call->fail(kErrNotFound, "path " + name + " is gone");
                return;
            }
            it->second.adminRemoved = true;
            logNotice(aboutPath(name), "removed from its map on request");
            const std::string wwid = it->second.path.wwid;
            daemon.reconciler().schedule();
            afterPass(call, wwid);
        });
    }

    void reconfigure(const CallPtr &call) {
        authorize(call, kActionReconfigure, [this, call] {
            daemon.reconfigure([this, call](Result<void> r) {
                if (!r) {
                    call->fail(kErrFailed, r.error().message);
                    return;
                }
                wait([this] { return !daemon.reconfiguring(); }, [call] { call->ok(); },
                     [call] { call->fail(kErrFailed, "the maps did not follow in time"); });
            });
        });
    }

    void suspend(const CallPtr &call, bool suspend) {
        MapRecord *rec = map(call);
        if (!rec || !requireLive(call, *rec))
            return;
        const std::string wwid = rec->wwid;
        authorize(call, kActionModifyMap, [this, call, wwid, suspend] {
            auto it = daemon.mutableState().maps.find(wwid);
            if (it == daemon.mutableState().maps.end()) {
                call->fail(kErrNotFound, "map " + wwid + " is gone");
                return;
            }
            const std::string name = it->second.name;
            logNotice(aboutMap(name, wwid),
                      suspend ? "suspending on request: its I/O waits" : "resuming on request");
            daemon.dmOps().suspend(
                wwid, name, suspend, [this, call, wwid, name, suspend](Result<void> r) {
                    if (!r) {
                        call->fail(kErrDm, "map " + name + ": " +
                                               (suspend ? "suspend: " : "resume: ") +
                                               r.error().message);
                        return;
                    }
                    daemon.reconciler().refresh(wwid, [call] { call->ok(); });
                });
        });
    }

    void reload(const CallPtr &call) {
        MapRecord *rec = map(call);
        if (!rec || !requireLive(call, *rec))
            return;
        const std::string wwid = rec->wwid;
        authorize(call, kActionModifyMap, [this, call, wwid] {
            auto it = daemon.mutableState().maps.find(wwid);
            if (it == daemon.mutableState().maps.end()) {
                call->fail(kErrNotFound, "map " + wwid + " is gone");
                return;
            }
            it->second.reloadWanted = true;
            daemon.reconciler().schedule();
            afterPass(call, wwid);
        });
    }
};

// --- C callbacks --------------------------------------------------------

namespace {

BusService::Impl *implOf(void *userdata) {
    return static_cast<BusService::Impl *>(userdata);
}

/// The shim every method goes through: reads the arguments with \a parse,
/// then hands a Call to \a body; nothing thrown crosses into sd-bus.
template <typename Body>
int method(sd_bus_message *m, sd_bus_error *error, bool persistAllowed, Body body) {
    try {
        Options o;
        std::string bad;
        auto call = std::make_shared<Call>(m);
        int r = body(call, o, [&]() -> int {
            int rr = readOptions(m, persistAllowed, o, bad);
            if (rr == 0)
                call->fail(kErrInvalid, bad);
            return rr;
        });
        if (r < 0)
            return sd_bus_error_set_errno(error, r);
        return 1;
    } catch (const std::exception &e) {
        return sd_bus_error_set(error, kErrFailed, e.what());
    }
}

int getProperty(sd_bus *, const char *path, const char *, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    auto *impl = implOf(userdata);
    const auto &objects = impl->service.objects();
    auto it = objects.find(path);
    if (it == objects.end())
        return sd_bus_error_setf(error, kErrNotFound, "no object %s", path);
    for (const auto &[name, value] : it->second.properties)
        if (name == property)
            return appendValue(reply, value);
    return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_PROPERTY, "no property %s", property);
}

#define MPATH_PROPERTY(name, sig)                                                                  \
    SD_BUS_PROPERTY(name, sig, getProperty, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE)

// Manager --------------------------------------------------------------

int onGetMaps(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u](const CallPtr &call, Options &, auto readOpts) {
        if (int r = readOpts(); r <= 0)
            return r;
        sd_bus_message *reply = nullptr;
        int r = sd_bus_message_new_method_return(call->message(), &reply);
        if (r >= 0)
            r = sd_bus_message_open_container(reply, 'a', "o");
        for (const auto &[path, o] : implOf(u)->service.objects())
            if (r >= 0 && o.interface == kMapIface)
                r = sd_bus_message_append(reply, "o", path.c_str());
        if (r >= 0)
            r = sd_bus_message_close_container(reply);
        if (r >= 0)
            r = sd_bus_send(nullptr, reply, nullptr);
        sd_bus_message_unref(reply);
        return r;
    });
}

int onResolveDevice(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u, m](const CallPtr &call, Options &, auto readOpts) {
        const char *device = nullptr;
        if (int r = sd_bus_message_read(m, "s", &device); r < 0)
            return r;
        if (int r = readOpts(); r <= 0)
            return r;
        if (auto path = implOf(u)->resolve(device))
            call->okObject(*path);
        else
            call->fail(kErrNotFound, std::string("no map or path is called '") + device + "'");
        return 1;
    });
}

int onReconfigure(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u](const CallPtr &call, Options &, auto readOpts) {
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->reconfigure(call);
        return 1;
    });
}

int onAddPath(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u, m](const CallPtr &call, Options &, auto readOpts) {
        const char *device = nullptr;
        if (int r = sd_bus_message_read(m, "s", &device); r < 0)
            return r;
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->addPath(call, device);
        return 1;
    });
}

int onRemovePath(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u, m](const CallPtr &call, Options &, auto readOpts) {
        const char *device = nullptr;
        if (int r = sd_bus_message_read(m, "s", &device); r < 0)
            return r;
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->removePath(call, device);
        return 1;
    });
}

const sd_bus_vtable kManagerVtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD_WITH_ARGS("GetMaps", SD_BUS_ARGS("a{sv}", options), SD_BUS_RESULT("ao", maps),
                            onGetMaps, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("ResolveDevice", SD_BUS_ARGS("s", device, "a{sv}", options),
                            SD_BUS_RESULT("o", object), onResolveDevice,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Reconfigure", SD_BUS_ARGS("a{sv}", options), SD_BUS_NO_RESULT,
                            onReconfigure, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("AddPath", SD_BUS_ARGS("s", device, "a{sv}", options), SD_BUS_NO_RESULT,
                            onAddPath, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("RemovePath", SD_BUS_ARGS("s", device, "a{sv}", options),
                            SD_BUS_NO_RESULT, onRemovePath, SD_BUS_VTABLE_UNPRIVILEGED),
    MPATH_PROPERTY("Version", "s"),
    MPATH_PROPERTY("Target", "s"),
    MPATH_PROPERTY("Ready", "b"),
    MPATH_PROPERTY("Reconfiguring", "b"),
    MPATH_PROPERTY("PendingMaps", "u"),
    MPATH_PROPERTY("ConfigFiles", "as"),
    SD_BUS_VTABLE_END,
};

// Map ------------------------------------------------------------------

int onSetQueueIfNoPath(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, true, [u, m](const CallPtr &call, Options &o, auto readOpts) {
        int enable = 0;
        if (int r = sd_bus_message_read(m, "b", &enable); r < 0)
            return r;
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->queueIfNoPath(call, enable != 0, o);
        return 1;
    });
}

int onSetNoPathRetry(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, true, [u, m](const CallPtr &call, Options &o, auto readOpts) {
        const char *v = nullptr;
        if (int r = sd_bus_message_read(m, "s", &v); r < 0)
            return r;
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->setting(call, "no_path_retry", v, o);
        return 1;
    });
}

int onSetPgInitRetries(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, true, [u, m](const CallPtr &call, Options &o, auto readOpts) {
        uint32_t v = 0;
        if (int r = sd_bus_message_read(m, "u", &v); r < 0)
            return r;
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->setting(call, "pg_init_retries", std::to_string(v), o);
        return 1;
    });
}

int onSetPgInitDelayMsecs(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, true, [u, m](const CallPtr &call, Options &o, auto readOpts) {
        uint32_t v = 0;
        if (int r = sd_bus_message_read(m, "u", &v); r < 0)
            return r;
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->setting(call, "pg_init_delay_msecs", std::to_string(v), o);
        return 1;
    });
}

int onSetPathSelector(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, true, [u, m](const CallPtr &call, Options &o, auto readOpts) {
        const char *v = nullptr;
        if (int r = sd_bus_message_read(m, "s", &v); r < 0)
            return r;
        if (int r = readOpts(); r <= 0)
            return r;
        std::string sel = v;
        // "queue-length" means "queue-length 0", as in the configuration.
        if (!sel.empty() && sel.find(' ') == std::string::npos)
            sel += " 0";
        implOf(u)->setting(call, "path_selector", sel, o);
        return 1;
    });
}

int onSwitchPathGroup(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u, m](const CallPtr &call, Options &, auto readOpts) {
        uint32_t g = 0;
        if (int r = sd_bus_message_read(m, "u", &g); r < 0)
            return r;
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->switchGroup(call, g);
        return 1;
    });
}

int onReload(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u](const CallPtr &call, Options &, auto readOpts) {
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->reload(call);
        return 1;
    });
}

int onSuspend(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u](const CallPtr &call, Options &, auto readOpts) {
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->suspend(call, true);
        return 1;
    });
}

int onResume(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u](const CallPtr &call, Options &, auto readOpts) {
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->suspend(call, false);
        return 1;
    });
}

int onFlush(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u](const CallPtr &call, Options &, auto readOpts) {
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->flush(call);
        return 1;
    });
}

const sd_bus_vtable kMapVtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD_WITH_ARGS("SetQueueIfNoPath", SD_BUS_ARGS("b", enable, "a{sv}", options),
                            SD_BUS_NO_RESULT, onSetQueueIfNoPath, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("SetNoPathRetry", SD_BUS_ARGS("s", value, "a{sv}", options),
                            SD_BUS_NO_RESULT, onSetNoPathRetry, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("SetPgInitRetries", SD_BUS_ARGS("u", retries, "a{sv}", options),
                            SD_BUS_NO_RESULT, onSetPgInitRetries, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("SetPgInitDelayMsecs", SD_BUS_ARGS("u", msecs, "a{sv}", options),
                            SD_BUS_NO_RESULT, onSetPgInitDelayMsecs, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("SetPathSelector", SD_BUS_ARGS("s", selector, "a{sv}", options),
                            SD_BUS_NO_RESULT, onSetPathSelector, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("SwitchPathGroup", SD_BUS_ARGS("u", group, "a{sv}", options),
                            SD_BUS_NO_RESULT, onSwitchPathGroup, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_ARGS("a{sv}", options), SD_BUS_NO_RESULT, onReload,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Suspend", SD_BUS_ARGS("a{sv}", options), SD_BUS_NO_RESULT, onSuspend,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Resume", SD_BUS_ARGS("a{sv}", options), SD_BUS_NO_RESULT, onResume,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Flush", SD_BUS_ARGS("a{sv}", options), SD_BUS_NO_RESULT, onFlush,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    MPATH_PROPERTY("Name", "s"),
    MPATH_PROPERTY("Wwid", "s"),
    MPATH_PROPERTY("Uuid", "s"),
    MPATH_PROPERTY("Target", "s"),
    MPATH_PROPERTY("Size", "t"),
    MPATH_PROPERTY("Features", "as"),
    MPATH_PROPERTY("HardwareHandler", "s"),
    MPATH_PROPERTY("QueueIfNoPath", "b"),
    MPATH_PROPERTY("NoPathRetry", "s"),
    MPATH_PROPERTY("PgInitRetries", "u"),
    MPATH_PROPERTY("PgInitDelayMsecs", "u"),
    MPATH_PROPERTY("Selector", "s"),
    MPATH_PROPERTY("ActiveGroup", "u"),
    MPATH_PROPERTY("BlockDevice", "s"),
    MPATH_PROPERTY("DevT", "s"),
    MPATH_PROPERTY("State", "s"),
    MPATH_PROPERTY("UsablePaths", "u"),
    MPATH_PROPERTY("Groups", "ao"),
    MPATH_PROPERTY("Paths", "ao"),
    MPATH_PROPERTY("Overrides", "a{ss}"),
    SD_BUS_VTABLE_END,
};

const sd_bus_vtable kGroupVtable[] = {
    SD_BUS_VTABLE_START(0),          MPATH_PROPERTY("Map", "o"),
    MPATH_PROPERTY("Number", "u"),   MPATH_PROPERTY("State", "s"),
    MPATH_PROPERTY("Priority", "i"), MPATH_PROPERTY("Selector", "s"),
    MPATH_PROPERTY("Paths", "ao"),   SD_BUS_VTABLE_END,
};

// Path -----------------------------------------------------------------

int onFail(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u](const CallPtr &call, Options &, auto readOpts) {
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->pathFail(call, true);
        return 1;
    });
}

int onReinstate(sd_bus_message *m, void *u, sd_bus_error *e) {
    return method(m, e, false, [u](const CallPtr &call, Options &, auto readOpts) {
        if (int r = readOpts(); r <= 0)
            return r;
        implOf(u)->pathFail(call, false);
        return 1;
    });
}

const sd_bus_vtable kPathVtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD_WITH_ARGS("Fail", SD_BUS_ARGS("a{sv}", options), SD_BUS_NO_RESULT, onFail,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Reinstate", SD_BUS_ARGS("a{sv}", options), SD_BUS_NO_RESULT,
                            onReinstate, SD_BUS_VTABLE_UNPRIVILEGED),
    MPATH_PROPERTY("Name", "s"),
    MPATH_PROPERTY("Device", "s"),
    MPATH_PROPERTY("DevT", "s"),
    MPATH_PROPERTY("Wwid", "s"),
    MPATH_PROPERTY("Vendor", "s"),
    MPATH_PROPERTY("Product", "s"),
    MPATH_PROPERTY("Transport", "s"),
    MPATH_PROPERTY("TransportIds", "a{ss}"),
    MPATH_PROPERTY("CheckerState", "s"),
    MPATH_PROPERTY("DmState", "s"),
    MPATH_PROPERTY("AdminFailed", "b"),
    MPATH_PROPERTY("Priority", "i"),
    MPATH_PROPERTY("FailCount", "u"),
    MPATH_PROPERTY("Map", "o"),
    MPATH_PROPERTY("Group", "o"),
    SD_BUS_VTABLE_END,
};

/// org.freedesktop.DBus.ObjectManager on the root object: GetManagedObjects.
int onRootMessage(sd_bus_message *m, void *u, sd_bus_error *error) {
    if (!sd_bus_message_is_method_call(m, "org.freedesktop.DBus.ObjectManager",
                                       "GetManagedObjects"))
        return 0; // Introspect and the rest: sd-bus's
    try {
        sd_bus_message *reply = nullptr;
        int r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
            r = sd_bus_message_open_container(reply, 'a', "{oa{sa{sv}}}");
        for (const auto &[path, o] : implOf(u)->service.objects()) {
            if (r >= 0)
                r = sd_bus_message_open_container(reply, 'e', "oa{sa{sv}}");
            if (r >= 0)
                r = sd_bus_message_append(reply, "o", path.c_str());
            if (r >= 0)
                r = appendInterfaces(reply, o);
            if (r >= 0)
                r = sd_bus_message_close_container(reply);
        }
        if (r >= 0)
            r = sd_bus_message_close_container(reply);
        if (r >= 0)
            r = sd_bus_send(nullptr, reply, nullptr);
        sd_bus_message_unref(reply);
        if (r < 0)
            return sd_bus_error_set_errno(error, r);
        return 1;
    } catch (const std::exception &e) {
        return sd_bus_error_set(error, kErrFailed, e.what());
    }
}

/// InterfacesAdded / InterfacesRemoved for \a path on \a bus.
void emitObject(sd_bus *bus, const std::string &path, const BusService::Object &o, bool added) {
    sd_bus_message *m = nullptr;
    int r =
        sd_bus_message_new_signal(bus, &m, BusService::kRoot, "org.freedesktop.DBus.ObjectManager",
                                  added ? "InterfacesAdded" : "InterfacesRemoved");
    if (r >= 0)
        r = sd_bus_message_append(m, "o", path.c_str());
    if (r >= 0)
        r = added ? appendInterfaces(m, o) : sd_bus_message_append(m, "as", 1, o.interface.c_str());
    if (r >= 0)
        (void)sd_bus_send(bus, m, nullptr);
    sd_bus_message_unref(m);
}

/// Finds the objects of \a interface below a prefix among those published.
template <const char *const *Interface>
int find(sd_bus *, const char *path, const char *, void *userdata, void **found, sd_bus_error *) {
    auto *impl = implOf(userdata);
    const auto &objects = impl->service.objects();
    auto it = objects.find(path);
    if (it == objects.end() || it->second.interface != *Interface)
        return 0;
    *found = impl;
    return 1;
}
constexpr const char *const kMapIfacePtr = kMapIface;
constexpr const char *const kGroupIfacePtr = kGroupIface;
constexpr const char *const kPathIfacePtr = kPathIface;

int enumerate(sd_bus *, const char *prefix, void *userdata, char ***nodes, sd_bus_error *) {
    const auto &objects = implOf(userdata)->service.objects();
    const std::string p = std::string(prefix) + "/";
    std::vector<const std::string *> hits;
    for (const auto &[path, o] : objects)
        if (path.rfind(p, 0) == 0)
            hits.push_back(&path);
    char **v = static_cast<char **>(calloc(hits.size() + 1, sizeof(char *)));
    if (!v)
        return -ENOMEM;
    for (size_t i = 0; i < hits.size(); ++i)
        if (!(v[i] = strdup(hits[i]->c_str()))) {
            for (size_t j = 0; j < i; ++j)
                free(v[j]);
            free(v);
            return -ENOMEM;
        }
    *nodes = v;
    return 1;
}

} // namespace

// --- the service -----------------------------------------------------------

BusService::BusService(Daemon &daemon) : daemon_(daemon), impl_(std::make_unique<Impl>(*this)) {
    afterDispatch_ = daemon_.loop().addAfterDispatch([this] { changed(); });
}

void BusService::changed() {
    impl_->check();
    if (publishedByTimer_) {
        publishedByTimer_ = false; // nothing but the computation ran
        return;
    }
    dirty_ = true;
    if (publishTimer_ || connections_.empty())
        return;
    publishTimer_ = daemon_.loop().addTimer(kPublishDelay, [this] {
        publishTimer_.reset();
        if (dirty_)
            publish();
        publishedByTimer_ = true;
    });
}

const std::map<std::string, BusService::Object> &BusService::objects() {
    if (dirty_ && !connections_.empty())
        publish();
    return objects_;
}

BusService::~BusService() = default;

std::string BusService::mapPath(const std::string &wwid) {
    return encode(kMapsPrefix, wwid);
}

std::string BusService::groupPath(const std::string &wwid, unsigned number) {
    return mapPath(wwid) + "/groups/" + std::to_string(number);
}

std::string BusService::pathPath(const std::string &kernelName) {
    return encode(kPathsPrefix, kernelName);
}

int BusService::attach(sd_bus *bus, bool peer) {
    auto c = std::make_unique<Connection>();
    c->bus = sd_bus_ref(bus);
    c->peer = peer;
    void *u = impl_.get();
    auto add = [&](int r, sd_bus_slot *s) {
        if (r >= 0)
            c->slots.push_back(s);
        return r;
    };
    sd_bus_slot *s = nullptr;
    // The object manager answers from the objects as computed, without a
    // getter call per property (sd-bus's own walks its vtables for each).
    int r = add(sd_bus_add_object(bus, &s, kRoot, &onRootMessage, u), s);
    if (r >= 0)
        r = add(sd_bus_add_object_vtable(bus, &s, kManagerPath, kManagerIface, kManagerVtable, u),
                s);
    if (r >= 0)
        r = add(sd_bus_add_fallback_vtable(bus, &s, kMapsPrefix, kMapIface, kMapVtable,
                                           &find<&kMapIfacePtr>, u),
                s);
    if (r >= 0)
        r = add(sd_bus_add_fallback_vtable(bus, &s, kMapsPrefix, kGroupIface, kGroupVtable,
                                           &find<&kGroupIfacePtr>, u),
                s);
    if (r >= 0)
        r = add(sd_bus_add_fallback_vtable(bus, &s, kPathsPrefix, kPathIface, kPathVtable,
                                           &find<&kPathIfacePtr>, u),
                s);
    if (r >= 0)
        r = add(sd_bus_add_node_enumerator(bus, &s, kMapsPrefix, &enumerate, u), s);
    if (r >= 0)
        r = add(sd_bus_add_node_enumerator(bus, &s, kPathsPrefix, &enumerate, u), s);
    if (r < 0)
        return r;
    connections_.push_back(std::move(c));
    if (objects_.empty())
        objects_ = compute();
    return 0;
}

void BusService::detach(sd_bus *bus) {
    std::erase_if(connections_, [bus](const auto &c) { return c->bus == bus; });
}

std::map<std::string, BusService::Object> BusService::compute() const {
    using mpath::model::toString;
    std::map<std::string, Object> out;
    const State &st = daemon_.state();

    unsigned pending = 0;
    for (const auto &[wwid, rec] : st.maps)
        pending += rec.idle() ? 0 : 1;
    out[kManagerPath] = Object{kManagerIface,
                               {{"Version", std::string(MPATHD_VERSION)},
                                {"Target", std::string(mpath::config::toString(daemon_.target()))},
                                {"Ready", daemon_.ready()},
                                {"Reconfiguring", daemon_.reconfiguring()},
                                {"PendingMaps", uint32_t{pending}},
                                {"ConfigFiles", daemon_.config().files}}};

    // Which map and group each path is in.
    std::map<std::string, std::pair<std::string, unsigned>> where; // kernel name -> map, group
    std::map<dev_t, std::string> byDevt;
    for (const auto &[name, p] : st.paths)
        byDevt[p.path.devt] = name;
    std::map<std::string, unsigned> failCounts; // as the map's status last said
    std::map<std::string, std::vector<const std::string *>> pathsOf; // map WWID -> kernel names
    for (const auto &[name, p] : st.paths)
        if (!p.mapWwid.empty())
            pathsOf[p.mapWwid].push_back(&name);

    for (const auto &[wwid, rec] : st.maps) {
        const mpath::model::Map &m =
            rec.live ? rec.liveMap : (rec.planned ? rec.planned->map : rec.liveMap);
        const std::string mp = mapPath(wwid);
        std::vector<ObjectPath> groups, paths;
        unsigned active = 0, usablePaths = 0;
        for (size_t g = 0; g < m.groups.size(); ++g) {
            const auto &grp = m.groups[g];
            const unsigned number = static_cast<unsigned>(g + 1);
            if (grp.state == mpath::model::GroupState::Active && active == 0)
                active = number;
            std::vector<ObjectPath> members;
            // A live table carries no priorities: the group's is its
            // tracked paths' mean, as the planner computes it.
            mpath::model::PathGroup tracked;
            for (const auto &p : grp.paths) {
                auto n = byDevt.find(p.devt);
                if (n == byDevt.end())
                    continue;
                members.push_back({pathPath(n->second)});
                where[n->second] = {wwid, number};
                failCounts[n->second] = p.failCount;
                tracked.paths.push_back(st.paths.at(n->second).path);
            }
            groups.push_back({groupPath(wwid, number)});
            out[groupPath(wwid, number)] =
                Object{kGroupIface,
                       {{"Map", ObjectPath{mp}},
                        {"Number", uint32_t{number}},
                        {"State", std::string(toString(grp.state))},
                        {"Priority", int32_t{mpath::policy::groupPriority(tracked)}},
                        {"Selector", selectorText(grp)},
                        {"Paths", members}}};
        }
        if (auto it = pathsOf.find(wwid); it != pathsOf.end())
            for (const std::string *name : it->second) {
                paths.push_back({pathPath(*name)});
                usablePaths += (rec.live && usable(st.paths.at(*name))) ? 1 : 0;
            }
        const bool queueing =
            std::find(m.features.begin(), m.features.end(), "queue_if_no_path") != m.features.end();
        const std::string &noPathRetry = rec.noPathRetry;
        std::string state = !rec.live         ? "pending"
                            : rec.suspended   ? "suspended"
                            : usablePaths > 0 ? "ready"
                            : queueing        ? "queueing"
                                              : "failing";
        out[mp] =
            Object{kMapIface,
                   {{"Name", rec.name},
                    {"Wwid", wwid},
                    {"Uuid", "mpath-" + wwid},
                    {"Target", rec.live ? rec.target : std::string()},
                    {"Size", uint64_t{m.sizeSectors * 512}},
                    {"Features", m.features},
                    {"HardwareHandler", m.hwHandler},
                    {"QueueIfNoPath", queueing},
                    {"NoPathRetry", noPathRetry},
                    {"PgInitRetries", featureNumber(m.features, "pg_init_retries")},
                    {"PgInitDelayMsecs", featureNumber(m.features, "pg_init_delay_msecs")},
                    {"Selector", m.groups.empty() ? std::string() : selectorText(m.groups[0])},
                    {"ActiveGroup", uint32_t{active}},
                    {"BlockDevice",
                     rec.devt ? "/dev/dm-" + std::to_string(minor(rec.devt)) : std::string()},
                    {"DevT", devtString(rec.devt)},
                    {"State", state},
                    {"UsablePaths", uint32_t{usablePaths}},
                    {"Groups", groups},
                    {"Paths", paths},
                    {"Overrides", daemon_.overridesOf(wwid)}}};
    }

    for (const auto &[name, p] : st.paths) {
        if (p.path.wwid.empty())
            continue;
        std::map<std::string, std::string> ids;
        const auto &t = p.path.ids;
        for (const auto &[k, v] :
             {std::pair<const char *, const std::string &>{"host_wwnn", t.hostWwnn},
              {"host_wwpn", t.hostWwpn},
              {"target_wwnn", t.targetWwnn},
              {"target_wwpn", t.targetWwpn},
              {"node_name", t.nodeName}})
            if (!v.empty())
                ids[k] = v;
        if (t.targetPortGroup >= 0)
            ids["target_port_group"] = std::to_string(t.targetPortGroup);
        auto w = where.find(name);
        const bool inMap = !p.mapWwid.empty() && st.maps.count(p.mapWwid);
        out[pathPath(name)] = Object{
            kPathIface,
            {{"Name", name},
             {"Device", p.devnode.empty() ? "/dev/" + name : p.devnode},
             {"DevT", p.path.devtString()},
             {"Wwid", p.path.wwid},
             {"Vendor", p.path.vendor},
             {"Product", p.path.product},
             {"Transport", std::string(toString(p.path.transport))},
             {"TransportIds", ids},
             {"CheckerState", std::string(toString(p.path.checkerState))},
             {"DmState", std::string(toString(p.path.dmState))},
             {"AdminFailed", p.adminFailed},
             {"Priority", int32_t{p.path.priority}},
             {"FailCount", uint32_t{failCounts.count(name) ? failCounts.at(name) : 0u}},
             {"Map", ObjectPath{inMap ? mapPath(p.mapWwid) : "/"}},
             {"Group",
              ObjectPath{w != where.end() ? groupPath(w->second.first, w->second.second) : "/"}}}};
    }
    return out;
}

void BusService::publish() {
    if (connections_.empty())
        return;
    dirty_ = false; // the signals' getters read objects() meanwhile
    std::map<std::string, Object> next = compute();
    if (next == objects_)
        return;
    std::map<std::string, Object> previous = std::move(objects_);
    objects_ = std::move(next);
    for (auto &c : connections_) {
        if (sd_bus_is_ready(c->bus) <= 0)
            continue; // still connecting: it reads the objects once it can
        for (const auto &[path, o] : previous)
            if (!objects_.count(path))
                emitObject(c->bus, path, o, false);
        for (const auto &[path, o] : objects_) {
            auto before = previous.find(path);
            if (before == previous.end() || before->second.interface != o.interface) {
                emitObject(c->bus, path, o, true);
                continue;
            }
            std::vector<const char *> names;
            for (size_t i = 0; i < o.properties.size(); ++i)
                if (i >= before->second.properties.size() ||
                    !(before->second.properties[i] == o.properties[i]))
                    names.push_back(o.properties[i].first.c_str());
            if (names.empty())
                continue;
            names.push_back(nullptr);
            (void)sd_bus_emit_properties_changed_strv(c->bus, path.c_str(), o.interface.c_str(),
                                                      const_cast<char **>(names.data()));
        }
    }
}

} // namespace mpathd
