#include "mpath/fake_device_mapper.h"

#include "mpath/table.h"

#include <cerrno>
#include <sstream>
#include <sys/sysmacros.h>

namespace mpath {

namespace {

bool isMultipathType(const std::string &type) {
    return type == "multipath" || type == "lmpath";
}

} // namespace

int FakeDeviceMapper::injected(Op op) {
    auto it = failures_.find(op);
    if (it == failures_.end())
        return 0;
    int e = it->second;
    failures_.erase(it);
    return e;
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

int FakeDeviceMapper::parseTargets(const std::vector<DmTargetLine> &targets, Device &d) {
    if (targets.empty())
        return -EINVAL;
    d.multipath = isMultipathType(targets[0].type);
    if (!d.multipath)
        return 0;
    // Like the kernel: one multipath target spanning the device.
    if (targets.size() != 1 || targets[0].start != 0 || targets[0].length == 0)
        return -EINVAL;
    Map m;
    if (Table::parse(targets[0].params, m) < 0)
        return -EINVAL;
    m.target = targets[0].type;
    m.sizeSectors = targets[0].length;
    // The kernel starts every path of a new table active, with no
    // failures counted; so does the fake.
    for (auto &g : m.groups)
        for (auto &p : g.paths)
            p.dmState = DmPathState::Active;
    d.map = std::move(m);
    d.status = MapStatus{};
    d.status.nextGroup = d.map.groups.empty() ? 0 : d.map.initialGroup;
    return 0;
}

int FakeDeviceMapper::listMultipath(std::vector<DmDevice> &out) {
    if (int e = injected(Op::List))
        return e;
    out.clear();
    for (const auto &[name, d] : devices_)
        if (d.multipath)
            out.push_back(d.dev);
    return 0;
}

int FakeDeviceMapper::info(const std::string &name, DmDevice &out) {
    if (int e = injected(Op::Info))
        return e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return -ENXIO;
    out = it->second.dev;
    return 0;
}

int FakeDeviceMapper::table(const std::string &name, std::vector<DmTargetLine> &out) {
    if (int e = injected(Op::Table))
        return e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return -ENXIO;
    out = it->second.targets;
    return 0;
}

int FakeDeviceMapper::status(const std::string &name, std::vector<DmTargetLine> &out) {
    if (int e = injected(Op::Status))
        return e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return -ENXIO;
    const Device &d = it->second;
    out.clear();
    for (const auto &t : d.targets)
        out.push_back(DmTargetLine{t.start, t.length, t.type,
                                   d.multipath ? Status::build(d.map, d.status) : ""});
    return 0;
}

int FakeDeviceMapper::create(const std::string &name, const std::string &uuid,
                             const std::vector<DmTargetLine> &targets) {
    calls_.push_back("create " + name);
    if (int e = injected(Op::Create))
        return e;
    if (name.empty())
        return -EINVAL;
    if (devices_.count(name))
        return -EEXIST;
    for (const auto &[n, d] : devices_)
        if (!uuid.empty() && d.dev.uuid == uuid)
            return -EEXIST;
    Device d;
    if (int r = parseTargets(targets, d); r < 0)
        return r;
    d.targets = targets;
    d.dev.name = name;
    d.dev.uuid = uuid;
    d.dev.devt = makedev(253, nextMinor_++);
    d.dev.targetType = targets[0].type;
    devices_.emplace(name, std::move(d));
    return 0;
}

int FakeDeviceMapper::reload(const std::string &name, const std::vector<DmTargetLine> &targets) {
    calls_.push_back("reload " + name);
    if (int e = injected(Op::Reload))
        return e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return -ENXIO;
    Device next = it->second;
    if (int r = parseTargets(targets, next); r < 0)
        return r;
    next.targets = targets;
    next.dev.targetType = targets[0].type;
    ++next.dev.eventNr;
    it->second = std::move(next);
    return 0;
}

int FakeDeviceMapper::applyMessage(Device &d, const std::string &text) {
    std::istringstream in(text);
    std::string verb, arg, extra;
    in >> verb >> arg >> extra;
    if (!d.multipath || !extra.empty())
        return -EINVAL;
    Map &m = d.map;
    if (verb == "queue_if_no_path" || verb == "fail_if_no_path") {
        if (!arg.empty())
            return -EINVAL;
        std::vector<std::string> f;
        for (const auto &w : m.features)
            if (w != "queue_if_no_path")
                f.push_back(w);
        if (verb == "queue_if_no_path")
            f.insert(f.begin(), "queue_if_no_path");
        m.features = std::move(f);
        return 0;
    }
    if (verb == "fail_path" || verb == "reinstate_path") {
        for (auto &g : m.groups)
            for (auto &p : g.paths) {
                if (p.devtString() != arg)
                    continue;
                if (verb == "fail_path" && p.dmState != DmPathState::Failed) {
                    p.dmState = DmPathState::Failed;
                    ++p.failCount;
                } else if (verb == "reinstate_path") {
                    p.dmState = DmPathState::Active;
                }
                return 0;
            }
        return -ENXIO;
    }
    if (verb == "switch_group" || verb == "enable_group" || verb == "disable_group") {
        unsigned n = 0;
        try {
            n = static_cast<unsigned>(std::stoul(arg));
        } catch (...) {
            return -EINVAL;
        }
        if (n < 1 || n > m.groups.size())
            return -EINVAL;
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
        return 0;
    }
    return -EINVAL;
}

int FakeDeviceMapper::message(const std::string &name, uint64_t sector, const std::string &text,
                              std::string *reply) {
    calls_.push_back("message " + name + ' ' + text);
    if (int e = injected(Op::Message))
        return e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return -ENXIO;
    if (sector != 0)
        return -EINVAL;
    if (reply)
        reply->clear();
    return applyMessage(it->second, text);
}

int FakeDeviceMapper::remove(const std::string &name, bool deferred) {
    calls_.push_back("remove " + name + (deferred ? " deferred" : ""));
    if (int e = injected(Op::Remove))
        return e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return -ENXIO;
    if (it->second.dev.openCount > 0) {
        if (!deferred)
            return -EBUSY;
        it->second.deferredRemove = true;
        return 0;
    }
    devices_.erase(it);
    return 0;
}

int FakeDeviceMapper::rename(const std::string &name, const std::string &newName) {
    calls_.push_back("rename " + name + ' ' + newName);
    if (int e = injected(Op::Rename))
        return e;
    auto it = devices_.find(name);
    if (it == devices_.end())
        return -ENXIO;
    if (newName.empty())
        return -EINVAL;
    if (devices_.count(newName))
        return -EEXIST;
    Device d = std::move(it->second);
    devices_.erase(it);
    d.dev.name = newName;
    devices_.emplace(newName, std::move(d));
    return 0;
}

} // namespace mpath
