#pragma once

#include "mpath/discovery/udev_properties.h"

#include <string>
#include <string_view>

namespace mpath::discovery {

/// udev properties stored as files, one per block device, each holding the
/// output of `udevadm info --query=property` (KEY=VALUE lines). This is how
/// captured and generated sysfs fixture trees carry them: `<dir>/<kernel
/// name>`, conventionally `<sysfs root>/../udev/`.
class UdevPropertyFiles final : public UdevProperties {
public:
    explicit UdevPropertyFiles(std::string directory) : directory_(std::move(directory)) {}

    Result<UdevPropertyMap> properties(const std::string &kernelName) const override;

    /// Parses KEY=VALUE lines; lines without '=' are ignored. Values may be
    /// quoted (udevadm --export style); the quotes are removed.
    static UdevPropertyMap parse(std::string_view text);

private:
    std::string directory_;
};

} // namespace mpath::discovery
