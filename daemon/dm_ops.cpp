#include "dm_ops.h"

#include "daemon.h"
#include "log.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mpath/dm/table.h>
#include <mpath/policy/transport_timeouts.h>
#include <mpath/sys/file.h>
#include <optional>
#include <unistd.h>

namespace mpathd {

using mpath::Error;
using mpath::Result;

namespace {

/// A sysfs attribute's value without its newline; nullopt, errno set, when
/// it cannot be read.
std::optional<std::string> readAttribute(const std::string &file) {
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    char buf[64];
    ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
    const int err = errno;
    ::close(fd);
    if (n < 0) {
        errno = err;
        return std::nullopt;
    }
    std::string v(buf, static_cast<size_t>(n));
    while (!v.empty() && (v.back() == '\n' || v.back() == ' '))
        v.pop_back();
    return v;
}

} // namespace

template <typename T>
void DmOps::run(const std::string &wwid, std::chrono::milliseconds deadline,
                std::function<Result<T>(mpath::dm::DeviceMapper &)> op,
                std::function<void(Result<T>)> done, unsigned Counters::*counter) {
    // The job owns the adapter it uses: it may outlive the daemon when
    // the kernel does not answer.
    std::shared_ptr<mpath::dm::DeviceMapper> dm = daemon_.env().dm;
    daemon_.dmExecutor().run<T>(
        "map " + wwid, mpath::sys::Executor::Limits{daemon_.env().dmQueueBound, deadline},
        [dm, op = std::move(op)]() -> Result<T> { return op(*dm); },
        [this, wwid, counter, done = std::move(done)](Result<T> r) {
            if (!r && mpath::sys::Executor::neverStarted(r.error())) {
                // Its own line: the call never reached the kernel.
                logWarning(aboutMap(wwid, wwid),
                           "device-mapper call not started: " + r.error().message);
            } else if (counter) {
                ++(daemon_.mutableCounters().*counter); // it ran
                if (r && (counter == &Counters::creates || counter == &Counters::reloads))
                    if (auto m = daemon_.mutableState().maps.find(wwid);
                        m != daemon_.mutableState().maps.end())
                        ++m->second.stats.loads;
            }
            done(std::move(r));
        });
}

void DmOps::list(std::function<void(Result<std::vector<mpath::dm::Device>>)> done) {
    run<std::vector<mpath::dm::Device>>(
        "", daemon_.env().messageDeadline,
        [](mpath::dm::DeviceMapper &dm) { return dm.listMultipath(); }, std::move(done));
}

void DmOps::read(const std::string &wwid, const std::string &name,
                 std::function<void(Result<LiveMap>)> done) {
    run<LiveMap>(
        wwid, daemon_.env().messageDeadline,
        [name](mpath::dm::DeviceMapper &dm) -> Result<LiveMap> {
            LiveMap live;
            auto info = dm.info(name);
            if (!info)
                return info.error();
            live.device = *info;
            auto table = dm.table(name);
            if (!table)
                return table.error();
            if (table->size() != 1)
                return Error{EINVAL, "map " + name + " has " + std::to_string(table->size()) +
                                         " target lines, a multipath map one"};
            live.params = table->front().params;
            auto map = mpath::dm::parseTableLine(std::to_string(table->front().start) + " " +
                                                 std::to_string(table->front().length) + " " +
                                                 table->front().type + " " + live.params);
            if (!map)
                return map.error().context("map " + name + ": table");
            auto status = dm.status(name);
            if (!status)
                return status.error();
            if (status->empty())
                return Error{EINVAL, "map " + name + " has no status"};
            auto st = mpath::dm::parseStatus(status->front().params, *map);
            if (!st)
                return st.error().context("map " + name + ": status");
            live.map = std::move(*map);
            live.status = std::move(*st);
            return live;
        },
        std::move(done));
}

void DmOps::readBack(const std::string &wwid, const std::string &name, const std::string &table,
                     std::function<void(Result<LiveMap>)> done) {
    run<LiveMap>(
        wwid, daemon_.env().messageDeadline,
        [name, table](mpath::dm::DeviceMapper &dm) -> Result<LiveMap> {
            auto map = mpath::dm::parseTableLine(table);
            if (!map)
                return map.error().context("map " + name + ": table");
            auto st = dm.deviceStatus(name);
            if (!st)
                return st.error();
            if (st->second.empty())
                return Error{EINVAL, "map " + name + " has no status"};
            auto status = mpath::dm::parseStatus(st->second.front().params, *map);
            if (!status)
                return status.error().context("map " + name + ": status");
            LiveMap live;
            live.device = std::move(st->first);
            live.params = table;
            live.map = std::move(*map);
            live.status = std::move(*status);
            return live;
        },
        std::move(done));
}

void DmOps::create(const std::string &wwid, const std::string &name, const std::string &uuid,
                   const std::vector<mpath::dm::TargetLine> &targets, mpath::dm::MapUevent uevent,
                   PathLimits limits, std::function<void(Result<mpath::dm::UdevCookie>)> done) {
    run<mpath::dm::UdevCookie>(
        wwid, daemon_.env().dmDeadline,
        [root = daemon_.env().sysfsRoot, name, uuid, targets, uevent,
         limits = std::move(limits)](mpath::dm::DeviceMapper &dm) {
            applyLimits(root, name, limits);
            return dm.createAsync(name, uuid, targets, uevent);
        },
        std::move(done), &Counters::creates);
}

void DmOps::reload(const std::string &wwid, const std::string &name,
                   const std::vector<mpath::dm::TargetLine> &targets, mpath::dm::MapUevent uevent,
                   PathLimits limits, std::function<void(Result<mpath::dm::UdevCookie>)> done) {
    run<mpath::dm::UdevCookie>(
        wwid, daemon_.env().dmDeadline,
        [root = daemon_.env().sysfsRoot, name, targets, uevent,
         limits = std::move(limits)](mpath::dm::DeviceMapper &dm) {
            applyLimits(root, name, limits);
            return dm.reloadAsync(name, targets, uevent);
        },
        std::move(done), &Counters::reloads);
}

void DmOps::applyLimits(const std::string &sysfsRoot, const std::string &name,
                        const PathLimits &limits) {
    if (limits.maxSectorsKb == 0)
        return;
    // multipath-tools' max_sectors_kb: every path gets it before the table
    // is loaded, so the map is made with it. A path that refuses it (above
    // its hardware's max_hw_sectors_kb) keeps its own and says so; the map
    // is made all the same.
    const std::string value = std::to_string(limits.maxSectorsKb);
    for (const auto &path : limits.paths) {
        const std::string file = sysfsRoot + "/block/" + path + "/queue/max_sectors_kb";
        int err = 0;
        if (int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC); fd < 0) {
            err = errno;
        } else {
            if (::write(fd, value.data(), value.size()) != static_cast<ssize_t>(value.size()))
                err = errno ? errno : EIO;
            ::close(fd);
        }
        if (err)
            logWarning(aboutPath(path, name),
                       "cannot set max_sectors_kb " + value + ": " + std::strerror(err));
        else
            logInfo(aboutPath(path, name), "max_sectors_kb set to " + value);
    }
}

