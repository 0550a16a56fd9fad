#include "mpath/sys/path_io.h"

#include "mpath/sys/unique_fd.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <map>
#include <scsi/sg.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace mpath::sys {

namespace {

/// Where a request is; written by the submitting worker, read by the loop.
enum class Stage : int {
    Queued,     ///< its submission has not started
    Submitting, ///< a worker opens the device and hands the I/O over
    InKernel,   ///< the kernel has it
    Failed,     ///< it never reached the kernel
};

// Linux AIO through its system calls: three of them, no library needed.
long ioSetup(unsigned nr, aio_context_t *ctx) {
    return ::syscall(SYS_io_setup, nr, ctx);
}
long ioSubmit(aio_context_t ctx, long n, iocb **cbs) {
    return ::syscall(SYS_io_submit, ctx, n, cbs);
}
long ioGetevents(aio_context_t ctx, long minNr, long nr, io_event *events, timespec *timeout) {
    return ::syscall(SYS_io_getevents, ctx, minNr, nr, events, timeout);
}

} // namespace

/// What the kernel reads and writes lives here, so it stays until the
/// kernel is done with it, whoever still waits for the answer. Shared by
/// the loop and the worker that submits; only stage and fd cross threads.
struct PathIo::Request {
    enum class Kind { Scsi, Read };

    Id id{0};
    Kind kind{Kind::Scsi};
    std::string devnode;
    std::string node; ///< the sg node, or the block device for a read
    std::chrono::milliseconds timeout{0};
    std::chrono::milliseconds commandTimeout{0}; ///< the kernel's, for SCSI
    std::atomic<Stage> stage{Stage::Queued};
    UniqueFd fd; ///< set by the submitting worker before stage InKernel

    // SCSI: the command, and what comes back.
    std::vector<uint8_t> cdb;
    std::vector<uint8_t> data;
    uint8_t sense[64]{};
    sg_io_hdr_t hdr{};

    // Read: an aligned buffer of one logical block.
    void *buffer{nullptr};
    size_t blockSize{0};
    std::chrono::steady_clock::time_point submitted{};
    /// How long opening and handing the I/O over took, on the worker.
    std::atomic<std::chrono::steady_clock::duration> submitTook{};

    ~Request() { std::free(buffer); }
};

/// A request and who waits for it; the loop's thread only.
struct PathIo::Entry {
    std::shared_ptr<Request> request;
    bool waiting{true}; ///< someone waits for the answer
    std::function<void(Result<ScsiCompletion>, std::vector<uint8_t>)> scsiDone;
    std::function<void(Result<std::chrono::nanoseconds>)> readDone;
    EventLoop::SourcePtr deadline;
    EventLoop::SourcePtr readable;

    /// Ends the wait with \a error: the call to make once the table is
    /// in order (it may start another request), or null when nobody waits.
    std::function<void()> failure(const Error &error) {
        deadline.reset();
        if (!waiting)
            return {};
        waiting = false;
        if (scsiDone)
            return [d = std::move(scsiDone), error] { d(error, {}); };
        if (readDone)
            return [d = std::move(readDone), error] { d(error); };
        return {};
    }
};

struct PathIo::Entries {
    std::map<Id, Entry> byId;
    std::vector<EventLoop::SourcePtr> deferred; ///< later()'s one-shot timers
};

/// Linux AIO for reads: one context, its completions on one eventfd.
struct PathIo::Aio {
    aio_context_t ctx{0};
    UniqueFd eventFd;
    EventLoop::SourcePtr source;
};

PathIo::PathIo(EventLoop &loop, Executor &submitter, Options options)
    : loop_(loop), submitter_(submitter), options_(std::move(options)),
      entries_(std::make_unique<Entries>()) {}

PathIo::~PathIo() {
    // A read the kernel still has writes into its buffer when it ends:
    // those requests stay allocated. io_destroy() would wait for them.
    for (auto &[id, e] : entries_->byId)
        if (e.request->kind == Request::Kind::Read && e.request->stage.load() != Stage::Failed)
            new std::shared_ptr<Request>(e.request); // never freed, on purpose
    if (aio_)
        aio_->source.reset();
}

