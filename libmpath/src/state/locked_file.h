#pragma once

#include "mpath/error.h"

#include <chrono>
#include <functional>
#include <string>

namespace mpath::state {

/// A small state file (bindings, wwids) that several processes change:
/// readers see the old or the new contents, never a mix, and writers take
/// turns. The one read-modify-write of libmpath's state files.
///
/// Writers hold an exclusive flock() on "<path>.lock" while they re-read,
/// change and replace the file. The lock is on a file of its own because
/// the replace renames a new file over the old one: a lock on the data
/// file itself would stay with the old inode.
class LockedFile {
public:
    explicit LockedFile(std::string path) : path_(std::move(path)) {}

    const std::string &path() const { return path_; }

    /// The whole file. \return the text, ENOENT when it does not exist, or
    ///         another error
    Result<std::string> read() const;

    /// Under the writer lock: reads the file ("" when it does not exist),
    /// lets \a change edit the text, and replaces the file atomically when
    /// \a change returns true (false leaves it, an error leaves it and is
    /// returned).
    /// \param wait how long to wait for another writer; the lock is tried
    ///        without blocking, then every 5 ms until \a wait has passed
    /// \return ok, EWOULDBLOCK when another writer held the lock
    ///         throughout, or another error
    Result<void> update(const std::function<Result<bool>(std::string &text)> &change,
                        std::chrono::milliseconds wait) const;

private:
    std::string path_;
};

} // namespace mpath::state
