#pragma once

#include "mpath/error.h"
#include "mpath/sys/device_io.h"
#include "mpath/sys/event_loop.h"
#include "mpath/sys/executor.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mpath::sys {

/// The I/O of path checks with no thread waiting for it: a SCSI command
/// goes through the device's sg node (the sg driver's write/read
/// interface), a read through Linux AIO with O_DIRECT, and the answer
/// comes back on the loop. A path whose I/O hangs in the kernel costs a
/// request here, never a thread: however many paths hang, the number of
/// threads stays that of the executor that submits.
///
/// - Submitting (open, write, io_submit) can itself block when a device's
///   queue is full of hung I/O: it runs on the executor given, keyed by
///   device node, bounded like any job there.
/// - Each request has a deadline, counted from when its submission starts
///   (time waiting for a worker is not the device's): past it, \a done
///   gets ETIMEDOUT and the request stays, as an orphan, until the kernel
///   answers it. A request that waits for a worker longer than its
///   timeout never starts, and \a done gets EAGAIN. While a
///   device has an orphan, a new request for it ends with EBUSY at once,
///   without I/O: one request per device in the kernel at a time.
/// - \a done is always called on the loop's thread, never from inside the
///   call that started the request.
class PathIo {
public:
    struct Options {
        std::string sysfsRoot{"/sys"};
        std::string devDirectory{"/dev"};
        /// Requests in the kernel at once, orphans included; past that a
        /// request ends with EAGAIN.
        unsigned maxInFlight{4096};
    };

    using Id = uint64_t;

    PathIo(EventLoop &loop, Executor &submitter, Options options);
    PathIo(EventLoop &loop, Executor &submitter) : PathIo(loop, submitter, Options{}) {}
    ~PathIo();
    PathIo(const PathIo &) = delete;
    PathIo &operator=(const PathIo &) = delete;

    /// The sg node of block device \a devnode ("/dev/sg3"), from sysfs;
    /// ENODEV when it has none (not SCSI, or the sg driver is not loaded).
    Result<std::string> sgNode(const std::string &devnode) const;

    /// Sends \a cdb to the SCSI device of \a devnode through its sg node,
    /// reading up to \a dataIn bytes; \a timeout is also the kernel's
    /// command timeout. \a done gets the completion and the data read.
    Id scsi(const std::string &devnode, std::vector<uint8_t> cdb, size_t dataIn,
            std::chrono::milliseconds timeout,
            std::function<void(Result<ScsiCompletion>, std::vector<uint8_t>)> done);
    /// As above, but the kernel gives the command \a commandTimeout (the
    /// request still ends at \a timeout, and stays in flight, an orphan,
    /// until the kernel answers or gives up).
    Id scsi(const std::string &devnode, std::vector<uint8_t> cdb, size_t dataIn,
            std::chrono::milliseconds timeout, std::chrono::milliseconds commandTimeout,
            std::function<void(Result<ScsiCompletion>, std::vector<uint8_t>)> done);

    /// Reads the first logical block of \a devnode with O_DIRECT; \a done
    /// gets how long the kernel took, or ENOSYS when Linux AIO cannot be
    /// had (then a worker must read).
    Id directRead(const std::string &devnode, std::chrono::milliseconds timeout,
                  std::function<void(Result<std::chrono::nanoseconds>)> done);

    /// Forgets request \a id: its \a done is never called; its I/O, if in
    /// the kernel, stays an orphan until it ends.
    void cancel(Id id);

    /// Requests whose I/O is in the kernel (or being submitted).
    size_t inFlight() const;
    /// Of those, the ones nobody waits for any more.
    size_t orphans() const;

    struct Request; ///< what the kernel writes into, shared with its submission job
    struct Entry;   ///< a request and who waits for it, on the loop
    struct Entries;

private:
    /// Whether \a devnode may get a request now; orphans the kernel has
    /// answered (or that never reached it) are dropped first.
    Result<void> admit(const std::string &devnode);
    Id add(std::shared_ptr<Request> request);
    /// Starts \a id's deadline once the kernel has its I/O: what is left
    /// of its timeout after the submission.
    void armDeadline(Id id);
    /// Submits \a id's request on the executor with \a submit.
    void submit(Id id, std::function<Result<bool>()> submit);
    void onSgReadable(Id id);
    void onAioEvents();
    Result<void> setupAio();
    void later(std::function<void()> fn);

    EventLoop &loop_;
    Executor &submitter_;
    Options options_;
    Id nextId_{1};
    std::unique_ptr<Entries> entries_;
    struct Aio;
    std::unique_ptr<Aio> aio_;
};

} // namespace mpath::sys
