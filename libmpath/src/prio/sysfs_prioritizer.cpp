#include "prio/sysfs_prioritizer.h"

#include "mpath/prio/states.h"

namespace mpath::prio {

std::function<Result<int>()> SysfsPrioritizer::job(const model::Path &path) const {
    return [path, exclusive = exclusivePreferred_] { return fromPath(path, exclusive); };
}

Result<int> SysfsPrioritizer::fromPath(const model::Path &path, bool exclusivePreferred) {
    if (path.accessState.empty())
        return Error{ENODATA, "no ALUA access_state in sysfs (no device handler attached)"};
    auto state = aluaStateFromText(path.accessState);
    if (!state)
        return state.error();
    return fromAluaState(*state, path.preferred, exclusivePreferred);
}

} // namespace mpath::prio
