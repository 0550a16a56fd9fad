#include "bus_actions.h"

#include "bus_arguments.h"
#include "bus_errors.h"
#include "bus_method.h"
#include "bus_objects.h"
#include "bus_service.h"
#include "checker_scheduler.h"
#include "daemon.h"
#include "dm_ops.h"
#include "log.h"
#include "overrides.h"
#include "path_tracker.h"
#include "reconciler.h"

#include <sys/sysmacros.h>
#include <systemd/sd-bus.h>

namespace mpathd {

using mpath::Error;
using mpath::Result;

namespace {

/// The element of \a objectPath below \a prefix, decoded; "" when it is not
/// one.
std::string decode(const char *objectPath, const char *prefix) {
    char *id = nullptr;
    if (!objectPath || sd_bus_path_decode(objectPath, prefix, &id) <= 0 || !id)
        return {};
    std::string s(id);
    free(id);
    return s;
}

/// A device name as AddPath and RemovePath take it: "sdb" or "/dev/sdb".
Result<std::string> kernelName(const std::string &device) {
    std::string name = device.rfind("/dev/", 0) == 0 ? device.substr(5) : device;
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
        return Error{EINVAL, "'" + device +
                                 "' is not a block device's kernel name (sdb) or node "
                                 "(/dev/sdb)"};
    return name;
}

std::string devtString(dev_t d) {
    return d == 0 ? "" : std::to_string(major(d)) + ":" + std::to_string(minor(d));
}

} // namespace

/// A call waiting for the maps to follow a change.
struct BusActions::Waiter {
    std::function<bool()> done;
    std::function<void()> complete;
    mpath::sys::EventLoop::SourcePtr deadline;
};

BusActions::BusActions(Daemon &daemon, BusService &service) : daemon_(daemon), service_(service) {}

BusActions::~BusActions() = default;

// --- finding and checking the object -----------------------------------------

Result<BusActions::Target> BusActions::prepare(const BusMethod &method, const char *objectPath,
                                               const BusArguments &args) {
    Target t;
    State &st = daemon_.mutableState();
    switch (method.object) {
    case BusObjectKind::Manager: {
        if (method.act != BusAct::AddPath && method.act != BusAct::RemovePath)
            return t;
        auto name = kernelName(args.text());
        if (!name)
            return name.error();
        t.kernelName = *name;
        if (method.act == BusAct::RemovePath) {
            if (!st.paths.count(t.kernelName))
                return Error{ENOENT, "no path " + t.kernelName};
            return t;
        }
        auto devices = daemon_.env().udev->enumerate("block", "disk");
        if (!devices)
            return Error{EIO, "cannot list block devices: " + devices.error().message};
        for (auto &d : *devices)
            if (d.sysname == t.kernelName) {
                t.device = std::move(d);
                return t;
            }
        return Error{ENOENT, "no block device " + t.kernelName};
    }
    case BusObjectKind::Map: {
        auto it = st.maps.find(decode(objectPath, BusObjects::kMapsPrefix));
        if (it == st.maps.end())
            return Error{ENOENT, std::string("no map at ") + (objectPath ? objectPath : "")};
        const MapRecord &rec = it->second;
        t.wwid = rec.wwid;
        t.mapName = rec.name;
        if (method.needsLiveMap && !rec.live)
            return Error{EBUSY, "map " + rec.name + " is not made yet"};
        if (method.act == BusAct::SwitchGroup) {
            const size_t n = rec.liveMap.groups.size();
            const uint32_t group = args.number();
            if (group < 1 || group > n)
                return Error{EINVAL, "map " + rec.name + " has " + std::to_string(n) +
                                         " path group" + (n == 1 ? "" : "s") +
                                         ": there is no group " + std::to_string(group)};
        }
        if (method.keyword)
            if (auto e = Overrides::parse(rec.wwid, method.keyword, args.settingValue()); !e)
                return Error{EINVAL, "map " + rec.name + ": " + e.error().message};
        return t;
    }
    case BusObjectKind::Path: {
        const std::string name = decode(objectPath, BusObjects::kPathsPrefix);
        auto p = st.paths.find(name);
        if (name.empty() || p == st.paths.end())
            return Error{ENOENT, std::string("no path at ") + (objectPath ? objectPath : "")};
        t.kernelName = name;
        auto m = st.maps.find(p->second.mapWwid);
        if (m == st.maps.end() || !m->second.live)
            return Error{EINVAL, "path " + name + " is in no map"};
        t.wwid = m->second.wwid;
        t.mapName = m->second.name;
        return t;
    }
    }
    return Error{EINVAL, "no such object"};
}

void BusActions::run(const BusMethod &method, const Target &target, const BusArguments &args,
                     const CallPtr &call) {
    switch (method.act) {
    case BusAct::GetMaps:
        return getMaps(call);
    case BusAct::DescribeMaps:
        return call->okString(service_.mapsDocument());
    case BusAct::DescribeTopology:
        return call->okString(service_.topologyDocument());
    case BusAct::ResolveDevice:
        if (auto path = resolve(args.text()))
            return call->okObject(*path);
        return call->fail(kErrNotFound, "no map or path is called '" + args.text() + "'");
    case BusAct::Reconfigure:
        return reconfigure(call);
    case BusAct::AddPath:
        return addPath(call, target);
    case BusAct::RemovePath:
        return removePath(call, target);
    case BusAct::Setting:
        return setting(call, method, target, args);
    case BusAct::QueueIfNoPath:
        return queueIfNoPath(call, target, args);
    case BusAct::SwitchGroup:
        return message(call, target.wwid, "switch_group " + std::to_string(args.number()));
    case BusAct::Reload:
        return reload(call, target);
    case BusAct::Suspend:
        return suspend(call, target, true);
    case BusAct::Resume:
        return suspend(call, target, false);
    case BusAct::Flush:
        return flush(call, target);
    case BusAct::Fail:
        return pathFail(call, target, true);
    case BusAct::Reinstate:
        return pathFail(call, target, false);
    }
}

// --- waiting for the maps -----------------------------------------------------

void BusActions::wait(std::function<bool()> done, std::function<void()> complete,
                      std::function<void()> timedOut) {
    auto w = std::make_shared<Waiter>();
    w->done = std::move(done);
    w->complete = std::move(complete);
    std::weak_ptr<Waiter> weak = w;
    w->deadline = daemon_.loop().addTimer(daemon_.env().dmDeadline + std::chrono::seconds(10),
                                          [this, weak, timedOut] {
                                              if (auto w = weak.lock()) {
                                                  waiters_.remove(w);
                                                  timedOut();
                                              }
                                          });
    waiters_.push_back(std::move(w));
    check();
}

void BusActions::check() {
    for (auto it = waiters_.begin(); it != waiters_.end();) {
        auto w = *it;
        if (w->done()) {
            it = waiters_.erase(it);
            w->complete();
        } else {
            ++it;
        }
    }
}

void BusActions::afterPass(const CallPtr &call, const std::string &wwid) {
    const unsigned plans = daemon_.counters().plans;
    wait(
        [this, plans, wwid] {
            const auto &maps = daemon_.state().maps;
            auto it = maps.find(wwid);
            if (it == maps.end())
                return daemon_.counters().plans > plans;
            // A pass after the change acted on the map, and what it
            // started has ended.
            return it->second.actedPlan > plans && it->second.idle();
        },
        [this, call, wwid] {
            const auto &maps = daemon_.state().maps;
            auto it = maps.find(wwid);
            if (it != maps.end() && !it->second.lastError.empty())
                call->fail(kErrDm, "map " + it->second.name + ": " + it->second.lastError);
            else
                call->ok();
        },
        [call, wwid] { call->fail(kErrFailed, "map " + wwid + ": no answer in time"); });
}

// --- the methods -------------------------------------------------------------

std::optional<std::string> BusActions::resolve(std::string name) const {
    const State &st = daemon_.state();
    if (name.rfind("/dev/mapper/", 0) == 0) {
        name = name.substr(12);
        for (const auto &[wwid, rec] : st.maps)
            if (rec.name == name)
                return BusService::mapPath(wwid);
        return std::nullopt;
    }
    if (name.rfind("/dev/", 0) == 0)
        name = name.substr(5);
    if (auto p = st.paths.find(name); p != st.paths.end() && !p->second.path.wwid.empty())
        return BusService::pathPath(name);
    for (const auto &[wwid, rec] : st.maps) {
        if (rec.name == name || wwid == name)
            return BusService::mapPath(wwid);
        if (rec.devt != 0 &&
            (devtString(rec.devt) == name || "dm-" + std::to_string(minor(rec.devt)) == name))
            return BusService::mapPath(wwid);
    }
    for (const auto &[kname, rec] : st.paths)
        if (!rec.path.wwid.empty() && rec.path.devtString() == name)
            return BusService::pathPath(kname);
    return std::nullopt;
}

void BusActions::getMaps(const CallPtr &call) {
    std::vector<std::string> maps;
    for (const auto &[path, o] : service_.objects())
        if (o.interface == BusObjects::kMapInterface)
            maps.push_back(path);
    call->okObjects(maps);
}

void BusActions::setting(const CallPtr &call, const BusMethod &method, const Target &target,
                         const BusArguments &args) {
    const std::string wwid = target.wwid;
    const std::string name = target.mapName;
    daemon_.setMapSetting(wwid, method.keyword, args.settingValue(), args.persist(),
                          [this, call, wwid, name](Result<void> r) {
                              if (!r) {
                                  call->fail(kErrFailed, "map " + name + ": " + r.error().message);
                                  return;
                              }
                              afterPass(call, wwid);
                          });
}

void BusActions::message(const CallPtr &call, const std::string &wwid, const std::string &text,
                         std::function<std::optional<std::string>(bool)> after) {
    auto &maps = daemon_.mutableState().maps;
    auto it = maps.find(wwid);
    if (it == maps.end()) {
        call->fail(kErrNotFound, "map " + wwid + " is gone");
        return;
    }
    const std::string name = it->second.name;
    daemon_.dmOps().message(
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
            daemon_.reconciler().refresh(wwid, [call] { call->ok(); });
        });
}

