#include "mpath/sys/device_mapper_lib.h"

#include "mpath/sys/unique_fd.h"
#include "sys/dm_task.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <fcntl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace mpath::sys {

namespace {

std::function<void(int, const std::string &)> &logHandler() {
    static std::function<void(int, const std::string &)> handler;
    return handler;
}

void forwardLog(int level, const char *, int, int, const char *f, ...) {
    if (level > 3 || !logHandler()) // _LOG_ERR is 3; warnings and chatter are dropped
        return;
    char buf[512];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    logHandler()(level, buf);
}

Error failure(const char *op, const std::string &name, int code) {
    return Error::fromErrno(code, std::string(op) + " " + name);
}

Result<void> addTargets(DmTask &t, const char *op, const std::string &name,
                        const std::vector<dm::TargetLine> &targets) {
    if (targets.empty())
        return Error{EINVAL, std::string(op) + " " + name + ": no target lines"};
    for (const auto &tg : targets)
        if (!dm_task_add_target(t.get(), tg.start, tg.length, tg.type.c_str(), tg.params.c_str()))
            return failure(op, name, ENOMEM);
    return ok();
}

// A task of \a type for device \a name.
Result<void> prepare(DmTask &t, const char *op, const std::string &name) {
    if (!t)
        return failure(op, name, ENOMEM);
    if (name.empty() || !dm_task_set_name(t.get(), name.c_str()))
        return Error{EINVAL, std::string(op) + ": '" + name + "' is not a device name"};
    return ok();
}

// Runs \a t; a failure is the kernel's errno for \a op on \a name.
Result<void> run(DmTask &t, const char *op, const std::string &name) {
    if (int r = t.run(); r < 0)
        return failure(op, name, -r);
    return ok();
}

// Runs \a t, then waits for udev to finish the uevents of its cookie.
Result<void> runAndWait(DmTask &t, const char *op, const std::string &name) {
    int r = t.run();
    int w = t.wait();
    if (r < 0)
        return failure(op, name, -r);
    if (w < 0)
        return Error{EIO, std::string(op) + " " + name + ": waiting for udev failed"};
    return ok();
}

/// The target lines of a run TABLE or STATUS task.
std::vector<dm::TargetLine> targetsOf(DmTask &t) {
    std::vector<dm::TargetLine> targets;
    void *next = nullptr;
    do {
        uint64_t start = 0, length = 0;
        char *ttype = nullptr, *params = nullptr;
        next = dm_get_next_target(t.get(), next, &start, &length, &ttype, &params);
        if (!ttype)
            break;
        // The multipath target ends its lines with a blank: the text is
        // what it says, not how it spaces it.
        std::string text = params ? params : "";
        while (!text.empty() && (text.back() == ' ' || text.back() == '\n'))
            text.pop_back();
        targets.push_back(dm::TargetLine{start, length, ttype, std::move(text)});
    } while (next);
    return targets;
}

/// Runs a TABLE or STATUS task for \a name; \a info gets its dm_info.
Result<std::vector<dm::TargetLine>> readTargets(int type, const char *op, const std::string &name,
                                                struct dm_info *info = nullptr) {
    DmTask t(type);
    if (auto r = prepare(t, op, name); !r)
        return r.error();
    if (type == DM_DEVICE_STATUS || type == DM_DEVICE_TABLE)
        (void)dm_task_no_flush(t.get()); // don't wait for queued I/O to read a status
    if (auto r = run(t, op, name); !r)
        return r.error();
    struct dm_info i {};
    if (!dm_task_get_info(t.get(), &i))
        return failure(op, name, EIO);
    if (!i.exists)
        return failure(op, name, ENXIO);
    if (info)
        *info = i;
    return targetsOf(t);
}

/// A resume that swaps in the inactive table (if any) with noflush and
/// without freezing a file system, its udev cookie handed back.
Result<dm::UdevCookie> resumeAsync(const std::string &name, uint16_t udevFlags) {
    DmTask t(DM_DEVICE_RESUME);
    if (auto r = prepare(t, "resume", name); !r)
        return r.error();
    (void)dm_task_no_flush(t.get());
    (void)dm_task_skip_lockfs(t.get());
    (void)dm_task_set_add_node(t.get(), DM_ADD_NODE_ON_CREATE); // see create()
    if (!t.setCookie(udevFlags))
        return failure("resume", name, EIO);
    if (auto r = run(t, "resume", name); !r)
        return r.error(); // the task releases its cookie
    return dm::UdevCookie{t.takeCookie()};
}

/// \a udevFlags go with a resume's uevent (DM_SUBSYSTEM_UDEV_FLAG0: a
/// reload that kept the disk what it was).
Result<void> suspendResume(const std::string &name, bool suspend, uint16_t udevFlags = 0) {
    const char *op = suspend ? "suspend" : "resume";
    DmTask t(suspend ? DM_DEVICE_SUSPEND : DM_DEVICE_RESUME);
    if (auto r = prepare(t, op, name); !r)
        return r;
    // noflush: I/O queued by queue_if_no_path stays queued across the
    // swap instead of failing; skip_lockfs: a multipath map is a block
    // device, freezing a filesystem on top is the filesystem's business.
    (void)dm_task_no_flush(t.get());
    (void)dm_task_skip_lockfs(t.get());
    if (!suspend) {
        (void)dm_task_set_add_node(t.get(), DM_ADD_NODE_ON_CREATE); // see create()
        if (!t.setCookie(udevFlags))
            return failure(op, name, EIO);
    }
    return runAndWait(t, op, name);
}

/// Loads \a targets as \a name's inactive table: the step of a create
/// after its empty device is made, and of a reload.
Result<void> loadTable(const char *op, const std::string &name,
                       const std::vector<dm::TargetLine> &targets) {
    DmTask t(DM_DEVICE_RELOAD);
    if (auto r = prepare(t, op, name); !r)
        return r;
    if (auto r = addTargets(t, op, name, targets); !r)
        return r;
    return run(t, op, name);
}

/// A create whose table was refused leaves nothing behind: its empty
/// device goes again.
void removeEmpty(const std::string &name) {
    DmTask rm(DM_DEVICE_REMOVE);
    if (prepare(rm, "remove", name) && rm.setCookie(0))
        (void)runAndWait(rm, "remove", name);
}

/// A reload whose swap failed leaves the live table alone and the
/// inactive one cleared.
void clearInactive(const std::string &name) {
    DmTask c(DM_DEVICE_CLEAR);
    if (prepare(c, "clear", name))
        (void)c.run();
}

} // namespace

