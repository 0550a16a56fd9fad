#include "mpath/tur_checker.h"

#include "checker_sg.h"

namespace mpath {

std::function<CheckOutcome()> TurChecker::job(std::chrono::milliseconds timeout) const {
    // The kernel's own command timeout; the checker's deadline is the
    // hard one should the command never come back.
    unsigned ms = timeout.count() > 0 ? static_cast<unsigned>(timeout.count()) : 1;
    return [devnode = devnode(), ms] {
        static const uint8_t testUnitReady[6] = {0x00, 0, 0, 0, 0, 0};
        return runScsiCheck(devnode, testUnitReady, sizeof(testUnitReady), 0, ms);
    };
}

} // namespace mpath
