#include "mpath/sysfs_udev_properties.h"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace mpath {

SysfsUdevProperties::SysfsUdevProperties(std::string directory)
    : directory_(std::move(directory)) {}

int SysfsUdevProperties::properties(const std::string &kernelName, UdevPropertyMap &out) const {
    if (kernelName.empty() || kernelName.find('/') != std::string::npos)
        return -EINVAL;
    // Read directly: a Sysfs would canonicalise the directory on every call.
    std::string path = directory_ + "/" + kernelName;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    std::string text;
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int r = -errno;
            ::close(fd);
            return r;
        }
        if (n == 0)
            break;
        text.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
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
