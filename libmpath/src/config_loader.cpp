#include "mpath/config_loader.h"

#include "mpath/config_parser.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mpath {

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

// \return 0 or -errno
int readFile(const std::string &path, std::string &out) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    out.clear();
    char buf[8192];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int r = -errno;
            close(fd);
            return r;
        }
        if (n == 0)
            break;
        out.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return 0;
}

void readInto(const std::string &path, ConfigResult &r) {
    std::string text;
    int rc = readFile(path, text);
    if (rc < 0) {
        r.diagnostics.push_back({path, 0, Diagnostic::Severity::Error,
                                 std::string("cannot read: ") + std::strerror(-rc)});
        return;
    }
    ConfigParser::parse(text, path, r.config, r.diagnostics, r.config.ownFile);
}

} // namespace

ConfigLoader::ConfigLoader(std::string rootDir) : root_(std::move(rootDir)) {
    while (root_.size() > 1 && root_.back() == '/')
        root_.pop_back();
    if (root_ == "/")
        root_.clear();
}

std::string ConfigLoader::underRoot(const std::string &absolute) const {
    return root_ + absolute;
}

std::string ConfigLoader::confdDirectory(const Config &config) const {
    if (config.globals.configDir)
        return underRoot(*config.globals.configDir);
    return underRoot(config.ownFile ? kOwnConfd : kCompatConfd);
}

std::string ConfigLoader::mainFile() const {
    if (mayBeThere(underRoot(kOwnFile)))
        return underRoot(kOwnFile);
    if (mayBeThere(underRoot(kCompatFile)))
        return underRoot(kCompatFile);
    return {};
}

std::vector<std::string> ConfigLoader::confdFiles(const Config &config, int *error) const {
    const std::string dir = confdDirectory(config);
    std::vector<std::string> names;
    if (error)
        *error = 0;
    DIR *d = opendir(dir.c_str());
    if (!d) {
        // No conf.d is no error; one that cannot be read is.
        if (error && errno != ENOENT && errno != ENOTDIR)
            *error = -errno;
        return {};
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

ConfigResult ConfigLoader::load() const {
    ConfigResult r;
    std::string main = mainFile();
    r.config.ownFile = main == underRoot(kOwnFile);
    if (!main.empty())
        readInto(main, r);
    // A conf.d file may not move conf.d: only the main file's config_dir
    // counts, as in multipath-tools.
    int error = 0;
    for (const auto &f : confdFiles(r.config, &error))
        readInto(f, r);
    if (error < 0)
        r.diagnostics.push_back({confdDirectory(r.config), 0, Diagnostic::Severity::Error,
                                 std::string("cannot read the folder: ") + std::strerror(-error)});
    ConfigParser::checkConsistency(r.config, r.diagnostics);
    return r;
}

} // namespace mpath
