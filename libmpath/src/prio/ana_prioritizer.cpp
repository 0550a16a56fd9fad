#include "prio/ana_prioritizer.h"

#include "mpath/prio.h"
#include "prio/bounded_call.h"

#include <cerrno>
#include <memory>

namespace mpath {

AnaPrioritizer::AnaPrioritizer(PrioritizerContext context) : context_(std::move(context)) {}

int AnaPrioritizer::priority(const Path &path) const {
    const std::string dir = "block/" + path.kernelName;
    std::string text;
    if (context_.sysfs.readAttribute(dir + "/ana_state", text) == 0) {
        int state = Prio::anaStateFromText(text);
        return state < 0 ? state : Prio::fromAnaState(static_cast<uint8_t>(state));
    }
    uint64_t nsid = 0;
    if (int r = context_.sysfs.readNumber(dir + "/nsid", nsid); r < 0)
        return r;
    uint64_t group = 0;
    if (context_.sysfs.readNumber(dir + "/ana_grpid", group) < 0)
        group = 0;
    if (!context_.nvmeAnaLog)
        return -ENODATA;
    auto log = std::make_shared<std::vector<uint8_t>>();
    auto read = context_.nvmeAnaLog;
    auto timeout = context_.timeout;
    std::string name = path.kernelName;
    int r = runBounded([read, name, log, timeout] { return read(name, *log, timeout); }, timeout);
    if (r < 0)
        return r;
    int state = Prio::parseAnaLog(*log, static_cast<uint32_t>(nsid), static_cast<uint32_t>(group));
    return state < 0 ? state : Prio::fromAnaState(static_cast<uint8_t>(state));
}

} // namespace mpath
