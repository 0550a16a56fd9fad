#include "mpath/device_mapper_lib.h"

#include "dm_task.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <fcntl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace mpath {

namespace {

thread_local std::string lastErrorText;

// libdevmapper prints to stderr by default; the library keeps quiet and
// remembers the last error so the caller can say what went wrong.
void quietLog(int level, const char *, int, int, const char *f, ...) {
    if (level > 3) // _LOG_ERR is 3; warnings and chatter are dropped
        return;
    char buf[512];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    lastErrorText = buf;
}

int addTargets(DmTask &t, const std::vector<DmTargetLine> &targets) {
    if (targets.empty())
        return -EINVAL;
    for (const auto &tg : targets)
        if (!dm_task_add_target(t.get(), tg.start, tg.length, tg.type.c_str(), tg.params.c_str()))
            return -ENOMEM;
    return 0;
}

int setName(DmTask &t, const std::string &name) {
    if (!t)
        return -ENOMEM;
    if (name.empty() || !dm_task_set_name(t.get(), name.c_str()))
        return -EINVAL;
    return 0;
}

} // namespace

DeviceMapperLib::DeviceMapperLib() {
    dm_log_with_errno_init(quietLog);
}

DeviceMapperLib::~DeviceMapperLib() {
    dm_lib_release();
}

std::string DeviceMapperLib::lastError() {
    return lastErrorText;
}

bool DeviceMapperLib::available() {
    int fd = ::open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return false;
    ::close(fd);
    return true;
}

int DeviceMapperLib::info(const std::string &name, DmDevice &out) {
    lastErrorText.clear();
    DmTask t(DM_DEVICE_INFO);
    if (int r = setName(t, name); r < 0)
        return r;
    if (int r = t.run(); r < 0)
        return r;
    struct dm_info i {};
    if (!dm_task_get_info(t.get(), &i))
        return -EIO;
    if (!i.exists)
        return -ENXIO;
    DmDevice d;
    d.name = name;
    const char *uuid = dm_task_get_uuid(t.get());
    d.uuid = uuid ? uuid : "";
    d.devt = makedev(i.major, i.minor);
    d.suspended = i.suspended;
    d.openCount = i.open_count > 0 ? static_cast<unsigned>(i.open_count) : 0;
    d.eventNr = i.event_nr;
    std::vector<DmTargetLine> targets;
    if (i.live_table && readTargets(DM_DEVICE_TABLE, name, targets) == 0 && !targets.empty())
        d.targetType = targets[0].type;
    out = std::move(d);
    return 0;
}

int DeviceMapperLib::listMultipath(std::vector<DmDevice> &out) {
    lastErrorText.clear();
    DmTask t(DM_DEVICE_LIST);
    if (!t)
        return -ENOMEM;
    if (int r = t.run(); r < 0)
        return r;
    struct dm_names *names = dm_task_get_names(t.get());
    if (!names)
        return -EIO;
    std::vector<DmDevice> found;
    if (names->dev) {
        for (unsigned next = 0;;) {
            names = reinterpret_cast<struct dm_names *>(reinterpret_cast<char *>(names) + next);
            DmDevice d;
            // A device may go away between the list and the info: skip it.
            if (info(names->name, d) == 0 &&
                (d.targetType == "multipath" || d.targetType == "lmpath"))
                found.push_back(std::move(d));
            next = names->next;
            if (!next)
                break;
        }
    }
    out = std::move(found);
    return 0;
}

int DeviceMapperLib::readTargets(int type, const std::string &name,
                                 std::vector<DmTargetLine> &out) {
    DmTask t(type);
    if (int r = setName(t, name); r < 0)
        return r;
    if (type == DM_DEVICE_STATUS || type == DM_DEVICE_TABLE)
        (void)dm_task_no_flush(t.get()); // don't wait for queued I/O to read a status
    if (int r = t.run(); r < 0)
        return r;
    struct dm_info i {};
    if (!dm_task_get_info(t.get(), &i))
        return -EIO;
    if (!i.exists)
        return -ENXIO;
    std::vector<DmTargetLine> targets;
    void *next = nullptr;
    do {
        uint64_t start = 0, length = 0;
        char *ttype = nullptr, *params = nullptr;
        next = dm_get_next_target(t.get(), next, &start, &length, &ttype, &params);
        if (!ttype)
            break;
        targets.push_back(DmTargetLine{start, length, ttype, params ? params : ""});
    } while (next);
    out = std::move(targets);
    return 0;
}

