#include "checkers/tur_checker.h"

#include "mpath/checkers/scsi_sense.h"

#include <array>

namespace mpath::checkers {

std::function<CheckOutcome()> TurChecker::job(std::chrono::milliseconds timeout) const {
    // The kernel's own command timeout; the check's deadline on the loop
    // is the hard one should the command never come back.
    return [devnode = devnode(), timeout] {
        static constexpr std::array<uint8_t, 6> testUnitReady{0x00, 0, 0, 0, 0, 0};
        return runScsiCheck(devnode, testUnitReady, 0, timeout);
    };
}

void TurChecker::start(CheckIo io, std::chrono::milliseconds timeout,
                       std::function<void(CheckOutcome)> done) const {
    startScsiOrJob(io, *this, {0x00, 0, 0, 0, 0, 0}, 0, timeout, std::move(done));
}

} // namespace mpath::checkers
