#include "mpath/readsector0_checker.h"

#include "checker_sg.h"

namespace mpath {

std::function<CheckOutcome()> Readsector0Checker::job(std::chrono::milliseconds timeout) const {
    unsigned ms = timeout.count() > 0 ? static_cast<unsigned>(timeout.count()) : 1;
    return [devnode = devnode(), ms] {
        // READ(10), LBA 0, one block; 4 KiB holds one block of any
        // common logical block size.
        static const uint8_t read10[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
        return runScsiCheck(devnode, read10, sizeof(read10), 4096, ms);
    };
}

} // namespace mpath
