#include "checkers/directio_checker.h"

#include "mpath/sys/device_io.h"

namespace mpath::checkers {

std::function<CheckOutcome()> DirectioChecker::job(std::chrono::milliseconds) const {
    return [devnode = devnode()]() -> CheckOutcome {
        auto r = sys::directRead(devnode);
        if (!r)
            return {model::CheckerState::Down, r.error().message};
        return {model::CheckerState::Up, "read the first block"};
    };
}

} // namespace mpath::checkers