DeviceMapperLib::DeviceMapperLib() {
    // libdevmapper's one-time set-up (the control node, whether udev runs)
    // is not guarded: done here, before any worker calls in.
    (void)dm_udev_get_sync_support();
    DmTask t(DM_DEVICE_VERSION);
    if (t)
        (void)t.run();
}

DeviceMapperLib::~DeviceMapperLib() {
    dm_lib_release();
}

void DeviceMapperLib::setLogHandler(std::function<void(int, const std::string &)> handler) {
    logHandler() = std::move(handler);
    dm_log_with_errno_init(&forwardLog);
}

bool DeviceMapperLib::available() {
    UniqueFd fd(::open("/dev/mapper/control", O_RDWR | O_CLOEXEC));
    return fd.valid();
}

Result<dm::Device> DeviceMapperLib::info(const std::string &name) {
    DmTask t(DM_DEVICE_INFO);
    if (auto r = prepare(t, "info", name); !r)
        return r.error();
    if (auto r = run(t, "info", name); !r)
        return r.error();
    struct dm_info i {};
    if (!dm_task_get_info(t.get(), &i))
        return failure("info", name, EIO);
    if (!i.exists)
        return failure("info", name, ENXIO);
    dm::Device d;
    d.name = name;
    const char *uuid = dm_task_get_uuid(t.get());
    d.uuid = uuid ? uuid : "";
    d.devt = makedev(i.major, i.minor);
    d.suspended = i.suspended;
    d.openCount = i.open_count > 0 ? static_cast<unsigned>(i.open_count) : 0;
    d.eventNr = i.event_nr;
    if (i.live_table) {
        auto targets = readTargets(DM_DEVICE_TABLE, "table", name);
        if (targets && !targets->empty())
            d.targetType = targets->front().type;
    }
    return d;
}

Result<std::vector<dm::Device>> DeviceMapperLib::listMultipath() {
    DmTask t(DM_DEVICE_LIST);
    if (!t)
        return failure("list", "devices", ENOMEM);
    if (auto r = run(t, "list", "devices"); !r)
        return r.error();
    struct dm_names *names = dm_task_get_names(t.get());
    if (!names)
        return failure("list", "devices", EIO);
    std::vector<dm::Device> found;
    if (names->dev) {
        for (unsigned next = 0;;) {
            names = reinterpret_cast<struct dm_names *>(reinterpret_cast<char *>(names) + next);
            // A device may go away between the list and the info: skip it.
            auto d = info(names->name);
            if (d && (d->targetType == "multipath" || d->targetType == "lmpath"))
                found.push_back(std::move(*d));
            next = names->next;
            if (!next)
                break;
        }
    }
    return found;
}

Result<std::vector<dm::TargetLine>> DeviceMapperLib::table(const std::string &name) {
    return readTargets(DM_DEVICE_TABLE, "table", name);
}

