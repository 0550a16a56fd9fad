#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mpath {

/// Read access to a sysfs tree below a configurable root: "/sys" on a
/// real system, a generated or captured tree in tests. Paths given to the
/// methods are relative to the root ("block/sda/dev").
///
/// Stateless apart from the root; safe to share between threads.
class Sysfs {
public:
    explicit Sysfs(std::string root = "/sys");

    const std::string &root() const { return root_; }

    /// Reads a text attribute with trailing whitespace (the newline) removed.
    /// \return 0 on success or a negative error code (-ENOENT when absent)
    [[nodiscard]] int readAttribute(std::string_view path, std::string &value) const;

    /// Reads a binary attribute (vpd_pg83) as it is.
    /// \return 0 on success or a negative error code
    [[nodiscard]] int readBinary(std::string_view path, std::vector<uint8_t> &value) const;

    /// Reads a decimal attribute.
    /// \return 0 on success, -EINVAL when the text is not a number
    [[nodiscard]] int readNumber(std::string_view path, uint64_t &value) const;

    /// Resolves every symlink on \a path and returns the result relative to
    /// the root, e.g. "block/sda/device" gives
    /// "devices/pci0000:00/.../host0/target0:0:0/0:0:0:0".
    /// \return 0 on success, -ENOENT when absent, -EXDEV when the link
    ///         leads out of the tree
    [[nodiscard]] int resolve(std::string_view path, std::string &resolved) const;

    /// Resolves one symlink whose own directory \a path names without
    /// links (what sysfs guarantees below devices/ and for block/<name>):
    /// the link target is joined to that directory lexically, which costs
    /// one readlink() instead of a lookup per component. A \a path that is
    /// not a link resolves to itself.
    /// \return 0 on success, -ENOENT when absent, -EXDEV when the link
    ///         leads out of the tree
    [[nodiscard]] int resolveLink(std::string_view path, std::string &resolved) const;

    /// Lists the entries of a directory (without "." and ".."), sorted.
    /// \return 0 on success or a negative error code
    [[nodiscard]] int listDirectory(std::string_view path, std::vector<std::string> &names) const;

    /// True when \a path exists (following symlinks).
    bool exists(std::string_view path) const;

    /// root + "/" + path.
    std::string absolute(std::string_view path) const;

private:
    std::string root_;
    std::string canonicalRoot_;
};

} // namespace mpath
