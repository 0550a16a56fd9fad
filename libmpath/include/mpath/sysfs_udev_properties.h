#pragma once

#include "mpath/udev_properties.h"

#include <string>
#include <string_view>

namespace mpath {

/// udev properties stored as files, one per block device, each holding
/// the output of `udevadm info --query=property` (KEY=VALUE lines). This
/// is how captured and generated sysfs fixture trees carry them:
/// `<dir>/<kernel name>`, conventionally `<sysfs root>/../udev/`.
class SysfsUdevProperties : public UdevProperties {
public:
    explicit SysfsUdevProperties(std::string directory);

    [[nodiscard]] int properties(const std::string &kernelName,
                                 UdevPropertyMap &out) const override;

    /// Parses KEY=VALUE lines; lines without '=' are ignored. Values may be
    /// quoted (udevadm --export style); the quotes are removed.
    static UdevPropertyMap parse(std::string_view text);

private:
    std::string directory_;
};

} // namespace mpath
