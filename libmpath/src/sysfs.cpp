#include "mpath/sysfs.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace mpath {

namespace {

// Attributes we read are small (vpd pages stay below a few KiB); the
// bound protects against being pointed at a large regular file.
constexpr size_t kMaxAttributeSize = 64 * 1024;

int readFile(const std::string &file, std::string &out) {
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    out.clear();
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int r = -errno;
            ::close(fd);
            return r;
        }
        out.append(buf, static_cast<size_t>(n));
        // sysfs hands out an attribute in one read; a short read is the
        // end, which saves a read per attribute on large trees.
        if (static_cast<size_t>(n) < sizeof(buf))
            break;
        if (out.size() > kMaxAttributeSize) {
            ::close(fd);
            return -EFBIG;
        }
    }
    ::close(fd);
    return 0;
}

// Joins a relative link target to the directory holding the link,
// folding "." and ".." lexically.
std::string joinLexically(std::string_view dir, std::string_view target) {
    std::vector<std::string_view> parts;
    auto push = [&](std::string_view path) {
        while (!path.empty()) {
            size_t slash = path.find('/');
            std::string_view c = path.substr(0, slash);
            if (c == "..") {
                if (!parts.empty())
                    parts.pop_back();
            } else if (!c.empty() && c != ".") {
                parts.push_back(c);
            }
            if (slash == std::string_view::npos)
                break;
            path.remove_prefix(slash + 1);
        }
    };
    push(dir);
    push(target);
    std::string out;
    for (std::string_view c : parts) {
        if (!out.empty())
            out += '/';
        out += c;
    }
    return out;
}

std::string canonical(const std::string &p) {
    char buf[PATH_MAX];
    if (::realpath(p.c_str(), buf) == nullptr)
        return p;
    return buf;
}

} // namespace

Sysfs::Sysfs(std::string root) : root_(std::move(root)) {
    while (root_.size() > 1 && root_.back() == '/')
        root_.pop_back();
    canonicalRoot_ = canonical(root_);
}

std::string Sysfs::absolute(std::string_view path) const {
    while (!path.empty() && path.front() == '/')
        path.remove_prefix(1);
    std::string out = root_;
    out += '/';
    out += path;
    return out;
}

int Sysfs::readAttribute(std::string_view path, std::string &value) const {
    int r = readFile(absolute(path), value);
    if (r < 0)
        return r;
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ' || value.back() == '\t' ||
                              value.back() == '\0'))
        value.pop_back();
    return 0;
}

int Sysfs::readBinary(std::string_view path, std::vector<uint8_t> &value) const {
    std::string raw;
    int r = readFile(absolute(path), raw);
    if (r < 0)
        return r;
    value.assign(raw.begin(), raw.end());
    return 0;
}

int Sysfs::readNumber(std::string_view path, uint64_t &value) const {
    std::string text;
    int r = readAttribute(path, text);
    if (r < 0)
        return r;
    if (text.empty())
        return -EINVAL;
    uint64_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return -EINVAL;
        uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
        if (next / 10 != v)
            return -ERANGE;
        v = next;
    }
    value = v;
    return 0;
}

int Sysfs::resolve(std::string_view path, std::string &resolved) const {
    char buf[PATH_MAX];
    std::string abs = absolute(path);
    if (::realpath(abs.c_str(), buf) == nullptr)
        return -errno;
    std::string_view full(buf);
    std::string_view base(canonicalRoot_);
    if (base == "/") {
        full.remove_prefix(1);
        resolved = std::string(full);
        return 0;
    }
    if (full.size() < base.size() || full.substr(0, base.size()) != base ||
        (full.size() > base.size() && full[base.size()] != '/'))
        return -EXDEV;
    full.remove_prefix(std::min(full.size(), base.size() + 1));
    resolved = std::string(full);
    return 0;
}

int Sysfs::resolveLink(std::string_view path, std::string &resolved) const {
    char buf[PATH_MAX];
    ssize_t n = ::readlink(absolute(path).c_str(), buf, sizeof(buf) - 1);
    if (n < 0) {
        if (errno == EINVAL) // not a link: a directory of the tree itself
            return exists(path) ? (resolved = std::string(path), 0) : -ENOENT;
        return -errno;
    }
    std::string_view target(buf, static_cast<size_t>(n));
    if (!target.empty() && target.front() == '/')
        return resolve(path, resolved);
    std::string_view dir = path;
    size_t slash = dir.rfind('/');
    dir = slash == std::string_view::npos ? std::string_view{} : dir.substr(0, slash);
    size_t depth = 0;
    for (std::string_view rest = dir; !rest.empty();) {
        ++depth;
        size_t s = rest.find('/');
        rest = s == std::string_view::npos ? std::string_view{} : rest.substr(s + 1);
    }
    size_t ups = 0;
    for (std::string_view rest = target; rest.substr(0, 3) == "../"; rest.remove_prefix(3))
        ++ups;
    if (ups > depth)
        return -EXDEV;
    resolved = joinLexically(dir, target);
    return 0;
}

int Sysfs::listDirectory(std::string_view path, std::vector<std::string> &names) const {
    std::string abs = absolute(path);
    std::unique_ptr<DIR, int (*)(DIR *)> dir(::opendir(abs.c_str()), ::closedir);
    if (!dir)
        return -errno;
    names.clear();
    while (struct dirent *e = ::readdir(dir.get())) {
        std::string_view n(e->d_name);
        if (n == "." || n == "..")
            continue;
        names.emplace_back(n);
    }
    std::sort(names.begin(), names.end());
    return 0;
}

bool Sysfs::exists(std::string_view path) const {
    struct stat st {};
    return ::stat(absolute(path).c_str(), &st) == 0;
}

} // namespace mpath