Result<std::vector<dm::TargetLine>> DeviceMapperLib::status(const std::string &name) {
    return readTargets(DM_DEVICE_STATUS, "status", name);
}

Result<void> DeviceMapperLib::create(const std::string &name, const std::string &uuid,
                                     const std::vector<dm::TargetLine> &targets) {
    // The kernel answers a taken name or uuid with EBUSY and a table it
    // rejects with EINVAL, but libdevmapper's create-with-table loses those
    // on its way back. Ask first, then create, load and resume in three
    // steps, as libdevmapper itself does, keeping each step's errno.
    if (auto d = info(name); d)
        return Error{EEXIST, "create " + name + ": a device of that name exists"};
    if (!uuid.empty()) {
        DmTask byUuid(DM_DEVICE_INFO);
        struct dm_info i {};
        if (byUuid && dm_task_set_uuid(byUuid.get(), uuid.c_str()) && byUuid.run() == 0 &&
            dm_task_get_info(byUuid.get(), &i) && i.exists)
            return Error{EEXIST, "create " + name + ": a device with uuid " + uuid + " exists"};
    }
    if (targets.empty())
        return Error{EINVAL, "create " + name + ": no target lines"};
    {
        DmTask t(DM_DEVICE_CREATE);
        if (auto r = prepare(t, "create", name); !r)
            return r;
        if (!uuid.empty() && !dm_task_set_uuid(t.get(), uuid.c_str()))
            return Error{EINVAL, "create " + name + ": '" + uuid + "' is not a uuid"};
        // No node from libdevmapper, neither now nor at the resume: udev
        // makes it (see nodeListLock()).
        (void)dm_task_set_add_node(t.get(), DM_ADD_NODE_ON_RESUME);
        if (auto r = run(t, "create", name); !r)
            return r;
    }
    if (auto loaded = loadTable("create", name, targets); !loaded) {
        removeEmpty(name);
        return loaded;
    }
    return suspendResume(name, false);
}

Result<void> DeviceMapperLib::reload(const std::string &name,
                                     const std::vector<dm::TargetLine> &targets) {
    // A reload that changes the size (a resized LUN) is a changed disk:
    // its resume goes without the reload flag, so udev probes it again and
    // what sits on it learns the new size. So is one whose live table
    // cannot be read.
    auto sectors = [](const std::vector<dm::TargetLine> &lines) {
        uint64_t n = 0;
        for (const auto &l : lines)
            n += l.length;
        return n;
    };
    auto live = readTargets(DM_DEVICE_TABLE, "reload", name);
    const bool sameSize = live && sectors(*live) == sectors(targets);
    if (auto r = loadTable("reload", name, targets); !r)
        return r;
    if (auto r = suspendResume(name, true); !r) {
        clearInactive(name);
        return r;
    }
    // udev's rules (56-dm-mpath.rules, kpartx's) then neither rescan the
    // map nor re-create its partitions: multipath-tools'
    // MPATH_UDEV_RELOAD_FLAG.
    return suspendResume(name, false, sameSize ? DM_SUBSYSTEM_UDEV_FLAG0 : 0);
}

Result<dm::UdevCookie> DeviceMapperLib::createAsync(const std::string &name,
                                                    const std::string &uuid,
                                                    const std::vector<dm::TargetLine> &targets,
                                                    dm::MapUevent uevent) {
    if (targets.empty())
        return Error{EINVAL, "create " + name + ": no target lines"};
    {
        DmTask t(DM_DEVICE_CREATE);
        if (auto r = prepare(t, "create", name); !r)
            return r.error();
        if (!uuid.empty() && !dm_task_set_uuid(t.get(), uuid.c_str()))
            return Error{EINVAL, "create " + name + ": '" + uuid + "' is not a uuid"};
        (void)dm_task_set_add_node(t.get(), DM_ADD_NODE_ON_RESUME);
        if (int r = t.run(); r < 0) {
            // The kernel says EBUSY for a taken name or uuid: which one,
            // now that it matters.
            if (r == -EBUSY && info(name))
                return Error{EEXIST, "create " + name + ": a device of that name exists"};
            if (r == -EBUSY && !uuid.empty())
                return Error{EEXIST, "create " + name + ": a device with uuid " + uuid + " exists"};
            return failure("create", name, -r);
        }
    }
    if (auto loaded = loadTable("create", name, targets); !loaded) {
        removeEmpty(name);
        return loaded.error();
    }
    return resumeAsync(name, (uevent.skipKpartx ? DM_SUBSYSTEM_UDEV_FLAG1 : 0) |
                                 (uevent.notReady ? DM_SUBSYSTEM_UDEV_FLAG2 : 0));
}

