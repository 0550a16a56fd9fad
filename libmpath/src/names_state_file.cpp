#include "names_state_file.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mpath {

namespace {

std::string dirOf(const std::string &path) {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    if (slash == 0)
        return "/";
    return path.substr(0, slash);
}

// mkdir -p
int makeDirs(const std::string &dir) {
    struct stat st;
    if (stat(dir.c_str(), &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
    if (dir != "/" && dir != ".") {
        int r = makeDirs(dirOf(dir));
        if (r < 0)
            return r;
    }
    if (mkdir(dir.c_str(), 0755) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

int writeAll(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        data.remove_prefix(static_cast<size_t>(n));
    }
    return 0;
}

} // namespace

int NamesStateFile::lock() {
    if (lockFd_ >= 0)
        return 0;
    int r = makeDirs(dirOf(path_));
    if (r < 0)
        return r;
    std::string lockPath = path_ + ".lock";
    int fd = open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    while (flock(fd, LOCK_EX) < 0) {
        if (errno != EINTR) {
            int e = -errno;
            close(fd);
            return e;
        }
    }
    lockFd_ = fd;
    return 0;
}

void NamesStateFile::unlock() {
    if (lockFd_ < 0)
        return;
    // Closing the descriptor releases the flock.
    close(lockFd_);
    lockFd_ = -1;
}

int NamesStateFile::read(std::string &out) const {
    int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    out.clear();
    char buf[8192];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = -errno;
            close(fd);
            return e;
        }
        if (n == 0)
            break;
        out.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return 0;
}

int NamesStateFile::replace(std::string_view contents) const {
    std::string dir = dirOf(path_);
    int r = makeDirs(dir);
    if (r < 0)
        return r;
    mode_t mode = 0600;
    struct stat st;
    if (stat(path_.c_str(), &st) == 0)
        mode = st.st_mode & 07777;

    std::string tmp = path_ + ".XXXXXX";
    int fd = mkostemp(tmp.data(), O_CLOEXEC);
    if (fd < 0)
        return -errno;
    r = fchmod(fd, mode) < 0 ? -errno : 0;
    if (r == 0)
        r = writeAll(fd, contents);
    if (r == 0 && fsync(fd) < 0)
        r = -errno;
    if (close(fd) < 0 && r == 0)
        r = -errno;
    if (r == 0 && rename(tmp.c_str(), path_.c_str()) < 0)
        r = -errno;
    if (r < 0) {
        unlink(tmp.c_str());
        return r;
    }
    // Make the rename itself durable.
    int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

} // namespace mpath
