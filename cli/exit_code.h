#pragma once

namespace mpathctl {

/// Exit codes of mpathctl, as `mpathctl --help` and mpathctl(8) list them.
enum Exit {
    ExitOk = 0,
    /// The operation failed (the daemon refused it, a file is unreadable).
    ExitFailure = 1,
    /// The command line is wrong.
    ExitUsage = 2,
    /// Neither the system bus nor mpathd's private socket answers.
    ExitNotRunning = 3,
};

} // namespace mpathctl
