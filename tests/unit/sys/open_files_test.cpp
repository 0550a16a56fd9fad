// raiseOpenFileLimit() against the real RLIMIT_NOFILE, in a child process
// of its own, so the test binary's limit is not the one moved.

#include "mpath/sys/file.h"
#include "mpath/sys/open_files.h"

#include <cstdlib>
#include <gtest/gtest.h>
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
    const rlimit start = current();
    if (start.rlim_max != RLIM_INFINITY && start.rlim_max < 600)
        GTEST_SKIP() << "the hard limit here is " << start.rlim_max << ", below the test's 600";
    EXPECT_EXIT(
        {
            rlimit low = current();
            low.rlim_cur = 256;
            if (setrlimit(RLIMIT_NOFILE, &low) != 0)
                std::_Exit(10);
            auto up = mpath::sys::raiseOpenFileLimit(512);
            if (!up || !up->raised || up->soft != 512 || current().rlim_cur != 512)
                std::_Exit(11);
            if (current().rlim_max != low.rlim_max)
                std::_Exit(12); // the hard limit was high enough: left alone
            auto down = mpath::sys::raiseOpenFileLimit(300);
            if (!down || down->raised || current().rlim_cur != 512)
                std::_Exit(13);
            std::_Exit(0);
        },
        testing::ExitedWithCode(0), "");
}

TEST(OpenFiles, MaxIsTheSystemsLimit) {
    EXPECT_EXIT(
        {
            auto r = mpath::sys::raiseOpenFileLimit(std::nullopt);
            // As root the hard limit goes up to nr_open too; without
            // privilege the answer is an error that says why.
            if (r)
                std::_Exit(current().rlim_cur == nrOpen() && r->soft == nrOpen() ? 0 : 20);
            std::_Exit(r.error().message.find("cannot raise the open file limit") == 0 ? 0 : 21);
        },
        testing::ExitedWithCode(0), "");
}
