#pragma once

#include "mpath/error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

/// Discovery: what a block device is (identity, transport, ALUA facts),
/// from sysfs and udev, without opening the device.
namespace mpath::discovery {

/// Read access to a sysfs tree below a configurable root: "/sys" on a
/// real system, a generated or captured tree in tests. Paths given to the
/// methods are relative to the root ("block/sda/dev"); errors name them
/// that way.
///
/// Stateless apart from the root; safe to share between threads.
class Sysfs {
public:
    explicit Sysfs(std::string root = "/sys");

    const std::string &root() const { return root_; }

    /// A text attribute with trailing whitespace (the newline) removed.
    /// \return the text, or an error (ENOENT when absent)
    Result<std::string> readAttribute(std::string_view path) const;

    /// A binary attribute (vpd_pg83) as it is.
    Result<std::vector<uint8_t>> readBinary(std::string_view path) const;

    /// A decimal attribute.
    /// \return the number, or EINVAL when the text is not one
    Result<uint64_t> readNumber(std::string_view path) const;

    /// \a path with every symlink resolved, relative to the root: e.g.
    /// "block/sda/device" gives "devices/pci0000:00/.../0:0:0:0".
    /// \return the path, ENOENT when absent, EXDEV when a link leads out of
    ///         the tree
    Result<std::string> resolve(std::string_view path) const;

    /// Resolves one symlink whose own directory \a path names without
    /// links (what sysfs guarantees below devices/ and for block/<name>):
    /// the link target is joined to that directory lexically, which costs
    /// one readlink() instead of a lookup per component. A \a path that is
    /// not a link resolves to itself.
    Result<std::string> resolveLink(std::string_view path) const;

    /// The entries of a directory (without "." and ".."), sorted.
    Result<std::vector<std::string>> listDirectory(std::string_view path) const;

    /// True when \a path exists (following symlinks).
    bool exists(std::string_view path) const;

    /// root + "/" + path.
    std::string absolute(std::string_view path) const;

private:
    std::string root_;
    std::string canonicalRoot_;
};

} // namespace mpath::discovery
