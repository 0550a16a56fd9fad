#include "prio/ana_prioritizer.h"

#include "mpath/prio/states.h"

#include <algorithm>

namespace mpath::prio {

namespace {

/// \a timeout, or the controller's keep-alive timeout when shorter.
std::chrono::milliseconds commandTimeout(const model::Path &path,
                                         std::chrono::milliseconds timeout) {
    if (path.keepAliveTimeout == 0)
        return timeout;
    return std::min<std::chrono::milliseconds>(timeout,
                                               std::chrono::seconds(path.keepAliveTimeout));
}

} // namespace

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
        // Within the controller's keep-alive timeout: a command it does not
        // answer by then resets it anyway (as a missed keep-alive would),
        // and a longer one can hold that reset, and the failing of the
        // path's I/O, back (Linux 6.1's nvme-tcp waits for it).
        auto log = read(path.kernelName, commandTimeout(path, timeout));
        if (!log)
            return log.error();
        auto state = parseAnaLog(*log, path.nsid, path.anaGroupId);
        if (!state)
            return state.error();
        return fromAnaState(*state);
    };
}

} // namespace mpath::prio