namespace {

/// What giving a map's paths their timeouts did, for the loop to log.
struct TimeoutsDone {
    struct Line {
        bool warning{false};
        std::string path; ///< "" for the map
        std::string text;
    };
    std::vector<Line> lines;
    bool retry{false}; ///< a write was refused for now (EBUSY)
};

/// Runs in the lane: owns everything it uses, logs nothing itself.
TimeoutsDone writeTimeouts(const std::string &root, const mpath::policy::TransportTimeouts &t,
                           const std::vector<mpath::model::Path> &paths) {
    TimeoutsDone out;
    for (const auto &note : t.notes)
        out.lines.push_back({false, "", note});
    for (const auto &p : paths) {
        std::optional<unsigned> portDevLoss;
        if (const std::string a = mpath::policy::portDevLossAttribute(p); !a.empty())
            if (auto v = readAttribute(root + "/" + a))
                portDevLoss = mpath::policy::parsePortDevLoss(*v);
        std::vector<std::string> notes;
        for (const auto &w : mpath::policy::timeoutWrites(t, p, portDevLoss, &notes)) {
            const std::string file = root + "/" + w.attribute;
            const std::string attr = w.attribute.substr(w.attribute.rfind('/') + 1);
            if (readAttribute(file) == (w.shown.empty() ? w.value : w.shown))
                continue;
            const int err = mpath::sys::writeAttribute(file, w.value);
            const std::string what =
                attr + " " + (w.shown.empty() ? w.value : w.shown) + " (" + w.keyword + ")";
            if (err == 0) {
                out.lines.push_back({false, p.kernelName, what + " set"});
                continue;
            }
            if (err == EBUSY) {
                out.retry = true;
                out.lines.push_back(
                    {false, p.kernelName, "cannot set " + what + " now: " + std::strerror(err)});
            } else if (err == EINVAL && w.keyword == "eh_deadline") {
                out.lines.push_back(
                    {false, p.kernelName,
                     "cannot set " + what + ": its host's driver does not take it"});
            } else {
                out.lines.push_back(
                    {true, p.kernelName, "cannot set " + what + ": " + std::strerror(err)});
            }
            if (w.prerequisite)
                break; // what follows needs it
        }
        for (auto &n : notes)
            out.lines.push_back({false, "", std::move(n)});
    }
    return out;
}

} // namespace