Result<std::string> PathIo::sgNode(const std::string &devnode) const {
    struct stat st {};
    if (::stat(devnode.c_str(), &st) != 0)
        return Error::fromErrno(errno, devnode);
    if (!S_ISBLK(st.st_mode))
        return Error{ENODEV, devnode + " is not a block device"};
    const std::string dir = options_.sysfsRoot + "/dev/block/" + std::to_string(major(st.st_rdev)) +
                            ":" + std::to_string(minor(st.st_rdev)) + "/device/scsi_generic";
    DIR *d = ::opendir(dir.c_str());
    if (!d)
        return Error{ENODEV,
                     devnode + " has no sg node (not SCSI, or the sg driver is not loaded)"};
    std::string name;
    while (dirent *e = ::readdir(d))
        if (std::strncmp(e->d_name, "sg", 2) == 0)
            name = e->d_name;
    ::closedir(d);
    if (name.empty())
        return Error{ENODEV, devnode + " has no sg node"};
    return options_.devDirectory + "/" + name;
}

void PathIo::later(std::function<void()> fn) {
    // A zero timer, so that the answer comes from the loop and not from
    // inside the call; its source is kept until it ran.
    auto *entries = entries_.get();
    auto slot = std::make_shared<EventLoop::Source *>(nullptr);
    auto source = loop_.addTimer(std::chrono::milliseconds(0), [entries, slot, fn] {
        std::function<void()> run = fn; // this lambda goes with its source
        auto &d = entries->deferred;
        d.erase(std::remove_if(d.begin(), d.end(), [&](const auto &s) { return s.get() == *slot; }),
                d.end());
        run();
    });
    *slot = source.get();
    entries_->deferred.push_back(std::move(source));
}

Result<void> PathIo::admit(const std::string &devnode) {
    auto &byId = entries_->byId;
    for (auto it = byId.begin(); it != byId.end();) {
        Request &r = *it->second.request;
        bool gone = false;
        if (!it->second.waiting) {
            const Stage s = r.stage.load(std::memory_order_acquire);
            if (s == Stage::Failed) {
                gone = true;
            } else if (s == Stage::InKernel && r.kind == Request::Kind::Scsi &&
                       !it->second.readable) {
                // Stuck on its way in, then in: nobody polls its node.
                sg_io_hdr_t back{};
                gone = ::read(r.fd.get(), &back, sizeof(back)) >= 0 || errno != EAGAIN;
            }
        }
        it = gone ? byId.erase(it) : std::next(it);
    }
    for (const auto &[id, e] : byId)
        if (e.request->devnode == devnode)
            return Error{EBUSY, devnode + ": the I/O of the previous check is still in the kernel"};
    if (byId.size() >= options_.maxInFlight)
        return Error{EAGAIN, devnode + ": " + std::to_string(byId.size()) +
                                 " path requests in flight already"};
    return ok();
}

PathIo::Id PathIo::add(std::shared_ptr<Request> request) {
    const Id id = nextId_++;
    request->id = id;
    Entry &e = entries_->byId[id];
    e.request = std::move(request);
    return id;
}

void PathIo::armDeadline(Id id) {
    auto it = entries_->byId.find(id);
    if (it == entries_->byId.end() || !it->second.waiting)
        return;
    Entry &e = it->second;
    // The device has had the request since its submission started: the
    // time it waited for a worker was not the device's.
    const auto timeout = e.request->timeout;
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        e.request->submitTook.load(std::memory_order_acquire));
    const auto left = timeout - std::min(took, timeout);
    e.deadline = loop_.addTimer(left, [self = this, id, timeout] {
        auto *entries = self->entries_.get();
        auto it = entries->byId.find(id);
        if (it == entries->byId.end())
            return;
        // The request stays, as an orphan, until the kernel answers it.
        auto answer = it->second.failure(
            Error{ETIMEDOUT, it->second.request->devnode + ": no answer within " +
                                 std::to_string(timeout.count()) + " ms"});
        if (answer)
            answer();
    });
}

void PathIo::submit(Id id, std::function<Result<bool>()> work) {
    const auto &req = entries_->byId.at(id).request;
    const auto timeout = req->timeout;
    // Waiting for a worker has its own bound (EAGAIN: not checked, the
    // device is not to blame); the submission and the kernel's answer
    // share the request's timeout, from when the submission starts.
    submitter_.run<bool>(req->devnode, Executor::Limits{timeout, timeout}, std::move(work),
                         [this, id](Result<bool> r) {
                             auto it = entries_->byId.find(id);
                             if (it == entries_->byId.end())
                                 return; // answered already (a read's event came first)
                             Entry &e = it->second;
                             if (r) {
                                 if (e.request->kind == Request::Kind::Scsi)
                                     e.readable = loop_.addReadable(
                                         e.request->fd.get(), [this, id] { onSgReadable(id); });
                                 armDeadline(id);
                                 return; // the kernel's answer ends it
                             }
                             auto answer = e.failure(r.error().context(e.request->devnode));
                             // Still on its way in (its worker is stuck):
                             // an orphan until it gets there or fails.
                             if (e.request->stage.load() != Stage::Submitting)
                                 entries_->byId.erase(it);
                             if (answer)
                                 answer();
                         });
}