void BusActions::queueIfNoPath(const CallPtr &call, const Target &target,
                               const BusArguments &args) {
    const std::string wwid = target.wwid;
    const std::string name = target.mapName;
    const bool enable = args.flag();
    const bool persist = args.persist();
    const std::string text = enable ? "queue_if_no_path" : "fail_if_no_path";
    daemon_.dmOps().message(
        wwid, name, text, [this, call, wwid, name, text, enable, persist](Result<void> r) {
            if (!r) {
                call->fail(kErrDm, "map " + name + ": " + text + ": " + r.error().message);
                return;
            }
            // The setting follows, so that the next plan keeps the table as
            // the message left it (no reload), and so that no no_path_retry
            // countdown undoes it.
            daemon_.setMapSetting(
                wwid, "no_path_retry", enable ? "queue" : "fail", persist,
                [this, call, wwid, name, enable](Result<void> s) {
                    if (!s) {
                        call->fail(kErrFailed,
                                   "map " + name + ": queueing is " + (enable ? "on" : "off") +
                                       " but the setting is not kept: " + s.error().message);
                        return;
                    }
                    daemon_.reconciler().refresh(wwid, [call] { call->ok(); });
                });
        });
}

void BusActions::flush(const CallPtr &call, const Target &target) {
    State &st = daemon_.mutableState();
    const std::string wwid = target.wwid;
    MapRecord &rec = st.maps.at(wwid);
    if (rec.busy) {
        call->fail(kErrBusy, "map " + rec.name + " is being changed; try again");
        return;
    }
    rec.busy = true;
    const std::string name = rec.name;
    // Taken as an administrator's removal: not made again until a path
    // changes or the configuration is read again.
    st.removedByAdmin.insert(wwid);
    st.removing.insert(wwid);
    daemon_.dmOps().remove(wwid, name, false, [this, call, wwid, name](Result<bool> r) {
        State &st = daemon_.mutableState();
        auto it = st.maps.find(wwid);
        if (!r || !*r) {
            st.removedByAdmin.erase(wwid);
            st.removing.erase(wwid);
            if (it != st.maps.end())
                it->second.busy = false;
            if (r || r.error().code == EBUSY)
                call->fail(kErrBusy, "map " + name + " is in use: not removed");
            else
                call->fail(kErrDm, "map " + name + ": cannot remove it: " + r.error().message);
            daemon_.reconciler().schedule();
            return;
        }
        logNotice(aboutMap(name, wwid), "removed on request");
        if (it != st.maps.end())
            st.maps.erase(it);
        for (auto &[n, p] : st.paths)
            if (p.mapWwid == wwid)
                p.mapWwid.clear();
        daemon_.checks().sync();
        daemon_.publishStatus();
        daemon_.reconciler().schedule(); // what waited for the removal
        call->ok();
    });
}

