#pragma once

#include "mpath/error.h"

#include <optional>

namespace mpath::sys {

/// The process's limit of open files (RLIMIT_NOFILE).
struct OpenFileLimit {
    unsigned long soft{0};
    unsigned long hard{0};
    bool raised{false}; ///< this call changed it

    bool operator==(const OpenFileLimit &) const = default;
};

/// Raises the limit of open files to at least \a target, as multipathd does
/// for max_fds: the soft limit to \a target, the hard one too when it is
/// lower (which takes CAP_SYS_RESOURCE). Never lowers either. \a target
/// nullopt is the system's limit, /proc/sys/fs/nr_open.
/// \return the limit now in force, or an error saying why it could not be
/// raised (the limit is then unchanged)
Result<OpenFileLimit> raiseOpenFileLimit(std::optional<unsigned long> target);

} // namespace mpath::sys
