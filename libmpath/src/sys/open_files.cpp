#include "mpath/sys/open_files.h"

#include "mpath/sys/file.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <string>
#include <sys/resource.h>

namespace mpath::sys {

namespace {

constexpr const char *kNrOpen = "/proc/sys/fs/nr_open";

Result<unsigned long> systemLimit() {
    auto text = readFile(kNrOpen, 64);
    if (!text)
        return text.error();
    unsigned long n = 0;
    const char *end = text->data() + text->size();
    auto [p, ec] = std::from_chars(text->data(), end, n);
    if (ec != std::errc() || n == 0 || (p != end && *p != '\n'))
        return Error{EINVAL, std::string(kNrOpen) + ": not a number: '" + *text + "'"};
    return n;
}

} // namespace

Result<OpenFileLimit> raiseOpenFileLimit(std::optional<unsigned long> target) {
    if (!target) {
        auto n = systemLimit();
        if (!n)
            return n.error();
        target = *n;
    }
    struct rlimit now {};
    if (::getrlimit(RLIMIT_NOFILE, &now) != 0)
        return Error{errno, std::string("cannot read the open file limit: ") + strerror(errno)};
    if (now.rlim_cur == RLIM_INFINITY || now.rlim_cur >= *target)
        return OpenFileLimit{now.rlim_cur, now.rlim_max, false};
    struct rlimit want = now;
    want.rlim_cur = *target;
    if (want.rlim_max != RLIM_INFINITY && want.rlim_max < *target)
        want.rlim_max = *target;
    if (::setrlimit(RLIMIT_NOFILE, &want) != 0)
        return Error{errno, "cannot raise the open file limit from " +
                                std::to_string(now.rlim_cur) + " to " + std::to_string(*target) +
                                ": " + strerror(errno)};
    return OpenFileLimit{want.rlim_cur, want.rlim_max, true};
}

} // namespace mpath::sys
