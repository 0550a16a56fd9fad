#include "mpath/testing/fake_device_mapper.h"

#include "mpath/dm/status.h"
#include "mpath/dm/table.h"

#include <algorithm>
#include <cerrno>
#include <sstream>
#include <sys/sysmacros.h>

namespace mpath::testing {

using model::DmPathState;
using model::GroupState;
using model::Map;
using model::PathGroup;

namespace {

Error failure(const char *op, const std::string &name, int code) {
    return Error::fromErrno(code, std::string(op) + " " + name);
}

bool isMultipathType(const std::string &type) {
    return type == "multipath" || type == "lmpath";
}

} // namespace

std::optional<Error> FakeDeviceMapper::injected(Op op, const char *what, const std::string &name) {
    auto it = failures_.find(op);
    if (it == failures_.end())
        return std::nullopt;
    int e = it->second;
    failures_.erase(it);
    return failure(what, name, e);
}

void FakeDeviceMapper::failNext(Op op, int error) {
    failures_[op] = error;
}

void FakeDeviceMapper::setOpenCount(const std::string &name, unsigned count) {
    auto it = devices_.find(name);
    if (it == devices_.end())
        return;
    it->second.dev.openCount = count;
    if (count == 0 && it->second.deferredRemove)
        devices_.erase(it);
}

const Map *FakeDeviceMapper::map(const std::string &name) const {
    auto it = devices_.find(name);
    if (it == devices_.end() || !it->second.multipath)
        return nullptr;
    return &it->second.map;
}

Result<void> FakeDeviceMapper::parseTargets(const char *op, const std::string &name,
                                            const std::vector<dm::TargetLine> &targets, Device &d) {
    if (targets.empty())
        return Error{EINVAL, std::string(op) + " " + name + ": no target lines"};
    d.multipath = isMultipathType(targets[0].type);
    if (!d.multipath)
        return ok();
    // Like the kernel: one multipath target spanning the device.
    if (targets.size() != 1 || targets[0].start != 0 || targets[0].length == 0)
        return failure(op, name, EINVAL);
    auto parsed = dm::parseTable(targets[0].params);
    if (!parsed)
        return failure(op, name, EINVAL);
    Map m = std::move(*parsed);
    m.target = targets[0].type;
    m.sizeSectors = targets[0].length;
    // The kernel starts every path of a new table active, with no
    // failures counted; so does the fake.
    for (auto &g : m.groups)
        for (auto &p : g.paths)
            p.dmState = DmPathState::Active;
    d.map = std::move(m);
    d.status = dm::MapStatus{};
    d.status.nextGroup = d.map.groups.empty() ? 0 : d.map.initialGroup;
    return ok();
}

Result<std::vector<dm::Device>> FakeDeviceMapper::listMultipath() {
    if (auto e = injected(Op::List, "list", "devices"))
        return *e;
    std::vector<dm::Device> out;
    for (const auto &[name, d] : devices_)
        if (d.multipath)
            out.push_back(d.dev);
    return out;
}

Result<dm::Device> FakeDeviceMapper::info(const std::string &name) {
    if (auto e = injected(Op::Info, "info", name))
        return *e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return failure("info", name, ENXIO);
    return it->second.dev;
}

Result<std::vector<dm::TargetLine>> FakeDeviceMapper::table(const std::string &name) {
    if (auto e = injected(Op::Table, "table", name))
        return *e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return failure("table", name, ENXIO);
    return it->second.targets;
}

Result<std::vector<dm::TargetLine>> FakeDeviceMapper::status(const std::string &name) {
    if (auto e = injected(Op::Status, "status", name))
        return *e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return failure("status", name, ENXIO);
    const Device &d = it->second;
    std::vector<dm::TargetLine> out;
    for (const auto &t : d.targets)
        out.push_back(dm::TargetLine{t.start, t.length, t.type,
                                     d.multipath ? dm::buildStatus(d.map, d.status) : ""});
    return out;
}

Result<void> FakeDeviceMapper::create(const std::string &name, const std::string &uuid,
                                      const std::vector<dm::TargetLine> &targets) {
    calls_.push_back("create " + name);
    if (auto e = injected(Op::Create, "create", name))
        return *e;
    if (name.empty())
        return Error{EINVAL, "create: '' is not a device name"};
    if (devices_.count(name))
        return Error{EEXIST, "create " + name + ": a device of that name exists"};
    for (const auto &[n, d] : devices_)
        if (!uuid.empty() && d.dev.uuid == uuid)
            return Error{EEXIST, "create " + name + ": a device with uuid " + uuid + " exists"};
    Device d;
    if (auto r = parseTargets("create", name, targets, d); !r)
        return r;
    d.targets = targets;
    d.dev.name = name;
    d.dev.uuid = uuid;
    d.dev.devt = makedev(253, nextMinor_++);
    d.dev.targetType = targets[0].type;
    devices_.emplace(name, std::move(d));
    return ok();
}

Result<void> FakeDeviceMapper::reload(const std::string &name,
                                      const std::vector<dm::TargetLine> &targets) {
    calls_.push_back("reload " + name);
    if (auto e = injected(Op::Reload, "reload", name))
        return *e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return failure("reload", name, ENXIO);
    // multipath and lmpath are immutable targets: the kernel loads no
    // table of another type into a map that has one of theirs.
    if (it->second.multipath && !targets.empty() && targets[0].type != it->second.dev.targetType)
        return Error::fromErrno(EINVAL, "reload " + name +
                                            ": can't replace immutable target type " +
                                            it->second.dev.targetType);
    Device next = it->second;
    if (auto r = parseTargets("reload", name, targets, next); !r)
        return r;
    next.targets = targets;
    next.dev.targetType = targets[0].type;
    it->second = std::move(next);
    return ok();
}

Result<void> FakeDeviceMapper::applyMessage(Device &d, const std::string &text) {
    const Error invalid = Error::fromErrno(EINVAL, "message " + d.dev.name + " '" + text + "'");
    std::istringstream in(text);
    std::string verb, arg, extra;
    in >> verb >> arg >> extra;
    if (!d.multipath || !extra.empty())
        return invalid;
    Map &m = d.map;
    if (verb == "queue_if_no_path" || verb == "fail_if_no_path") {
        if (!arg.empty())
            return invalid;
        std::vector<std::string> f;
        for (const auto &w : m.features)
            if (w != "queue_if_no_path")
                f.push_back(w);
        if (verb == "queue_if_no_path")
            f.insert(f.begin(), "queue_if_no_path");
        m.features = std::move(f);
        // Like the kernel, the table shows the queueing the map does now.
        if (auto params = dm::buildTable(m); params && !d.targets.empty())
            d.targets[0].params = *params;
        return ok();
    }
    if (verb == "fail_path" || verb == "reinstate_path") {
        for (auto &g : m.groups)
            for (auto &p : g.paths) {
                if (p.devtString() != arg)
                    continue;
                if (verb == "fail_path" && p.dmState != DmPathState::Failed) {
                    p.dmState = DmPathState::Failed;
                    ++p.failCount;
                    ++d.dev.eventNr; // the target raises a table event
                } else if (verb == "reinstate_path" && p.dmState != DmPathState::Active) {
                    p.dmState = DmPathState::Active;
                    ++d.dev.eventNr;
                }
                return ok();
            }
        return Error::fromErrno(ENXIO, "message " + d.dev.name + " '" + text + "'");
    }
    if (verb == "switch_group" || verb == "enable_group" || verb == "disable_group") {
        unsigned n = 0;
        try {
            n = static_cast<unsigned>(std::stoul(arg));
        } catch (...) {
            return invalid;
        }
        if (n < 1 || n > m.groups.size())
            return invalid;
        PathGroup &g = m.groups[n - 1];
        if (verb == "switch_group") {
            for (auto &other : m.groups)
                if (other.state == GroupState::Active)
                    other.state = GroupState::Enabled;
            g.state = GroupState::Enabled;
            d.status.nextGroup = n;
        } else if (verb == "enable_group") {
            g.state = GroupState::Enabled;
        } else {
            g.state = GroupState::Disabled;
        }
        return ok();
    }
    return invalid;
}

Result<std::string> FakeDeviceMapper::message(const std::string &name, uint64_t sector,
                                              const std::string &text) {
    calls_.push_back("message " + name + ' ' + text);
    if (auto e = injected(Op::Message, "message", name))
        return *e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return failure("message", name, ENXIO);
    if (sector != 0)
        return Error::fromErrno(EINVAL, "message " + name + " '" + text + "'");
    if (it->second.dev.suspended) // the kernel's targets take none while suspended
        return Error::fromErrno(EBUSY, "message " + name + " '" + text + "'");
    if (text == "@cancel_deferred_remove") { // device-mapper core's, any target:
        it->second.deferredRemove = false;   // no error when none is pending
        return std::string();
    }
    if (auto r = applyMessage(it->second, text); !r)
        return r.error();
    return std::string();
}

Result<void> FakeDeviceMapper::remove(const std::string &name, bool deferred) {
    calls_.push_back("remove " + name + (deferred ? " deferred" : ""));
    if (auto e = injected(Op::Remove, "remove", name))
        return *e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return failure("remove", name, ENXIO);
    if (it->second.dev.openCount > 0) {
        if (!deferred)
            return failure("remove", name, EBUSY);
        it->second.deferredRemove = true;
        return ok();
    }
    devices_.erase(it);
    return ok();
}

Result<void> FakeDeviceMapper::rename(const std::string &name, const std::string &newName) {
    calls_.push_back("rename " + name + ' ' + newName);
    if (auto e = injected(Op::Rename, "rename", name))
        return *e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return failure("rename", name, ENXIO);
    if (newName.empty())
        return Error{EINVAL, "rename " + name + ": '' is not a device name"};
    if (devices_.count(newName))
        return Error{EEXIST, "rename " + name + ": a device named " + newName + " exists"};
    Device d = std::move(it->second);
    devices_.erase(it);
    d.dev.name = newName;
    devices_.emplace(newName, std::move(d));
    return ok();
}

Result<void> FakeDeviceMapper::suspend(const std::string &name) {
    calls_.push_back("suspend " + name);
    if (auto e = injected(Op::Suspend, "suspend", name))
        return *e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return failure("suspend", name, ENXIO);
    it->second.dev.suspended = true;
    return ok();
}

Result<void> FakeDeviceMapper::resume(const std::string &name) {
    calls_.push_back("resume " + name);
    if (auto e = injected(Op::Resume, "resume", name))
        return *e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return failure("resume", name, ENXIO);
    it->second.dev.suspended = false;
    return ok();
}

Result<dm::UdevCookie> FakeDeviceMapper::cookie(const std::string &name, uint16_t flags) {
    // libdevmapper's cookies: 0x0D4D in the high half, a base in the low
    // one; the uevent carries the flags in the high half instead.
    const uint32_t base = nextCookie_++ & 0xffff;
    const uint32_t value = 0x0D4D0000u | base;
    cookiesOut_.push_back(value);
    auto it = devices_.find(name);
    udevEvents_.push_back(
        {name, it == devices_.end() ? "" : it->second.dev.uuid, uint32_t(flags) << 16 | base});
    return dm::UdevCookie{value};
}

Result<dm::UdevCookie> FakeDeviceMapper::createAsync(const std::string &name,
                                                     const std::string &uuid,
                                                     const std::vector<dm::TargetLine> &targets,
                                                     dm::MapUevent uevent) {
    if (auto r = create(name, uuid, targets); !r)
        return r.error();
    return cookie(name, (uevent.skipKpartx ? 0x0200 : 0) | (uevent.notReady ? 0x0400 : 0));
}

Result<dm::UdevCookie> FakeDeviceMapper::reloadAsync(const std::string &name,
                                                     const std::vector<dm::TargetLine> &targets,
                                                     dm::MapUevent uevent) {
    if (auto r = reload(name, targets); !r)
        return r.error();
    return cookie(name, (uevent.resized ? 0 : 0x0100) | (uevent.skipKpartx ? 0x0200 : 0) |
                            (uevent.notReady ? 0x0400 : 0));
}

Result<void> FakeDeviceMapper::releaseCookie(dm::UdevCookie c, bool force) {
    calls_.push_back("release " + std::to_string(c.value) + (force ? " forced" : ""));
    auto it = std::find(cookiesOut_.begin(), cookiesOut_.end(), c.value);
    if (it == cookiesOut_.end())
        return Error{EINVAL, "udev cookie " + std::to_string(c.value) + " is not out"};
    cookiesOut_.erase(it);
    return ok();
}

} // namespace mpath::testing