void DmOps::applyTimeouts(const std::string &wwid, const std::string &name,
                          const mpath::policy::TransportTimeouts &timeouts,
                          std::vector<mpath::model::Path> paths, std::function<void(bool)> done) {
    run<TimeoutsDone>(
        wwid, daemon_.env().messageDeadline,
        [root = daemon_.env().sysfsRoot, timeouts,
         paths = std::move(paths)](mpath::dm::DeviceMapper &) -> Result<TimeoutsDone> {
            return writeTimeouts(root, timeouts, paths);
        },
        [wwid, name, done = std::move(done)](Result<TimeoutsDone> r) {
            if (!r) {
                logWarning(aboutMap(name, wwid), "transport timeouts: " + r.error().message);
                done(true);
                return;
            }
            for (const auto &l : r->lines) {
                const Subject about =
                    l.path.empty() ? aboutMap(name, wwid) : aboutPath(l.path, name);
                if (l.warning)
                    logWarning(about, l.text);
                else
                    logInfo(about, l.text);
            }
            done(r->retry);
        });
}

void DmOps::releaseCookie(const std::string &wwid, mpath::dm::UdevCookie cookie, bool force) {
    run<bool>(
        wwid, daemon_.env().messageDeadline,
        [cookie, force](mpath::dm::DeviceMapper &dm) -> Result<bool> {
            if (auto r = dm.releaseCookie(cookie, force); !r)
                return r.error();
            return true;
        },
        [wwid](Result<bool> r) {
            if (!r)
                logWarning(aboutMap(wwid, wwid), "udev cookie: " + r.error().message);
        });
}

void DmOps::rename(const std::string &wwid, const std::string &name, const std::string &newName,
                   std::function<void(Result<void>)> done) {
    run<bool>(
        wwid, daemon_.env().messageDeadline,
        [name, newName](mpath::dm::DeviceMapper &dm) -> Result<bool> {
            if (auto r = dm.rename(name, newName); !r)
                return r.error();
            return true;
        },
        [done = std::move(done)](Result<bool> r) {
            done(r ? Result<void>() : Result<void>(r.error()));
        },
        &Counters::renames);
}

void DmOps::remove(const std::string &wwid, const std::string &name, bool deferred,
                   std::function<void(Result<bool>)> done) {
    run<bool>(
        wwid, daemon_.env().dmDeadline,
        [name, deferred](mpath::dm::DeviceMapper &dm) -> Result<bool> {
            if (auto r = dm.remove(name, deferred); !r)
                return r.error();
            // A deferred removal of an open map leaves it until its last
            // close.
            return !dm.info(name);
        },
        std::move(done), &Counters::removes);
}

void DmOps::suspend(const std::string &wwid, const std::string &name, bool suspend,
                    std::function<void(Result<void>)> done) {
    run<void>(
        wwid, daemon_.env().dmDeadline,
        [name, suspend](mpath::dm::DeviceMapper &dm) {
            return suspend ? dm.suspend(name) : dm.resume(name);
        },
        std::move(done));
}

void DmOps::message(const std::string &wwid, const std::string &name, const std::string &text,
                    std::function<void(Result<void>)> done) {
    logInfo(aboutMap(name, wwid), "message '" + text + "'");
    if (auto it = daemon_.mutableState().maps.find(wwid); it != daemon_.mutableState().maps.end())
        ++it->second.messagesSent;
    run<bool>(
        wwid, daemon_.env().messageDeadline,
        [name, text](mpath::dm::DeviceMapper &dm) -> Result<bool> {
            if (auto r = dm.message(name, 0, text); !r)
                return r.error();
            return true;
        },
        [this, name, wwid, text, done = std::move(done)](Result<bool> r) {
            if (!r)
                logWarning(aboutMap(name, wwid), r.error().message);
            else if (text.starts_with("switch_group "))
                if (auto m = daemon_.mutableState().maps.find(wwid);
                    m != daemon_.mutableState().maps.end())
                    ++m->second.stats.switchGroups;
            if (done)
                done(r ? Result<void>() : Result<void>(r.error()));
        },
        &Counters::messages);
}

} // namespace mpathd