Result<dm::UdevCookie> DeviceMapperLib::reloadAsync(const std::string &name,
                                                    const std::vector<dm::TargetLine> &targets,
                                                    dm::MapUevent uevent) {
    if (auto r = loadTable("reload", name, targets); !r)
        return r.error();
    // The resume suspends (noflush), swaps and resumes; a reload that kept
    // the size keeps the disk what it was: multipath-tools'
    // MPATH_UDEV_RELOAD_FLAG, so udev's rules neither probe the map nor
    // re-create its partitions.
    // skip_kpartx: multipath-tools' MPATH_UDEV_NO_KPARTX_FLAG, which
    // kpartx's rules read.
    auto cookie = resumeAsync(name, (uevent.resized ? 0 : DM_SUBSYSTEM_UDEV_FLAG0) |
                                        (uevent.skipKpartx ? DM_SUBSYSTEM_UDEV_FLAG1 : 0) |
                                        (uevent.notReady ? DM_SUBSYSTEM_UDEV_FLAG2 : 0));
    if (!cookie)
        clearInactive(name);
    return cookie;
}

Result<void> DeviceMapperLib::releaseCookie(dm::UdevCookie cookie, bool force) {
    if (!cookie)
        return ok();
    // udev's rules that never ran would leave the wait below for good.
    if (force)
        (void)dm_udev_complete(cookie.value);
    std::shared_lock<std::shared_mutex> lock(nodeListLock());
    if (!dm_udev_wait(cookie.value))
        return Error{EIO, "udev cookie " + std::to_string(cookie.value) + ": waiting failed"};
    return ok();
}

Result<std::pair<dm::Device, std::vector<dm::TargetLine>>>
DeviceMapperLib::deviceStatus(const std::string &name) {
    struct dm_info i {};
    auto lines = readTargets(DM_DEVICE_STATUS, "status", name, &i);
    if (!lines)
        return lines.error();
    dm::Device d;
    d.name = name;
    d.devt = makedev(i.major, i.minor);
    d.suspended = i.suspended;
    d.openCount = i.open_count > 0 ? static_cast<unsigned>(i.open_count) : 0;
    d.eventNr = i.event_nr;
    if (!lines->empty())
        d.targetType = lines->front().type;
    return std::make_pair(std::move(d), std::move(*lines));
}

Result<std::string> DeviceMapperLib::message(const std::string &name, uint64_t sector,
                                             const std::string &text) {
    DmTask t(DM_DEVICE_TARGET_MSG);
    if (auto r = prepare(t, "message", name); !r)
        return r.error();
    if (!dm_task_set_sector(t.get(), sector) || !dm_task_set_message(t.get(), text.c_str()))
        return Error{EINVAL, "message " + name + ": cannot send '" + text + "'"};
    if (int r = t.run(); r < 0)
        return Error::fromErrno(-r, "message " + name + " '" + text + "'");
    const char *resp = dm_task_get_message_response(t.get());
    return std::string(resp ? resp : "");
}

Result<void> DeviceMapperLib::remove(const std::string &name, bool deferred) {
    DmTask t(DM_DEVICE_REMOVE);
    if (auto r = prepare(t, "remove", name); !r)
        return r;
    if (deferred && !dm_task_deferred_remove(t.get()))
        return failure("remove", name, EINVAL);
    if (!t.setCookie(0))
        return failure("remove", name, EIO);
    return runAndWait(t, "remove", name);
}

Result<void> DeviceMapperLib::rename(const std::string &name, const std::string &newName) {
    // The kernel answers a taken name with EBUSY, as it does a busy device.
    if (!newName.empty() && info(newName))
        return Error{EEXIST, "rename " + name + ": a device named " + newName + " exists"};
    DmTask t(DM_DEVICE_RENAME);
    if (auto r = prepare(t, "rename", name); !r)
        return r;
    if (newName.empty() || !dm_task_set_newname(t.get(), newName.c_str()))
        return Error{EINVAL, "rename " + name + ": '" + newName + "' is not a device name"};
    if (!t.setCookie(0))
        return failure("rename", name, EIO);
    // A rename always queues a node operation: nobody else's udev wait may
    // take it before its own udev work is done (see nodeListLock()).
    std::unique_lock<std::shared_mutex> alone(nodeListLock());
    int r = t.run();
    int w = t.waitLocked();
    if (r < 0)
        return failure("rename", name, -r);
    if (w < 0)
        return Error{EIO, "rename " + name + ": waiting for udev failed"};
    return ok();
}

Result<void> DeviceMapperLib::suspend(const std::string &name) {
    return suspendResume(name, true);
}

Result<void> DeviceMapperLib::resume(const std::string &name) {
    return suspendResume(name, false);
}

} // namespace mpath::sys
