#pragma once

#include <map>
#include <string>

namespace mpath {

/// udev properties of one device: "ID_SERIAL" -> "3600140512...".
using UdevPropertyMap = std::map<std::string, std::string>;

/// Where discovery gets the udev properties of a block device from: the
/// udev database on a real system, files next to a fixture tree in tests.
class UdevProperties {
public:
    virtual ~UdevProperties() = default;

    /// The properties of block device \a kernelName ("sda").
    /// \return 0 on success, -ENOENT when udev does not know the device,
    ///         or another negative error code
    [[nodiscard]] virtual int properties(const std::string &kernelName,
                                         UdevPropertyMap &out) const = 0;
};

} // namespace mpath