int DeviceMapperLib::table(const std::string &name, std::vector<DmTargetLine> &out) {
    lastErrorText.clear();
    return readTargets(DM_DEVICE_TABLE, name, out);
}

int DeviceMapperLib::status(const std::string &name, std::vector<DmTargetLine> &out) {
    lastErrorText.clear();
    return readTargets(DM_DEVICE_STATUS, name, out);
}

int DeviceMapperLib::create(const std::string &name, const std::string &uuid,
                            const std::vector<DmTargetLine> &targets) {
    lastErrorText.clear();
    DmTask t(DM_DEVICE_CREATE);
    if (int r = setName(t, name); r < 0)
        return r;
    if (!uuid.empty() && !dm_task_set_uuid(t.get(), uuid.c_str()))
        return -EINVAL;
    if (int r = addTargets(t, targets); r < 0)
        return r;
    (void)dm_task_set_add_node(t.get(), DM_ADD_NODE_ON_CREATE);
    if (!t.setCookie(0))
        return -EIO;
    int r = t.run();
    int w = t.wait();
    return r < 0 ? r : w;
}

int DeviceMapperLib::suspendResume(const std::string &name, bool suspend) {
    DmTask t(suspend ? DM_DEVICE_SUSPEND : DM_DEVICE_RESUME);
    if (int r = setName(t, name); r < 0)
        return r;
    // noflush: I/O queued by queue_if_no_path stays queued across the
    // swap instead of failing; skip_lockfs: a multipath map is a block
    // device, freezing a filesystem on top is the filesystem's business.
    (void)dm_task_no_flush(t.get());
    (void)dm_task_skip_lockfs(t.get());
    if (!suspend && !t.setCookie(0))
        return -EIO;
    int r = t.run();
    int w = t.wait();
    return r < 0 ? r : w;
}

int DeviceMapperLib::reload(const std::string &name, const std::vector<DmTargetLine> &targets) {
    lastErrorText.clear();
    {
        DmTask t(DM_DEVICE_RELOAD);
        if (int r = setName(t, name); r < 0)
            return r;
        if (int r = addTargets(t, targets); r < 0)
            return r;
        if (int r = t.run(); r < 0)
            return r;
    }
    if (int r = suspendResume(name, true); r < 0) {
        // Leave the live table alone and the inactive one cleared.
        DmTask c(DM_DEVICE_CLEAR);
        if (setName(c, name) == 0)
            (void)c.run();
        return r;
    }
    return suspendResume(name, false);
}

int DeviceMapperLib::message(const std::string &name, uint64_t sector, const std::string &text,
                             std::string *reply) {
    lastErrorText.clear();
    DmTask t(DM_DEVICE_TARGET_MSG);
    if (int r = setName(t, name); r < 0)
        return r;
    if (!dm_task_set_sector(t.get(), sector) || !dm_task_set_message(t.get(), text.c_str()))
        return -EINVAL;
    if (int r = t.run(); r < 0)
        return r;
    if (reply) {
        const char *resp = dm_task_get_message_response(t.get());
        *reply = resp ? resp : "";
    }
    return 0;
}

int DeviceMapperLib::remove(const std::string &name, bool deferred) {
    lastErrorText.clear();
    DmTask t(DM_DEVICE_REMOVE);
    if (int r = setName(t, name); r < 0)
        return r;
    if (deferred && !dm_task_deferred_remove(t.get()))
        return -EINVAL;
    if (!t.setCookie(0))
        return -EIO;
    int r = t.run();
    int w = t.wait();
    return r < 0 ? r : w;
}

int DeviceMapperLib::rename(const std::string &name, const std::string &newName) {
    lastErrorText.clear();
    DmTask t(DM_DEVICE_RENAME);
    if (int r = setName(t, name); r < 0)
        return r;
    if (newName.empty() || !dm_task_set_newname(t.get(), newName.c_str()))
        return -EINVAL;
    if (!t.setCookie(0))
        return -EIO;
    int r = t.run();
    int w = t.wait();
    return r < 0 ? r : w;
}

} // namespace mpath