void BusActions::pathFail(const CallPtr &call, const Target &target, bool fail) {
    const std::string kname = target.kernelName;
    PathRecord &p = daemon_.mutableState().paths.at(kname);
    const bool wasFailed = p.adminFailed;
    p.adminFailed = fail;
    if (!fail && p.heldAsShaky()) {
        // Reinstated on request: no longer held as shaky, nor grouped apart,
        // nor sampled.
        p.sanPathErr = {};
        p.marginalPath = {};
        p.ioSample.reset();
        if (p.path.marginal) {
            p.path.marginal = false;
            daemon_.reconciler().schedule(p.mapWwid);
        }
    }
    p.path.dmState = fail ? mpath::model::DmPathState::Failed : mpath::model::DmPathState::Active;
    logNotice(aboutPath(kname),
              fail ? "failed on request: checks leave it failed" : "reinstated on request");
    message(call, target.wwid,
            std::string(fail ? "fail_path " : "reinstate_path ") + p.path.devtString(),
            [this, kname, fail, wasFailed](bool sent) -> std::optional<std::string> {
                if (!sent) {
                    // Refused: nothing changes.
                    auto it = daemon_.mutableState().paths.find(kname);
                    if (it != daemon_.mutableState().paths.end()) {
                        it->second.adminFailed = wasFailed;
                        it->second.path.dmState = mpath::model::DmPathState::Unknown;
                    }
                    return std::nullopt;
                }
                if (!fail)
                    daemon_.checks().checkSoon(kname); // is it up after all?
                return std::nullopt;
            });
}