PathIo::Id PathIo::scsi(const std::string &devnode, std::vector<uint8_t> cdb, size_t dataIn,
                        std::chrono::milliseconds timeout,
                        std::function<void(Result<ScsiCompletion>, std::vector<uint8_t>)> done) {
    return scsi(devnode, std::move(cdb), dataIn, timeout, timeout, std::move(done));
}

PathIo::Id PathIo::scsi(const std::string &devnode, std::vector<uint8_t> cdb, size_t dataIn,
                        std::chrono::milliseconds timeout, std::chrono::milliseconds commandTimeout,
                        std::function<void(Result<ScsiCompletion>, std::vector<uint8_t>)> done) {
    auto refuse = [&](Error e) {
        later([done = std::move(done), e = std::move(e)] { done(e, {}); });
        return Id{0};
    };
    if (auto r = admit(devnode); !r)
        return refuse(r.error());
    auto node = sgNode(devnode);
    if (!node)
        return refuse(node.error());

    auto req = std::make_shared<Request>();
    req->kind = Request::Kind::Scsi;
    req->devnode = devnode;
    req->node = *node;
    req->timeout = timeout;
    req->commandTimeout = std::max(timeout, commandTimeout);
    req->cdb = std::move(cdb);
    req->data.resize(dataIn);
    const Id id = add(req);
    entries_->byId.at(id).scsiDone = std::move(done);
    // Opening the sg node and writing the command do not wait for the
    // device, unless its queue is full of hung I/O: on a worker.
    submit(id, [req]() -> Result<bool> {
        req->stage = Stage::Submitting;
        const auto began = std::chrono::steady_clock::now();
        UniqueFd fd(::open(req->node.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC));
        if (!fd) {
            req->stage = Stage::Failed;
            return Error::fromErrno(errno, "open " + req->node);
        }
        sg_io_hdr_t &io = req->hdr;
        io.interface_id = 'S';
        io.cmd_len = static_cast<unsigned char>(req->cdb.size());
        io.cmdp = req->cdb.data();
        io.dxfer_direction = req->data.empty() ? SG_DXFER_NONE : SG_DXFER_FROM_DEV;
        io.dxfer_len = static_cast<unsigned>(req->data.size());
        io.dxferp = req->data.empty() ? nullptr : req->data.data();
        io.mx_sb_len = sizeof(req->sense);
        io.sbp = req->sense;
        io.timeout = static_cast<unsigned>(std::max<int64_t>(1, req->commandTimeout.count()));
        if (::write(fd.get(), &io, sizeof(io)) < 0) {
            const int e = errno;
            req->stage = Stage::Failed;
            return Error::fromErrno(e, req->node + ": write");
        }
        req->fd = std::move(fd);
        req->submitTook.store(std::chrono::steady_clock::now() - began, std::memory_order_release);
        req->stage.store(Stage::InKernel, std::memory_order_release);
        return true;
    });
    return id;
}

void PathIo::onSgReadable(Id id) {
    auto it = entries_->byId.find(id);
    if (it == entries_->byId.end())
        return;
    auto req = it->second.request;
    sg_io_hdr_t back{};
    if (::read(req->fd.get(), &back, sizeof(back)) < 0 && errno == EAGAIN)
        return;
    ScsiCompletion c;
    c.status = back.status;
    c.hostStatus = back.host_status;
    c.driverStatus = back.driver_status;
    c.sense.assign(req->sense, req->sense + std::min<size_t>(back.sb_len_wr, sizeof(req->sense)));
    c.received = req->data.size();
    if (back.resid > 0 && static_cast<size_t>(back.resid) <= req->data.size())
        c.received -= static_cast<size_t>(back.resid);
    std::vector<uint8_t> data = std::move(req->data);
    data.resize(c.received);
    auto done = std::move(it->second.scsiDone);
    const bool waited = it->second.waiting;
    entries_->byId.erase(it); // its sources go, this callback's own too
    if (waited && done)
        done(c, std::move(data));
}

Result<void> PathIo::setupAio() {
    if (aio_)
        return ok();
    auto aio = std::make_unique<Aio>();
    if (ioSetup(options_.maxInFlight, &aio->ctx) < 0)
        return Error::fromErrno(errno, "io_setup");
    aio->eventFd = UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!aio->eventFd)
        return Error::fromErrno(errno, "eventfd");
    aio->source = loop_.addReadable(aio->eventFd.get(), [this] { onAioEvents(); });
    aio_ = std::move(aio);
    return ok();
}

