// One mpathd at a time: a second one says which runs and leaves the first
// one's socket and maps alone.
#include "temp_dir.h"

#include <cstdio>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <string>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef MPATHD
TEST(Instance, ASecondDaemonNamesTheRunningOneAndTouchesNothing) {
    mpath_test::TempDir dir("mpathd-instance");
    const std::string socket = dir.file("bus");
    // The running daemon: the lock beside its socket, its pid in it.
    const int fd = ::open((socket + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
    ASSERT_EQ(::write(fd, "4242\n", 5), 5);
    ASSERT_EQ(::symlink("/nonexistent", socket.c_str()), 0); // "its socket"
    // A daemon that does start is stopped after 20 s: the test fails then.
    const std::string cmd = "timeout 20 " + std::string(MPATHD) + " --root " + dir.str() +
                            " --bus-socket " + socket + " 2>&1";
    FILE *p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[256];
    while (size_t n = fread(buf, 1, sizeof(buf), p))
        out.append(buf, n);
    const int status = ::pclose(p);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 1) << out;
    EXPECT_NE(out.find("another mpathd (pid 4242) is running"), std::string::npos) << out;
    char target[64] = {};
    EXPECT_GT(::readlink(socket.c_str(), target, sizeof(target) - 1), 0)
        << "the running daemon's socket was removed";
    ::close(fd);
}
#endif
