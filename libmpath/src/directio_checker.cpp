#include "mpath/directio_checker.h"

#include "checker_sg.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/fs.h>
#include <memory>
#include <sys/ioctl.h>
#include <unistd.h>

namespace mpath {

std::function<CheckOutcome()> DirectioChecker::job(std::chrono::milliseconds) const {
    return [devnode = devnode()]() -> CheckOutcome {
        UniqueFd fd(::open(devnode.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC));
        if (fd.get() < 0)
            return {CheckerState::Down, std::string("open: ") + strerror(errno)};
        // One logical block, aligned as O_DIRECT wants; regular files
        // (tests) have no block size, 4 KiB suits them.
        int blockSize = 0;
        if (ioctl(fd.get(), BLKSSZGET, &blockSize) < 0 || blockSize <= 0)
            blockSize = 4096;
        void *raw = nullptr;
        if (posix_memalign(&raw, 4096, static_cast<size_t>(blockSize)) != 0)
            return {CheckerState::Down, "out of memory"};
        std::unique_ptr<void, decltype(&free)> buf(raw, &free);
        ssize_t n = ::pread(fd.get(), buf.get(), static_cast<size_t>(blockSize), 0);
        if (n < 0)
            return {CheckerState::Down, std::string("read: ") + strerror(errno)};
        return {CheckerState::Up, "read " + std::to_string(n) + " bytes"};
    };
}

} // namespace mpath
