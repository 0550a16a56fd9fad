#pragma once

#include <cerrno>
#include <cstdint>
#include <libdevmapper.h>
#include <mutex>
#include <shared_mutex>

namespace mpath::sys {

/// libdevmapper keeps one process-wide list of device-node operations to
/// check after udev: a task adds to it when it runs, a udev wait empties
/// it, neither under a lock. Our tasks add nothing to it (udev alone makes
/// the nodes: DM_UDEV_DISABLE_LIBRARY_FALLBACK, and no node on create or
/// resume) except a rename, which cannot avoid it. So udev waits share
/// this lock and a rename holds it alone from its run to its wait.
inline std::shared_mutex &nodeListLock() {
    static std::shared_mutex lock;
    return lock;
}

/// Owns one struct dm_task; destroys it, and releases an udev cookie that
/// was set but never waited for.
class DmTask {
public:
    explicit DmTask(int type) : task_(dm_task_create(type)) {}
    ~DmTask() {
        if (cookieSet_)
            (void)wait();
        if (task_)
            dm_task_destroy(task_);
    }
    DmTask(const DmTask &) = delete;
    DmTask &operator=(const DmTask &) = delete;

    explicit operator bool() const { return task_ != nullptr; }
    struct dm_task *get() const {
        return task_;
    }

    /// Asks udev to process the uevents of this task, and to make or
    /// remove its device node; wait() waits for it.
    bool setCookie(uint16_t flags) {
        cookie_ = 0;
        if (!dm_task_set_cookie(task_, &cookie_, flags | DM_UDEV_DISABLE_LIBRARY_FALLBACK))
            return false;
        cookieSet_ = true;
        return true;
    }

    /// Runs the ioctl. \return 0 or a negative error code (the kernel's
    /// errno when libdevmapper knows it, else -EIO)
    int run() {
        if (dm_task_run(task_))
            return 0;
        int e = dm_task_get_errno(task_);
        return e > 0 ? -e : -EIO;
    }

    /// Waits for udev to finish the uevents of a run task with a cookie.
    int wait() {
        if (!cookieSet_)
            return 0;
        std::shared_lock<std::shared_mutex> lock(nodeListLock());
        return waitLocked();
    }

    /// Hands the cookie of a run task to the caller, who releases it
    /// (DeviceMapperLib::releaseCookie()) instead of this task waiting.
    uint32_t takeCookie() {
        if (!cookieSet_)
            return 0;
        cookieSet_ = false;
        return cookie_;
    }

    /// wait(), for a caller that holds nodeListLock() already.
    int waitLocked() {
        if (!cookieSet_)
            return 0;
        cookieSet_ = false;
        return dm_udev_wait(cookie_) ? 0 : -EIO;
    }

private:
    struct dm_task *task_;
    uint32_t cookie_{0};
    bool cookieSet_{false};
};

} // namespace mpath::sys
