#include "bus_service.h"

#include "bus_actions.h"
#include "bus_arguments.h"
#include "bus_call.h"
#include "bus_errors.h"
#include "bus_method.h"
#include "bus_objects.h"
#include "daemon.h"
#include "log.h"
#include "polkit_authorizer.h"

#include <cstring>
#include <list>
#include <systemd/sd-bus.h>

namespace mpathd {

using mpath::Result;

namespace {

std::string encode(const char *prefix, const std::string &id) {
    char *out = nullptr;
    if (sd_bus_path_encode(prefix, id.c_str(), &out) < 0 || !out)
        return prefix;
    std::string s(out);
    free(out);
    return s;
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

/// The vtables of the four interfaces, made once from the method table and
/// the property lists: sd-bus keeps pointers into them.
class Vtables {
public:
    Vtables(sd_bus_message_handler_t method, sd_bus_property_get_t property) {
        static const sd_bus_vtable kStart[] = {SD_BUS_VTABLE_START(0)};
        static const sd_bus_vtable kEnd[] = {SD_BUS_VTABLE_END};
        for (const char *interface : {BusObjects::kManagerInterface, BusObjects::kMapInterface,
                                      BusObjects::kGroupInterface, BusObjects::kPathInterface}) {
            std::vector<sd_bus_vtable> &v = byInterface_[interface];
            v.push_back(kStart[0]);
            for (const BusMethod &m : BusMethod::all()) {
                if (std::strcmp(m.interface, interface) != 0)
                    continue;
                sd_bus_vtable e{};
                e.type = _SD_BUS_VTABLE_METHOD;
                // Anyone may call: what needs a right is asked of polkit.
                e.flags = SD_BUS_VTABLE_UNPRIVILEGED;
                e.x.method.member = m.name;
                e.x.method.signature = keep(m.signature());
                e.x.method.result = m.result;
                e.x.method.handler = method;
                e.x.method.names = keep(m.names());
                v.push_back(e);
            }
            for (const auto &p : BusObjects::properties(interface)) {
                sd_bus_vtable e{};
                e.type = _SD_BUS_VTABLE_PROPERTY;
                e.flags = SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE;
                e.x.property.member = p.name;
                e.x.property.signature = p.signature;
                e.x.property.get = property;
                v.push_back(e);
            }
            v.push_back(kEnd[0]);
        }
    }

    const sd_bus_vtable *of(const char *interface) const {
        return byInterface_.at(interface).data();
    }

private:
    const char *keep(std::string s) { return strings_.emplace_back(std::move(s)).c_str(); }

    std::list<std::string> strings_; ///< signatures and names, NULs inside
    std::map<std::string, std::vector<sd_bus_vtable>> byInterface_;
};

/// Runs \a fn; what it throws answers \a call, and never crosses into
/// sd-bus.
template <typename F>
void guarded(const CallPtr &call, F &&fn) {
    try {
        fn();
    } catch (const std::exception &e) {
        call->fail(kErrFailed, e.what());
    }
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

// --- the sd-bus callbacks ------------------------------------------------------

struct BusService::Callbacks {
    static int onMethod(sd_bus_message *m, void *userdata, sd_bus_error *error);
    static int onRoot(sd_bus_message *m, void *userdata, sd_bus_error *error);
    static int onProperty(sd_bus *bus, const char *path, const char *interface,
                          const char *property, sd_bus_message *reply, void *userdata,
                          sd_bus_error *error);
    static int findObject(sd_bus *bus, const char *path, const char *interface, void *userdata,
                          void **found, sd_bus_error *error);
    static int enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***nodes,
                         sd_bus_error *error);
};

int BusService::Callbacks::onMethod(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    auto *self = static_cast<BusService *>(userdata);
    const char *interface = sd_bus_message_get_interface(m);
    const char *member = sd_bus_message_get_member(m);
    const BusMethod *method = interface && member ? BusMethod::find(interface, member) : nullptr;
    if (!method)
        return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_METHOD, "no method %s",
                                 member ? member : "");
    try {
        self->dispatch(*method, m);
    } catch (const std::exception &e) {
        logError({}, std::string("D-Bus call ") + method->name + ": " + e.what());
    }
    return 1;
}

void BusService::dispatch(const BusMethod &method, sd_bus_message *m) {
    std::weak_ptr<bool> alive = alive_;
    // What a change changed is signalled before its answer. A read changes
    // nothing: when what it read was computed for it (objects()), there is
    // nothing to signal, and no second computation to pay for.
    const bool change = method.action != nullptr;
    auto call = std::make_shared<BusCall>(m, [this, alive, change] {
        if (alive.lock() && (change || dirty_))
            publish();
    });
    guarded(call, [&] {
        // Parse, and check the arguments alone.
        auto args = BusArguments::read(m, method);
        if (!args)
            return call->fail(args.error());
        // Check them against the object.
        auto target = actions_->prepare(method, call->path(), *args);
        if (!target)
            return call->fail(target.error());
        // Authorize: reads are open to everyone, and the private socket is
        // root's alone.
        Connection *c = connectionOf(m);
        if (!method.action || (c && c->peer))
            return actions_->run(method, *target, *args, call);
        const BusMethod *mp = &method;
        authorizer_->authorize(
            m, method.action,
            [this, mp, call, args = *args, before = *target](Result<void> granted) {
                guarded(call, [&] {
                    if (!granted)
                        return call->fail(granted.error());
                    // The state may have moved on while polkit decided.
                    auto target = actions_->prepare(*mp, call->path(), args);
                    if (!target)
                        return call->fail(target.error());
                    if (target->wwid != before.wwid || target->kernelName != before.kernelName)
                        return call->fail(kErrBusy, std::string(call->path()) +
                                                        " changed while the call was "
                                                        "authorized; try again");
                    actions_->run(*mp, *target, args, call);
                });
            });
    });
}

void BusService::act(BusAct act, const std::string &objectPath, const BusArguments &args,
                     TextCall::Answer answer) {
    std::weak_ptr<bool> alive = alive_;
    CallPtr call = std::make_shared<TextCall>(std::move(answer), [this, alive] {
        if (alive.lock())
            publish();
    });
    const BusMethod &method = BusMethod::of(act);
    guarded(call, [&] {
        auto target = actions_->prepare(method, objectPath.c_str(), args);
        if (!target)
            return call->fail(target.error());
        actions_->run(method, *target, args, call);
    });
}

/// org.freedesktop.DBus.ObjectManager's GetManagedObjects on the root,
/// answered from the objects as computed, without a getter call per
/// property (sd-bus's own walks its vtables for each).
int BusService::Callbacks::onRoot(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    if (!sd_bus_message_is_method_call(m, "org.freedesktop.DBus.ObjectManager",
                                       "GetManagedObjects"))
        return 0; // Introspect and the rest: sd-bus's
    const char *signature = sd_bus_message_get_signature(m, true);
    if (signature && *signature)
        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                 "GetManagedObjects takes no arguments, not '%s'", signature);
    try {
        sd_bus_message *reply = nullptr;
        int r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
            r = sd_bus_message_open_container(reply, 'a', "{oa{sa{sv}}}");
        for (const auto &[path, o] : static_cast<BusService *>(userdata)->objects()) {
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

int BusService::Callbacks::onProperty(sd_bus *, const char *path, const char *,
                                      const char *property, sd_bus_message *reply, void *userdata,
                                      sd_bus_error *error) {
    const auto &objects = static_cast<BusService *>(userdata)->objects();
    auto it = objects.find(path);
    if (it == objects.end())
        return sd_bus_error_setf(error, kErrNotFound, "no object %s", path);
    for (const auto &[name, value] : it->second.properties)
        if (name == property)
            return appendValue(reply, value);
    return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_PROPERTY, "no property %s", property);
}

/// Finds the objects of \a interface below a prefix among those published.
int BusService::Callbacks::findObject(sd_bus *, const char *path, const char *interface,
                                      void *userdata, void **found, sd_bus_error *) {
    const auto &objects = static_cast<BusService *>(userdata)->objects();
    auto it = objects.find(path);
    if (it == objects.end() || it->second.interface != interface)
        return 0;
    *found = userdata;
    return 1;
}

int BusService::Callbacks::enumerate(sd_bus *, const char *prefix, void *userdata, char ***nodes,
                                     sd_bus_error *) {
    const auto &objects = static_cast<BusService *>(userdata)->objects();
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

// --- the service -----------------------------------------------------------

BusService::BusService(Daemon &daemon)
    : daemon_(daemon), actions_(std::make_unique<BusActions>(daemon, *this)),
      authorizer_(std::make_unique<PolkitAuthorizer>()) {
    afterDispatch_ = daemon_.loop().addAfterDispatch([this] { changed(); });
}

BusService::~BusService() = default;

void BusService::changed() {
    actions_->check();
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

const std::string &BusService::render(Document &d,
                                      std::string (*write)(const std::map<std::string, Object> &)) {
    const auto &objects = this->objects();
    if (d.stale) {
        d.text = write(objects);
        d.stale = false;
    }
    return d.text;
}

const std::string &BusService::mapsDocument() {
    return render(mapsDocument_, &BusObjects::mapsDocument);
}

const std::string &BusService::topologyDocument() {
    return render(topologyDocument_, &BusObjects::topologyDocument);
}

std::string BusService::mapPath(const std::string &wwid) {
    return encode(BusObjects::kMapsPrefix, wwid);
}

std::string BusService::groupPath(const std::string &wwid, unsigned number) {
    return mapPath(wwid) + "/groups/" + std::to_string(number);
}

std::string BusService::pathPath(const std::string &kernelName) {
    return encode(BusObjects::kPathsPrefix, kernelName);
}

BusService::Connection *BusService::connectionOf(sd_bus_message *m) {
    sd_bus *bus = sd_bus_message_get_bus(m);
    for (auto &c : connections_)
        if (c->bus == bus)
            return c.get();
    return nullptr;
}

int BusService::attach(sd_bus *bus, bool peer) {
    static const Vtables vtables(&Callbacks::onMethod, &Callbacks::onProperty);
    auto c = std::make_unique<Connection>();
    c->bus = sd_bus_ref(bus);
    c->peer = peer;
    void *u = this;
    // Keeps the slot the registration just made. The slot is read here,
    // after the call filled it in: passed as an argument beside the call,
    // it could be read before (the order is unspecified), and a slot left
    // out holds a reference that keeps the whole connection alive.
    sd_bus_slot *s = nullptr;
    auto add = [&](int r) {
        if (r >= 0)
            c->slots.push_back(s);
        s = nullptr;
        return r;
    };
    // The root is an object manager: introspection says so, which clients
    // that go by it (Qt's QDBusInterface) need; its GetManagedObjects is
    // answered by onRoot(), which sd-bus asks first.
    int r = add(sd_bus_add_object_manager(bus, &s, kRoot));
    if (r >= 0)
        r = add(sd_bus_add_object(bus, &s, kRoot, &Callbacks::onRoot, u));
    if (r >= 0)
        r = add(sd_bus_add_object_vtable(bus, &s, BusObjects::kManagerPath,
                                         BusObjects::kManagerInterface,
                                         vtables.of(BusObjects::kManagerInterface), u));
    for (const char *interface : {BusObjects::kMapInterface, BusObjects::kGroupInterface})
        if (r >= 0)
            r = add(sd_bus_add_fallback_vtable(bus, &s, BusObjects::kMapsPrefix, interface,
                                               vtables.of(interface), &Callbacks::findObject, u));
    if (r >= 0)
        r = add(sd_bus_add_fallback_vtable(
            bus, &s, BusObjects::kPathsPrefix, BusObjects::kPathInterface,
            vtables.of(BusObjects::kPathInterface), &Callbacks::findObject, u));
    if (r >= 0)
        r = add(
            sd_bus_add_node_enumerator(bus, &s, BusObjects::kMapsPrefix, &Callbacks::enumerate, u));
    if (r >= 0)
        r = add(sd_bus_add_node_enumerator(bus, &s, BusObjects::kPathsPrefix, &Callbacks::enumerate,
                                           u));
    if (r < 0)
        return r;
    connections_.push_back(std::move(c));
    if (objects_.empty()) {
        objects_ = BusObjects::compute(daemon_);
        documentsStale();
    }
    return 0;
}

void BusService::detach(sd_bus *bus) {
    authorizer_->forget(bus);
    std::erase_if(connections_, [bus](const auto &c) { return c->bus == bus; });
}

void BusService::publish() {
    if (connections_.empty())
        return;
    dirty_ = false; // the signals' getters read objects() meanwhile
    std::map<std::string, Object> next = BusObjects::compute(daemon_);
    if (next == objects_)
        return;
    std::map<std::string, Object> previous = std::move(objects_);
    objects_ = std::move(next);
    documentsStale();
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
