#pragma once

#include "mpath/checkers/checker.h"
#include "mpath/sys/thread_annotations.h"

#include <map>
#include <memory>
#include <string>

namespace mpath::testing {

/// Path checkers whose answers the test sets per device node: a checker
/// factory for the daemon's tests. A device answers Up until told
/// otherwise; hang() makes its checks never return until release().
class ScriptedCheckers {
public:
    ScriptedCheckers();
    ~ScriptedCheckers();

    /// What checks of \a devnode answer from now on.
    void set(const std::string &devnode, model::CheckerState state, std::string message = {});
    /// Checks of \a devnode do not return until release(), each holding a
    /// worker: a device whose I/O hangs, checked by a job.
    void hang(const std::string &devnode);
    /// Checks of \a devnode get no answer and hold no thread, as a device
    /// whose I/O hangs under PathIo: the first ends as Timeout at its
    /// deadline, later ones as Timeout at once (its I/O is still in the
    /// kernel), until release().
    void hangInKernel(const std::string &devnode);
    /// Lets every hung check return (with the state set for its device).
    void release();
    /// How many checks of \a devnode have run (started).
    unsigned checks(const std::string &devnode) const;

    /// A factory for the daemon: every name makes a scripted checker.
    std::function<Result<std::unique_ptr<checkers::Checker>>(std::string_view, std::string)>
    factory();

    struct Script; ///< shared with the checkers' jobs

private:
    std::shared_ptr<Script> script_;
};

} // namespace mpath::testing