PathIo::Id PathIo::directRead(const std::string &devnode, std::chrono::milliseconds timeout,
                              std::function<void(Result<std::chrono::nanoseconds>)> done) {
    auto refuse = [&](Error e) {
        later([done = std::move(done), e = std::move(e)] { done(e); });
        return Id{0};
    };
    if (auto r = admit(devnode); !r)
        return refuse(r.error());
    if (auto r = setupAio(); !r)
        return refuse(Error{ENOSYS, "no asynchronous I/O: " + r.error().message});

    auto req = std::make_shared<Request>();
    req->kind = Request::Kind::Read;
    req->devnode = devnode;
    req->node = devnode;
    req->timeout = timeout;
    const Id id = add(req);
    entries_->byId.at(id).readDone = std::move(done);
    const aio_context_t ctx = aio_->ctx;
    const int eventFd = aio_->eventFd.get();
    submit(id, [req, ctx, eventFd]() -> Result<bool> {
        req->stage = Stage::Submitting;
        const auto began = std::chrono::steady_clock::now();
        UniqueFd fd(::open(req->node.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC));
        if (!fd) {
            req->stage = Stage::Failed;
            return Error::fromErrno(errno, "open " + req->node);
        }
        // One logical block, aligned as O_DIRECT wants; regular files
        // (tests) have no block size, 4 KiB suits them.
        int blockSize = 0;
        if (::ioctl(fd.get(), BLKSSZGET, &blockSize) < 0 || blockSize <= 0)
            blockSize = 4096;
        if (::posix_memalign(&req->buffer, 4096, static_cast<size_t>(blockSize)) != 0) {
            req->buffer = nullptr;
            req->stage = Stage::Failed;
            return Error{ENOMEM, req->node + ": no memory for a read buffer"};
        }
        req->blockSize = static_cast<size_t>(blockSize);
        iocb cb{};
        cb.aio_data = req->id;
        cb.aio_lio_opcode = IOCB_CMD_PREAD;
        cb.aio_fildes = static_cast<uint32_t>(fd.get());
        cb.aio_buf = reinterpret_cast<uintptr_t>(req->buffer);
        cb.aio_nbytes = req->blockSize;
        cb.aio_offset = 0;
        cb.aio_flags = IOCB_FLAG_RESFD;
        cb.aio_resfd = static_cast<uint32_t>(eventFd);
        iocb *list[1] = {&cb};
        req->submitted = std::chrono::steady_clock::now();
        req->fd = std::move(fd);
        if (ioSubmit(ctx, 1, list) != 1) {
            const int e = errno;
            req->stage = Stage::Failed;
            return Error::fromErrno(e, req->node + ": io_submit");
        }
        req->submitTook.store(std::chrono::steady_clock::now() - began, std::memory_order_release);
        req->stage.store(Stage::InKernel, std::memory_order_release);
        return true;
    });
    return id;
}

void PathIo::onAioEvents() {
    uint64_t count = 0;
    (void)!::read(aio_->eventFd.get(), &count, sizeof(count));
    io_event events[64];
    for (;;) {
        timespec none{0, 0};
        const long n = ioGetevents(aio_->ctx, 0, 64, events, &none);
        if (n <= 0)
            return;
        const auto now = std::chrono::steady_clock::now();
        for (long i = 0; i < n; ++i) {
            auto it = entries_->byId.find(events[i].data);
            if (it == entries_->byId.end())
                continue;
            auto req = it->second.request;
            auto done = std::move(it->second.readDone);
            const bool waited = it->second.waiting;
            entries_->byId.erase(it);
            if (!waited || !done)
                continue;
            const int64_t res = events[i].res;
            if (res < 0)
                done(Error::fromErrno(static_cast<int>(-res), "read " + req->devnode));
            else if (static_cast<size_t>(res) < req->blockSize)
                done(Error{EIO, "read " + req->devnode + ": short read"});
            else
                done(std::chrono::duration_cast<std::chrono::nanoseconds>(now - req->submitted));
        }
        if (n < 64)
            return;
    }
}

size_t PathIo::inFlight() const {
    return entries_->byId.size();
}

size_t PathIo::orphans() const {
    size_t n = 0;
    for (const auto &[id, e] : entries_->byId)
        n += e.waiting ? 0 : 1;
    return n;
}

void PathIo::cancel(Id id) {
    auto it = entries_->byId.find(id);
    if (it == entries_->byId.end())
        return;
    Entry &e = it->second;
    e.waiting = false;
    e.deadline.reset();
    e.scsiDone = nullptr;
    e.readDone = nullptr;
}

} // namespace mpath::sys
