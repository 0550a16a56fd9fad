#pragma once

#include "mpath/error.h"
#include "mpath/model/path.h"
#include "mpath/sys/executor.h"

#include <chrono>
#include <functional>
#include <memory>
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

/// A path checker ("path_checker" in multipath.conf) for one device node.
/// It does no I/O itself: job() hands out the I/O of one check, and
/// startCheck() runs that on the Executor, so a check never blocks the
/// loop and a device that hangs costs a stuck worker, not the caller.
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

protected:
    explicit Checker(std::string devnode) : devnode_(std::move(devnode)) {}

private:
    std::string devnode_;
};

/// Runs one check of \a checker on \a executor, then \a done on the loop's
/// thread. A check without an answer within \a timeout ends as Timeout;
/// one that could not start because the device's previous check is still
/// in the kernel ends as Timeout too; one that could not start because
/// every worker is busy with other hung devices ends as Unchecked (no news
/// about this path). The device node is the job's key: one check per
/// device at a time.
sys::Executor::JobId startCheck(sys::Executor &executor, const Checker &checker,
                                std::chrono::milliseconds timeout,
                                std::function<void(CheckOutcome)> done);

/// Runs one check to its end without an event loop of the caller's: for
/// tools and tests. Returns within about \a timeout even when the device
/// hangs.
CheckOutcome checkNow(const Checker &checker, std::chrono::milliseconds timeout);

} // namespace mpath::checkers
