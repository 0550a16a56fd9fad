#include "state/locked_file.h"

#include "mpath/sys/file.h"
#include "mpath/sys/unique_fd.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <thread>

namespace mpath::state {

Result<std::string> LockedFile::read() const {
    return sys::readFile(path_);
}

Result<void> LockedFile::update(const std::function<Result<bool>(std::string &text)> &change,
                                std::chrono::milliseconds wait) const {
    if (auto r = sys::makeDirectories(sys::directoryOf(path_)); !r)
        return r;
    const std::string lockPath = path_ + ".lock";
    sys::UniqueFd lock(::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!lock)
        return Error::fromErrno(errno, lockPath);
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (::flock(lock.get(), LOCK_EX | LOCK_NB) < 0) {
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK)
            return Error::fromErrno(errno, "lock " + lockPath);
        if (std::chrono::steady_clock::now() >= deadline)
            return Error{EWOULDBLOCK, path_ + ": another process is changing it"};
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // The lock goes with the descriptor when this returns.
    auto text = read();
    if (!text && text.code() != ENOENT)
        return text.error();
    std::string contents = text.valueOr("");
    auto write = change(contents);
    if (!write)
        return write.error();
    if (!*write)
        return ok();
    return sys::replaceFile(path_, contents);
}

} // namespace mpath::state
