#include "mpath/sys/file.h"

#include "mpath/sys/unique_fd.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mpath::sys {

namespace {

Result<void> writeAll(int fd, std::string_view data, const std::string &what) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return Error::fromErrno(errno, "write " + what);
        }
        data.remove_prefix(static_cast<size_t>(n));
    }
    return ok();
}

} // namespace

std::string directoryOf(const std::string &path) {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    if (slash == 0)
        return "/";
    return path.substr(0, slash);
}

Result<std::string> readFile(const std::string &path, std::size_t maxSize) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd)
        return Error::fromErrno(errno, path);
    std::string out;
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(fd.get(), buf, sizeof(buf));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return Error::fromErrno(errno, path);
        }
        out.append(buf, static_cast<size_t>(n));
        if (out.size() > maxSize)
            return Error::fromErrno(EFBIG, path);
        // Regular files and sysfs attributes return less than asked only
        // at their end.
        if (static_cast<size_t>(n) < sizeof(buf))
            break;
    }
    return out;
}

int writeAttribute(const std::string &file, std::string_view value) {
    UniqueFd fd(::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
    if (!fd)
        return errno;
    const ssize_t n = ::write(fd.get(), value.data(), value.size());
    if (n != static_cast<ssize_t>(value.size()))
        return n < 0 && errno ? errno : EIO;
    return 0;
}

Result<void> makeDirectories(const std::string &dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0)
        return S_ISDIR(st.st_mode) ? ok() : Error::fromErrno(ENOTDIR, dir);
    if (dir != "/" && dir != ".") {
        if (auto r = makeDirectories(directoryOf(dir)); !r)
            return r;
    }
    if (::mkdir(dir.c_str(), 0755) < 0 && errno != EEXIST)
        return Error::fromErrno(errno, "mkdir " + dir);
    return ok();
}

Result<void> replaceFile(const std::string &path, std::string_view contents, unsigned mode) {
    const std::string dir = directoryOf(path);
    if (auto r = makeDirectories(dir); !r)
        return r;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
        mode = st.st_mode & 07777;

    std::string tmp = path + ".XXXXXX";
    UniqueFd fd(::mkostemp(tmp.data(), O_CLOEXEC));
    if (!fd)
        return Error::fromErrno(errno, "create a temporary file next to " + path);
    Result<void> r = ok();
    if (::fchmod(fd.get(), static_cast<mode_t>(mode)) < 0)
        r = Error::fromErrno(errno, "chmod " + tmp);
    if (r)
        r = writeAll(fd.get(), contents, tmp);
    if (r && ::fsync(fd.get()) < 0)
        r = Error::fromErrno(errno, "fsync " + tmp);
    if (::close(fd.release()) < 0 && r)
        r = Error::fromErrno(errno, "close " + tmp);
    if (r && ::rename(tmp.c_str(), path.c_str()) < 0)
        r = Error::fromErrno(errno, "rename " + tmp + " to " + path);
    if (!r) {
        ::unlink(tmp.c_str());
        return r;
    }
    // Make the rename itself durable.
    UniqueFd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd)
        (void)::fsync(dfd.get());
    return ok();
}

} // namespace mpath::sys
