#include "prio/sysfs_prioritizer.h"

#include "mpath/prio.h"

#include <cerrno>

namespace mpath {

SysfsPrioritizer::SysfsPrioritizer(Sysfs sysfs, bool exclusivePreferred)
    : sysfs_(std::move(sysfs)), exclusivePreferred_(exclusivePreferred) {}

int SysfsPrioritizer::priority(const Path &path) const {
    return fromSysfs(sysfs_, path, exclusivePreferred_);
}

int SysfsPrioritizer::fromSysfs(const Sysfs &sysfs, const Path &path, bool exclusivePreferred) {
    std::string device;
    if (int r = sysfs.resolve("block/" + path.kernelName + "/device", device); r < 0)
        return r;
    std::string text;
    if (sysfs.readAttribute(device + "/access_state", text) < 0)
        return -ENODATA;
    int state = Prio::aluaStateFromText(text);
    if (state < 0)
        return state;
    uint64_t preferred = 0;
    if (sysfs.readNumber(device + "/preferred_path", preferred) < 0)
        preferred = 0;
    return Prio::fromAluaState(static_cast<uint8_t>(state), preferred != 0, exclusivePreferred);
}

} // namespace mpath
