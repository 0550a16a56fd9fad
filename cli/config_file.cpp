#include "config_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mpath/config/loader.h>
#include <mpath/config/parser.h>
#include <mpath/discovery/udev_property_files.h>
#include <mpath/sys/udev_lib.h>
#include <sstream>

namespace mpathctl {

int loadConfig(const std::optional<std::string> &file, mpath::config::ConfigResult &result) {
    if (!file) {
        result = mpath::config::Loader("/").load();
        return 0;
    }
    std::ifstream in(*file);
    if (!in) {
        int e = errno;
        std::cerr << *file << ": cannot read: " << strerror(e) << "\n";
        return -e;
    }
    std::stringstream text;
    text << in.rdbuf();
    const std::string name = std::filesystem::path(*file).filename().string();
    result = mpath::config::parseString(text.str(), *file, name == "mpathd.conf");
    return 0;
}

std::unique_ptr<mpath::discovery::UdevProperties>
openUdevProperties(const std::optional<std::string> &sysfsRoot, const char *command) {
    if (sysfsRoot)
        return std::make_unique<mpath::discovery::UdevPropertyFiles>(
            (std::filesystem::path(*sysfsRoot).parent_path() / "udev").string());
    auto lib = mpath::sys::UdevLib::create();
    if (!lib) {
        std::cerr << command << ": " << lib.error().message << "\n";
        return nullptr;
    }
    return std::move(*lib);
}

} // namespace mpathctl
