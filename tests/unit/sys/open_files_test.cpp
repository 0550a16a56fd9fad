// raiseOpenFileLimit() against the real RLIMIT_NOFILE, in a child process
// of its own, so the test binary's limit is not the one moved.

#include "mpath/sys/file.h"
#include "mpath/sys/open_files.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <string>
#include <sys/resource.h>

namespace {

rlimit current() {
    rlimit r{};
    getrlimit(RLIMIT_NOFILE, &r);
    return r;
}

unsigned long nrOpen() {
    auto text = mpath::sys::readFile("/proc/sys/fs/nr_open");
    return text ? std::strtoul(text->c_str(), nullptr, 10) : 0;
}

} // namespace

TEST(OpenFiles, RaisesTheSoftLimitToTheTargetAndNeverLowersIt) {
    // Targets below the hard limit, whatever it is here: no privilege needed.
    const rlimit start = current();
    const rlim_t top = start.rlim_max == RLIM_INFINITY ? 4096 : start.rlim_max;
    const rlim_t low = top / 4, target = top / 2, lower = top / 3;
    EXPECT_EXIT(
        {
            rlimit l = current();
            l.rlim_cur = low;
            if (setrlimit(RLIMIT_NOFILE, &l) != 0)
                std::_Exit(10);
            auto up = mpath::sys::raiseOpenFileLimit(target);
            if (!up || !up->raised || up->soft != target || current().rlim_cur != target)
                std::_Exit(11);
            if (current().rlim_max != l.rlim_max)
                std::_Exit(12); // the hard limit was high enough: left alone
            auto down = mpath::sys::raiseOpenFileLimit(lower);
            if (!down || down->raised || current().rlim_cur != target)
                std::_Exit(13);
            std::_Exit(0);
        },
        testing::ExitedWithCode(0), "");
}

TEST(OpenFiles, MaxIsTheSystemsLimitOrAnErrorThatChangesNothing) {
    EXPECT_EXIT(
        {
            const rlimit before = current();
            auto r = mpath::sys::raiseOpenFileLimit(std::nullopt);
            // Raised: to nr_open, soft and hard alike.
            if (r)
                std::_Exit(current().rlim_cur == nrOpen() && current().rlim_max >= nrOpen() &&
                                   r->soft == nrOpen()
                               ? 0
                               : 20);
            // Refused: only possible when the hard limit is below nr_open
            // and raising it takes a privilege this process lacks; the
            // error says so and the limit is as it was.
            const rlimit after = current();
            std::_Exit(before.rlim_max < nrOpen() && after.rlim_cur == before.rlim_cur &&
                               after.rlim_max == before.rlim_max &&
                               r.error().message.find("cannot raise the open file limit from " +
                                                      std::to_string(before.rlim_cur) + " to " +
                                                      std::to_string(nrOpen())) == 0
                           ? 0
                           : 21);
        },
        testing::ExitedWithCode(0), "");
}
