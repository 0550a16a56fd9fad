#pragma once

#include "mpath/error.h"

#include <map>
#include <string>

namespace mpath::discovery {

/// udev properties of one device: "ID_SERIAL" -> "3600140512...".
using UdevPropertyMap = std::map<std::string, std::string>;

/// Where discovery gets the udev properties of a block device from: the
/// udev database on a real system, files next to a fixture tree in tests.
class UdevProperties {
public:
    virtual ~UdevProperties() = default;

    /// The properties of block device \a kernelName ("sda").
    /// \return the properties, ENOENT when udev does not know the device,
    ///         or another error
    virtual Result<UdevPropertyMap> properties(const std::string &kernelName) const = 0;
};

} // namespace mpath::discovery
