#pragma once

#include <string>
#include <string_view>

namespace mpath {

/// A small state file (bindings, wwids) shared by several processes:
/// readers see either the old or the new contents, never a mix, and
/// writers take turns.
///
/// Writers hold an exclusive flock() on "<path>.lock" around
/// read-modify-replace. The lock is on a file of its own because replace()
/// renames a new file over the old one: a lock on the data file itself
/// would stay with the old inode.
class NamesStateFile {
public:
    explicit NamesStateFile(std::string path) : path_(std::move(path)) {}
    ~NamesStateFile() { unlock(); }
    NamesStateFile(const NamesStateFile &) = delete;
    NamesStateFile &operator=(const NamesStateFile &) = delete;

    const std::string &path() const { return path_; }

    /// Wait for and take the writer lock, creating the directory and the
    /// lock file when needed.
    /// \return 0 on success or a negative error code
    [[nodiscard]] int lock();
    /// Release the writer lock; nothing when not held.
    void unlock();

    /// Read the whole file.
    /// \return 0 on success, -ENOENT when it does not exist, or another
    ///         negative error code
    [[nodiscard]] int read(std::string &out) const;

    /// Replace the contents atomically: write a temporary file in the same
    /// directory, fsync it, rename it over the file, fsync the directory.
    /// Keeps the mode of an existing file, else 0600.
    /// \return 0 on success or a negative error code
    [[nodiscard]] int replace(std::string_view contents) const;

private:
    std::string path_;
    int lockFd_{-1};
};

} // namespace mpath
