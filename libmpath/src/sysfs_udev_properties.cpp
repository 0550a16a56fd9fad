#include "mpath/sysfs_udev_properties.h"

#include "mpath/sysfs.h"

#include <cerrno>

namespace mpath {

SysfsUdevProperties::SysfsUdevProperties(std::string directory)
    : directory_(std::move(directory)) {}

int SysfsUdevProperties::properties(const std::string &kernelName, UdevPropertyMap &out) const {
    if (kernelName.empty() || kernelName.find('/') != std::string::npos)
        return -EINVAL;
    std::string text;
    int r = Sysfs(directory_).readAttribute(kernelName, text);
    if (r < 0)
        return r;
    out = parse(text);
    return 0;
}

UdevPropertyMap SysfsUdevProperties::parse(std::string_view text) {
    UdevPropertyMap out;
    while (!text.empty()) {
        size_t eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
        size_t eq = line.find('=');
        if (eq == std::string_view::npos || eq == 0)
            continue;
        std::string_view value = line.substr(eq + 1);
        if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
            value.back() == value.front())
            value = value.substr(1, value.size() - 2);
        out[std::string(line.substr(0, eq))] = std::string(value);
    }
    return out;
}

} // namespace mpath
