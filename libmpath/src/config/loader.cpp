#include "mpath/config/loader.h"

#include "mpath/config/parser.h"
#include "mpath/sys/file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mpath::config {

namespace {

constexpr const char *kOwnFile = "/etc/mpathd/mpathd.conf";
constexpr const char *kOwnConfd = "/etc/mpathd/conf.d";
constexpr const char *kCompatFile = "/etc/multipath.conf";
constexpr const char *kCompatConfd = "/etc/multipath/conf.d";

bool isRegularFile(const std::string &path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Whether \p path may be there: true when it exists as a regular file, or
// when stat cannot tell (a folder on the way cannot be searched), so that
// reading it reports why instead of the file passing for absent.
bool mayBeThere(const std::string &path) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0)
        return S_ISREG(st.st_mode);
    return errno != ENOENT && errno != ENOTDIR;
}

void readInto(const std::string &path, ConfigResult &r) {
    auto text = sys::readFile(path);
    if (!text) {
        r.diagnostics.push_back({path, 0, Diagnostic::Severity::Error,
                                 std::string("cannot read: ") + std::strerror(text.code())});
        return;
    }
    parse(*text, path, r.config, r.diagnostics, r.config.ownFile);
}

} // namespace

Loader::Loader(std::string rootDir) : root_(std::move(rootDir)) {
    while (root_.size() > 1 && root_.back() == '/')
        root_.pop_back();
    if (root_ == "/")
        root_.clear();
}

std::string Loader::underRoot(const std::string &absolute) const {
    return root_ + absolute;
}

std::string Loader::confdDirectory(const Config &config) const {
    if (config.globals.configDir)
        return underRoot(*config.globals.configDir);
    return underRoot(config.ownFile ? kOwnConfd : kCompatConfd);
}

std::string Loader::mainFile() const {
    if (mayBeThere(underRoot(kOwnFile)))
        return underRoot(kOwnFile);
    if (mayBeThere(underRoot(kCompatFile)))
        return underRoot(kCompatFile);
    return {};
}

Result<std::vector<std::string>> Loader::confdFiles(const Config &config) const {
    const std::string dir = confdDirectory(config);
    std::vector<std::string> names;
    DIR *d = opendir(dir.c_str());
    if (!d) {
        // No conf.d is no error; one that cannot be read is.
        if (errno != ENOENT && errno != ENOTDIR)
            return Error::fromErrno(errno, dir);
        return names;
    }
    while (struct dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (name.size() <= 5 || name.compare(name.size() - 5, 5, ".conf") != 0)
            continue;
        if (isRegularFile(dir + "/" + name))
            names.push_back(name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    std::vector<std::string> paths;
    for (const auto &n : names)
        paths.push_back(dir + "/" + n);
    return paths;
}

ConfigResult Loader::load() const {
    ConfigResult r;
    std::string main = mainFile();
    r.config.ownFile = main == underRoot(kOwnFile);
    if (!main.empty())
        readInto(main, r);
    // A conf.d file may not move conf.d: only the main file's config_dir
    // counts, as in multipath-tools.
    auto files = confdFiles(r.config);
    if (files) {
        for (const auto &f : *files)
            readInto(f, r);
    } else {
        r.diagnostics.push_back(
            {confdDirectory(r.config), 0, Diagnostic::Severity::Error,
             std::string("cannot read the folder: ") + std::strerror(files.code())});
    }
    checkConsistency(r.config, r.diagnostics);
    return r;
}

} // namespace mpath::config
