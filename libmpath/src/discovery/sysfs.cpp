#include "mpath/discovery/sysfs.h"

#include "mpath/sys/file.h"

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

namespace mpath::discovery {

namespace {

// Attributes we read are small (vpd pages stay below a few KiB); the
// bound protects against being pointed at a large regular file.
constexpr size_t kMaxAttributeSize = 64 * 1024;

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

Result<std::string> Sysfs::readAttribute(std::string_view path) const {
    auto text = sys::readFile(absolute(path), kMaxAttributeSize);
    if (!text)
        return Error::fromErrno(text.code(), path);
    std::string &value = *text;
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ' || value.back() == '\t' ||
                              value.back() == '\0'))
        value.pop_back();
    return text;
}

Result<std::vector<uint8_t>> Sysfs::readBinary(std::string_view path) const {
    auto raw = sys::readFile(absolute(path), kMaxAttributeSize);
    if (!raw)
        return Error::fromErrno(raw.code(), path);
    return std::vector<uint8_t>(raw->begin(), raw->end());
}

Result<uint64_t> Sysfs::readNumber(std::string_view path) const {
    auto text = readAttribute(path);
    if (!text)
        return text.error();
    const Error notANumber{EINVAL, std::string(path) + ": not a number: '" + *text + "'"};
    if (text->empty())
        return notANumber;
    uint64_t v = 0;
    for (char c : *text) {
        if (c < '0' || c > '9')
            return notANumber;
        uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
        if (next / 10 != v)
            return Error{ERANGE, std::string(path) + ": number out of range: " + *text};
        v = next;
    }
    return v;
}

Result<std::string> Sysfs::resolve(std::string_view path) const {
    char buf[PATH_MAX];
    std::string abs = absolute(path);
    if (::realpath(abs.c_str(), buf) == nullptr)
        return Error::fromErrno(errno, path);
    std::string_view full(buf);
    std::string_view base(canonicalRoot_);
    if (base == "/") {
        full.remove_prefix(1);
        return std::string(full);
    }
    if (full.size() < base.size() || full.substr(0, base.size()) != base ||
        (full.size() > base.size() && full[base.size()] != '/'))
        return Error{EXDEV, std::string(path) + ": leads out of the sysfs tree"};
    full.remove_prefix(std::min(full.size(), base.size() + 1));
    return std::string(full);
}

Result<std::string> Sysfs::resolveLink(std::string_view path) const {
    char buf[PATH_MAX];
    ssize_t n = ::readlink(absolute(path).c_str(), buf, sizeof(buf) - 1);
    if (n < 0) {
        if (errno == EINVAL) { // not a link: a directory of the tree itself
            if (exists(path))
                return std::string(path);
            return Error::fromErrno(ENOENT, path);
        }
        return Error::fromErrno(errno, path);
    }
    std::string_view target(buf, static_cast<size_t>(n));
    if (!target.empty() && target.front() == '/')
        return resolve(path);
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
        return Error{EXDEV, std::string(path) + ": leads out of the sysfs tree"};
    return joinLexically(dir, target);
}

Result<std::vector<std::string>> Sysfs::listDirectory(std::string_view path) const {
    std::string abs = absolute(path);
    std::unique_ptr<DIR, int (*)(DIR *)> dir(::opendir(abs.c_str()), ::closedir);
    if (!dir)
        return Error::fromErrno(errno, path);
    std::vector<std::string> names;
    while (struct dirent *e = ::readdir(dir.get())) {
        std::string_view n(e->d_name);
        if (n == "." || n == "..")
            continue;
        names.emplace_back(n);
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool Sysfs::exists(std::string_view path) const {
    struct stat st {};
    return ::stat(absolute(path).c_str(), &st) == 0;
}

} // namespace mpath::discovery
