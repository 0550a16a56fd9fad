#pragma once

#include "mpath/error.h"
#include "mpath/model/path.h"
#include "mpath/sys/event_loop.h"
#include "mpath/sys/executor.h"
#include "mpath/sys/path_io.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// Path checkers: is a path up, down, or in standby?
namespace mpath::checkers {

/// What one check found.
struct CheckOutcome {
    model::CheckerState state{model::CheckerState::Down};
    std::string message; ///< why, in a few words: "sense 2/04/0b: target port in standby state"

    bool operator==(const CheckOutcome &) const = default;
};

/// What a check's I/O runs on.
struct CheckIo {
    sys::EventLoop &loop;
    /// Runs job(), and submits PathIo's requests: the path I/O lane.
    sys::Executor &executor;
    /// The I/O no thread waits for; null: every check is a job().
    sys::PathIo *pathIo{nullptr};
    /// The timeout the kernel gives a check's SCSI command (checker_timeout).
    /// A check ends at its own, shorter deadline; its command stays in the
    /// kernel until this one, as multipathd's does, so a target that does
    /// not answer is not sent into SCSI error recovery at every check.
    /// Zero: the check's deadline.
    std::chrono::milliseconds commandTimeout{0};
};

/// A path checker ("path_checker" in multipath.conf) for one device node.
/// It does no I/O itself: start() hands the I/O of one check to PathIo,
/// where a device that hangs costs a request and no thread, or, where that
/// cannot be (no sg node, no AIO), runs job() on the executor, where it
/// costs a stuck worker. Either way a check never blocks the loop.
class Checker {
public:
    virtual ~Checker() = default;
    Checker(const Checker &) = delete;
    Checker &operator=(const Checker &) = delete;

    /// Checker \a name ("tur", "directio", "readsector0", "none") for the
    /// device node \a devnode.
    /// \return the checker, or EINVAL naming the known checkers
    static Result<std::unique_ptr<Checker>> create(std::string_view name, std::string devnode);

    /// The names create() knows.
    static std::vector<std::string> names();

    virtual std::string_view name() const = 0;
    const std::string &devnode() const { return devnode_; }

    /// The I/O of one check, to run on a worker. It owns what it uses: a
    /// hung check outlives its checker.
    /// \param timeout the command timeout SCSI checkers give the kernel
    virtual std::function<CheckOutcome()> job(std::chrono::milliseconds timeout) const = 0;

    /// Starts one check; \a done gets its outcome on the loop's thread
    /// within about \a timeout, never from inside this call. This one
    /// runs job() on \a io's executor; checkers with I/O PathIo can do
    /// asynchronously override it.
    virtual void start(CheckIo io, std::chrono::milliseconds timeout,
                       std::function<void(CheckOutcome)> done) const;

protected:
    explicit Checker(std::string devnode) : devnode_(std::move(devnode)) {}

private:
    std::string devnode_;
};

/// Runs one check of \a checker (Checker::start()), then \a done on the
/// loop's thread. A check without an answer within \a timeout ends as
/// Timeout; one that could not start because the device's previous check
/// is still in the kernel ends as Timeout too; one that could not start
/// because every worker is busy with other hung devices ends as Unchecked
/// (no news about this path). One check per device at a time.
void startCheck(CheckIo io, const Checker &checker, std::chrono::milliseconds timeout,
                std::function<void(CheckOutcome)> done);

/// Runs \a checker's job() on \a executor (Checker::start()'s fallback).
void startCheckJob(sys::Executor &executor, const Checker &checker,
                   std::chrono::milliseconds timeout, std::function<void(CheckOutcome)> done);

/// The outcome of a check whose I/O ended in \a error (ETIMEDOUT, EBUSY:
/// Timeout; EAGAIN: Unchecked; else Down with the error's message).
CheckOutcome outcomeOfError(const Error &error);

/// What the kernel's own state of a path's device says before any check,
/// as multipath-tools reads it first: an NVMe controller that is not
/// "live" ("connecting", "resetting", "dead") is down, "new" and
/// "deleting" wait; a SCSI device "offline" or "transport-offline" is
/// down. Anything else leaves it to the checker (a SCSI device "blocked"
/// is checked: a check that hangs fails it at its deadline, sooner than
/// the transport would).
/// \param state the device's sysfs "state", "" when it has none
/// \return Down or Unchecked (wait) with the reason; none: run the checker
std::optional<CheckOutcome> outcomeOfDeviceState(model::Transport transport,
                                                 std::string_view state);

/// Runs one check to its end without an event loop of the caller's: for
/// tools and tests. Returns within about \a timeout even when the device
/// hangs.
CheckOutcome checkNow(const Checker &checker, std::chrono::milliseconds timeout);

} // namespace mpath::checkers
