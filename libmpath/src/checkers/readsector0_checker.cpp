#include "checkers/readsector0_checker.h"

#include "mpath/checkers/scsi_sense.h"

#include <array>

namespace mpath::checkers {

std::function<CheckOutcome()> Readsector0Checker::job(std::chrono::milliseconds timeout) const {
    return [devnode = devnode(), timeout] {
        // READ(10), LBA 0, one block; 4 KiB holds one block of any common
        // logical block size.
        static constexpr std::array<uint8_t, 10> read10{0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
        return runScsiCheck(devnode, read10, 4096, timeout);
    };
}

void Readsector0Checker::start(CheckIo io, std::chrono::milliseconds timeout,
                               std::function<void(CheckOutcome)> done) const {
    startScsiOrJob(io, *this, {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0}, 4096, timeout, std::move(done));
}

} // namespace mpath::checkers
