#include "prio/ana_prioritizer.h"

#include "mpath/prio/states.h"

namespace mpath::prio {

std::function<Result<int>()> AnaPrioritizer::job(const model::Path &path) const {
    return [path, read = context_.nvmeAnaLog, timeout = context_.commandTimeout]() -> Result<int> {
        if (!path.anaState.empty()) {
            auto state = anaStateFromText(path.anaState);
            if (!state)
                return state.error();
            return fromAnaState(*state);
        }
        if (path.nsid == 0)
            return Error{ENODATA, "not an NVMe namespace"};
        if (!read)
            return Error{ENODATA, "no way to read the ANA log"};
        auto log = read(path.kernelName, timeout);
        if (!log)
            return log.error();
        auto state = parseAnaLog(*log, path.nsid, path.anaGroupId);
        if (!state)
            return state.error();
        return fromAnaState(*state);
    };
}

} // namespace mpath::prio
