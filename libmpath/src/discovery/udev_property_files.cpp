#include "mpath/discovery/udev_property_files.h"

#include "mpath/sys/file.h"

namespace mpath::discovery {

Result<UdevPropertyMap> UdevPropertyFiles::properties(const std::string &kernelName) const {
    if (kernelName.empty() || kernelName.find('/') != std::string::npos)
        return Error{EINVAL, "'" + kernelName + "' is not a device name"};
    auto text = sys::readFile(directory_ + "/" + kernelName);
    if (!text)
        return text.error();
    return parse(*text);
}

UdevPropertyMap UdevPropertyFiles::parse(std::string_view text) {
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

} // namespace mpath::discovery