void BusActions::addPath(const CallPtr &call, const Target &target) {
    const std::string &name = target.kernelName;
    if (!daemon_.paths().update(target.device)) {
        call->fail(kErrInvalid, name + " is not a path device");
        return;
    }
    State &st = daemon_.mutableState();
    PathRecord &rec = st.paths.at(name);
    if (auto why = daemon_.paths().excluded(name)) {
        call->fail(kErrInvalid, name + " is in no map: " + *why);
        return;
    }
    rec.adminRemoved = false;
    st.removedByAdmin.erase(rec.path.wwid);
    daemon_.reconciler().schedule();
    afterPass(call, rec.path.wwid);
}

void BusActions::removePath(const CallPtr &call, const Target &target) {
    auto &rec = daemon_.mutableState().paths.at(target.kernelName);
    rec.adminRemoved = true;
    logNotice(aboutPath(target.kernelName), "removed from its map on request");
    const std::string wwid = rec.path.wwid;
    daemon_.reconciler().schedule();
    afterPass(call, wwid);
}

void BusActions::reconfigure(const CallPtr &call) {
    daemon_.reconfigure([this, call](Result<void> r) {
        if (!r) {
            call->fail(kErrFailed, r.error().message);
            return;
        }
        wait([this] { return !daemon_.reconfiguring(); }, [call] { call->ok(); },
             [call] { call->fail(kErrFailed, "the maps did not follow in time"); });
    });
}

void BusActions::suspend(const CallPtr &call, const Target &target, bool suspend) {
    const std::string wwid = target.wwid;
    const std::string name = target.mapName;
    logNotice(aboutMap(name, wwid),
              suspend ? "suspending on request: its I/O waits" : "resuming on request");
    daemon_.dmOps().suspend(wwid, name, suspend, [this, call, wwid, name, suspend](Result<void> r) {
        if (!r) {
            call->fail(kErrDm, "map " + name + ": " + (suspend ? "suspend: " : "resume: ") +
                                   r.error().message);
            return;
        }
        daemon_.reconciler().refresh(wwid, [call] { call->ok(); });
    });
}

void BusActions::reload(const CallPtr &call, const Target &target) {
    daemon_.mutableState().maps.at(target.wwid).reloadWanted = true;
    daemon_.reconciler().schedule();
    afterPass(call, target.wwid);
}

} // namespace mpathd
