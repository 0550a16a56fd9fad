#pragma once

#include "mpath/path.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mpath {

class CheckerWorker;

/// What one check found.
struct CheckOutcome {
    CheckerState state{CheckerState::Down};
    std::string message; ///< why, in a few words: "sense 2/04/0b: standby"

    bool operator==(const CheckOutcome &) const = default;
};

/// An asynchronous path checker, one object per path.
///
/// start() begins a check and returns at once; the I/O runs on a worker
/// thread. fd() polls readable when the check has finished or its hard
/// timeout has passed, whichever comes first; result() then tells which.
/// A check whose I/O never returns still yields Timeout on time, and the
/// object can be destroyed while the I/O hangs: the worker owns what it
/// uses. Made for one event loop (sd-event: add fd() as an io source).
///
///     auto c = Checker::create("tur", "/dev/sdb");
///     c->start(std::chrono::seconds(5));
///     // ... when c->fd() is readable:
///     CheckerState s = c->result();
class Checker {
public:
    virtual ~Checker();
    Checker(const Checker &) = delete;
    Checker &operator=(const Checker &) = delete;

    /// Creates checker \p name ("tur", "directio", "readsector0", "none")
    /// for the device node \p devnode; null when the name is unknown.
    static std::unique_ptr<Checker> create(std::string_view name, std::string devnode);

    /// The checker names create() knows.
    static std::vector<std::string> names();

    virtual const char *name() const = 0;
    const std::string &devnode() const { return devnode_; }

    /// Begins a check that must finish within \p timeout.
    /// \return 0, -EBUSY while an earlier check's I/O has not returned
    ///         (it timed out and is still in the kernel), -EINPROGRESS while
    ///         a check runs, or another negative error code
    [[nodiscard]] int start(std::chrono::milliseconds timeout);

    /// Polls readable once the running check has a result. Stays the same
    /// descriptor for the object's lifetime.
    int fd() const;

    /// Pending while a check runs; Up, Down or Ghost when it finished;
    /// Timeout when the deadline passed first; Unchecked before the first
    /// start(). Collecting a result clears fd()'s readiness; asking again
    /// returns the same result until the next start().
    CheckerState result();

    /// The outcome's message, for logs: "" before a result.
    const std::string &message() const { return last_.message; }

    /// Runs one check to its end (start, wait, result) without an event
    /// loop; for tools and tests.
    CheckerState check(std::chrono::milliseconds timeout);

protected:
    explicit Checker(std::string devnode);

    /// The I/O of one check, to run on a worker thread. It must not refer
    /// to *this: a hung check outlives its checker.
    virtual std::function<CheckOutcome()> job(std::chrono::milliseconds timeout) const = 0;

    /// True when job() does no I/O and may run inside start().
    virtual bool inlineJob() const { return false; }

private:
    std::string devnode_;
    std::unique_ptr<CheckerWorker> worker_;
    CheckOutcome last_{CheckerState::Unchecked, ""};
    bool running_{false};
};

/// The checker that does no I/O: every path is up.
class NoneChecker final : public Checker {
public:
    explicit NoneChecker(std::string devnode) : Checker(std::move(devnode)) {}
    const char *name() const override { return "none"; }

protected:
    std::function<CheckOutcome()> job(std::chrono::milliseconds timeout) const override;
    bool inlineJob() const override { return true; }
};

} // namespace mpath
