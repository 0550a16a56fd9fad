#pragma once

#include <cerrno>
#include <chrono>
#include <functional>
#include <future>
#include <thread>

namespace mpath {

/// Runs \a work on its own thread and waits at most \a timeout for it.
/// When the time is up the caller gets -ETIMEDOUT and the thread is left
/// to finish on its own: \a work must own everything it touches (capture
/// by value), since the caller's frame is gone by then.
/// \return what \a work returned, or -ETIMEDOUT
inline int runBounded(std::function<int()> work, std::chrono::milliseconds timeout) {
    std::packaged_task<int()> task(std::move(work));
    std::future<int> result = task.get_future();
    try {
        std::thread(std::move(task)).detach();
    } catch (const std::system_error &e) {
        return -e.code().value();
    }
    if (result.wait_for(timeout) != std::future_status::ready)
        return -ETIMEDOUT;
    return result.get();
}

} // namespace mpath
