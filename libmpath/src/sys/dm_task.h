#pragma once

#include <cerrno>
#include <cstdint>
#include <libdevmapper.h>

namespace mpath::sys {

/// Owns one struct dm_task; destroys it, and releases an udev cookie that
/// was set but never waited for.
class DmTask {
public:
    explicit DmTask(int type) : task_(dm_task_create(type)) {}
    ~DmTask() {
        if (cookieSet_)
            (void)dm_udev_wait(cookie_);
        if (task_)
            dm_task_destroy(task_);
    }
    DmTask(const DmTask &) = delete;
    DmTask &operator=(const DmTask &) = delete;

    explicit operator bool() const { return task_ != nullptr; }
    struct dm_task *get() const {
        return task_;
    }

    /// Asks udev to process the uevents of this task; wait() waits for it.
    bool setCookie(uint16_t flags) {
        cookie_ = 0;
        if (!dm_task_set_cookie(task_, &cookie_, flags))
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
        cookieSet_ = false;
        return dm_udev_wait(cookie_) ? 0 : -EIO;
    }

private:
    struct dm_task *task_;
    uint32_t cookie_{0};
    bool cookieSet_{false};
};

} // namespace mpath::sys
