#include "uevent_source.h"

#include "checker_scheduler.h"
#include "daemon.h"
#include "log.h"
#include "path_tracker.h"
#include "reconciler.h"

#include <set>
#include <vector>

namespace mpathd {

using mpath::discovery::UdevDevice;

namespace {

std::string property(const UdevDevice &d, const char *key) {
    auto it = d.properties.find(key);
    return it == d.properties.end() ? std::string() : it->second;
}

} // namespace

mpath::Result<void> UeventSource::start() {
    mpath::discovery::Udev &udev = *daemon_.env().udev;
    if (auto r = udev.startMonitor({"block"}); !r)
        return r;
    source_ = daemon_.loop().addReadable(udev.monitorFd(), [this] { onReadable(); });
    if (!source_)
        return mpath::Error{ENOMEM, "cannot watch the udev monitor"};
    return mpath::ok();
}

void UeventSource::onReadable() {
    mpath::discovery::Udev &udev = *daemon_.env().udev;
    // Everything waiting now, then back to the loop.
    for (int i = 0; i < 1024; ++i) {
        auto event = udev.receive();
        if (!event) {
            if (event.code() == ENOBUFS) {
                rescan();
                continue;
            }
            if (event.code() != EAGAIN)
                logWarning({}, event.error().message);
            return;
        }
        handle(*event);
    }
}

void UeventSource::rescan() {
    logWarning({}, "udev events were lost (receive buffer full): listing the block devices again");
    auto devices = daemon_.env().udev->enumerate("block", "disk");
    if (!devices) {
        logError({}, "cannot list block devices: " + devices.error().message);
        return;
    }
    std::set<std::string> present;
    for (const auto &d : *devices)
        if (daemon_.paths().update(d))
            present.insert(d.sysname);
    std::vector<std::string> gone;
    for (const auto &[name, rec] : daemon_.state().paths)
        if (!present.count(name))
            gone.push_back(name);
    for (const auto &name : gone)
        daemon_.paths().remove(name);
    daemon_.reconciler().schedule();
}

void UeventSource::handle(const UdevDevice &event) {
    if (event.subsystem != "block")
        return;
    if (event.sysname.rfind("dm-", 0) == 0) {
        mapEvent(event);
        return;
    }
    if (!PathTracker::candidate(event))
        return;
    State &state = daemon_.mutableState();
    logDebug(aboutPath(event.sysname), "uevent " + event.action);
    // The maps to plan again: the one the path was in or would be in,
    // before the event and after it.
    std::set<std::string> wwids;
    auto concerned = [&] {
        if (auto it = state.paths.find(event.sysname); it != state.paths.end()) {
            wwids.insert(it->second.path.wwid);
            wwids.insert(it->second.mapWwid);
        }
    };
    concerned();
    if (event.action == "remove") {
        daemon_.paths().remove(event.sysname);
    } else if (daemon_.paths().update(event)) {
        // A path event brings back a map an administrator removed; a path
        // added again comes back from an administrator's RemovePath.
        PathRecord &rec = state.paths.at(event.sysname);
        state.removedByAdmin.erase(rec.path.wwid);
        if (event.action == "add")
            rec.adminRemoved = false;
    }
    concerned();
    wwids.erase(""); // a device without a WWID is in no map
    for (const auto &wwid : wwids)
        daemon_.reconciler().schedule(wwid);
}

void UeventSource::mapEvent(const UdevDevice &event) {
    const std::string uuid = property(event, "DM_UUID");
    if (uuid.rfind("mpath-", 0) != 0)
        return;
    const std::string wwid = uuid.substr(6);
    State &state = daemon_.mutableState();
    const std::string action = property(event, "DM_ACTION");
    if (event.action == "change" && (action == "PATH_FAILED" || action == "PATH_REINSTATED")) {
        daemon_.checks().dmPathEvent(wwid, property(event, "DM_PATH"), action == "PATH_FAILED");
        return;
    }
    if (event.action == "change") {
        // The uevent of a create's or reload's resume, after udev's rules:
        // a map parked on it goes on.
        const std::string cookie = property(event, "DM_COOKIE");
        if (!cookie.empty())
            try {
                daemon_.reconciler().udevEvent(wwid, static_cast<uint32_t>(std::stoul(cookie)));
            } catch (const std::exception &) {
                logDebug(aboutMap(wwid, wwid), "a uevent with DM_COOKIE '" + cookie + "'");
            }
        return;
    }
    if (event.action != "remove")
        return;
    if (state.removing.erase(wwid)) {
        // The daemon's own removal; a deferred one ends at the map's last
        // close, and its record with it.
        auto it = state.maps.find(wwid);
        if (it != state.maps.end() && it->second.deferredRemoval) {
            logNotice(aboutMap(it->second.name, wwid), "removed at its last close");
            forget(wwid);
        }
        return;
    }
    auto it = state.maps.find(wwid);
    if (it == state.maps.end())
        return;
    logNotice(aboutMap(it->second.name, wwid),
              "removed by someone else: forgotten until one of its paths changes");
    state.removedByAdmin.insert(wwid);
    forget(wwid);
}

void UeventSource::forget(const std::string &wwid) {
    State &state = daemon_.mutableState();
    state.maps.erase(wwid);
    for (auto &[name, p] : state.paths)
        if (p.mapWwid == wwid)
            p.mapWwid.clear();
    daemon_.checks().sync();
    daemon_.publishStatus();
}

} // namespace mpathd
