// multipath-tools' command socket: libmpathcmd's framing (a size_t length
// counting the closing NUL, then the text), answered on the loop.

#include "multipathd_socket.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <gtest/gtest.h>
#include <mpath/testing/manual_loop.h>
#include <optional>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using mpath::testing::ManualLoop;
using mpathd::MultipathdSocket;

/// A name of its own per test: abstract names are system-wide.
std::string uniqueName() {
    static int n = 0;
    return "/org/mpathd/test/multipathd/" + std::to_string(::getpid()) + "/" + std::to_string(++n);
}

/// Connects as libmpathcmd's mpath_connect() does.
int connectTo(const std::string &name) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path + 1, name.data(), name.size());
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<const sockaddr *>(&addr), len) < 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// A command as libmpathcmd's send_packet() frames it.
std::string frame(const std::string &command) {
    const size_t len = command.size() + 1;
    std::string out(reinterpret_cast<const char *>(&len), sizeof(len));
    out += command;
    out += '\0';
    return out;
}

class MultipathdSocketTest : public ::testing::Test {
protected:
    void SetUp() override {
        name_ = uniqueName();
        socket_.emplace(
            loop_, [this](const std::string &command, bool root, MultipathdSocket::Reply reply) {
                asked_.push_back(command);
                roots_.push_back(root);
                if (inReply_)
                    nested_.push_back(command);
                if (command == "big")
                    return reply(std::string(1 << 20, 'x'));
                if (command == "later") {
                    // Answered once something else happened, as a change is.
                    later_.push_back(loop_.addTimer(1s, [this, reply] {
                        inReply_ = true;
                        reply("done later\n");
                        inReply_ = false;
                    }));
                    return;
                }
                if (command == "slow") {
                    later_.push_back(loop_.addTimer(MultipathdSocket::kIdle + 30s,
                                                    [reply] { reply("done at last\n"); }));
                    return;
                }
                reply("answer to " + command + "\n");
            });
        auto r = socket_->start(name_);
        ASSERT_TRUE(r) << r.error().message;
    }

    /// Reads one answer from \a fd (non-blocking), serving the loop
    /// meanwhile; nullopt when the daemon closed the connection.
    std::optional<std::string> answer(int fd) {
        // Exactly one answer: its length, then that many bytes, as
        // libmpathcmd's recv_packet() reads it.
        std::string in;
        size_t want = sizeof(size_t);
        bool header = true;
        for (int i = 0; i < 2000; ++i) {
            char buf[65536];
            const size_t ask = std::min(sizeof(buf), want - in.size());
            const ssize_t n = ::recv(fd, buf, ask, MSG_DONTWAIT);
            if (n == 0)
                return std::nullopt;
            if (n > 0)
                in.append(buf, static_cast<size_t>(n));
            if (header && in.size() == sizeof(size_t)) {
                std::memcpy(&want, in.data(), sizeof(size_t));
                in.clear();
                header = false;
                continue;
            }
            if (!header && in.size() == want) {
                EXPECT_EQ(in.back(), '\0') << "the length counts the closing NUL";
                in.pop_back();
                return in;
            }
            if (n < 0) {
                loop_.dispatch(5ms);
                loop_.advance(0ms); // what waits for the loop's next turn
            }
        }
        ADD_FAILURE() << "no whole answer within 10 s";
        return std::nullopt;
    }

    ManualLoop loop_;
    std::string name_;
    std::optional<MultipathdSocket> socket_;
    std::vector<std::string> asked_;
    std::vector<mpath::sys::EventLoop::SourcePtr> later_;
    /// Commands whose answering began inside another command's late reply.
    std::vector<std::string> nested_;
    bool inReply_{false};
    std::vector<bool> roots_;
};

TEST_F(MultipathdSocketTest, AnswersACommandFramedAsLibmpathcmdFramesIt) {
    int fd = connectTo(name_);
    ASSERT_GE(fd, 0);
    const std::string f = frame("show maps json");
    ASSERT_EQ(::write(fd, f.data(), f.size()), static_cast<ssize_t>(f.size()));
    EXPECT_EQ(answer(fd), "answer to show maps json\n");
    ASSERT_EQ(asked_.size(), 1u);
    EXPECT_EQ(roots_[0], ::geteuid() == 0);
    ::close(fd);
}

TEST_F(MultipathdSocketTest, AnswersCommandsInTheOrderSentOnOneConnection) {
    int fd = connectTo(name_);
    ASSERT_GE(fd, 0);
    // Three commands in one write, the third split over two: the
    // interactive client sends one after another on one connection.
    const std::string all = frame("show paths") + frame("show maps") + frame("show status");
    ASSERT_EQ(::write(fd, all.data(), all.size() - 5), static_cast<ssize_t>(all.size() - 5));
    EXPECT_EQ(answer(fd), "answer to show paths\n");
    EXPECT_EQ(answer(fd), "answer to show maps\n");
    ASSERT_EQ(::write(fd, all.data() + all.size() - 5, 5), 5);
    EXPECT_EQ(answer(fd), "answer to show status\n");
    EXPECT_EQ(asked_, (std::vector<std::string>{"show paths", "show maps", "show status"}));
    ::close(fd);
}

TEST_F(MultipathdSocketTest, AnAnswerLargerThanTheSocketTakesComesWholeToASlowReader) {
    int fd = connectTo(name_);
    ASSERT_GE(fd, 0);
    const std::string f = frame("big") + frame("after");
    ASSERT_EQ(::write(fd, f.data(), f.size()), static_cast<ssize_t>(f.size()));
    // The reader waits: the daemon sends what the socket takes and waits
    // to be writable, without blocking its loop.
    for (int i = 0; i < 5; ++i)
        loop_.dispatch(5ms);
    EXPECT_EQ(asked_.size(), 1u) << "the next command waits for the answer to go out";
    const auto big = answer(fd);
    ASSERT_TRUE(big);
    EXPECT_EQ(big->size(), size_t{1} << 20);
    EXPECT_EQ(answer(fd), "answer to after\n");
    ::close(fd);
}

TEST_F(MultipathdSocketTest, AnAnswerGivenLaterComesBeforeTheNextCommandIsRead) {
    int fd = connectTo(name_);
    ASSERT_GE(fd, 0);
    const std::string f = frame("later") + frame("show maps");
    ASSERT_EQ(::write(fd, f.data(), f.size()), static_cast<ssize_t>(f.size()));
    for (int i = 0; i < 5; ++i)
        loop_.dispatch(5ms);
    EXPECT_EQ(asked_, std::vector<std::string>{"later"}) << "the next one waits for the answer";
    // Other callers are served meanwhile.
    int other = connectTo(name_);
    ASSERT_GE(other, 0);
    const std::string g = frame("show paths");
    ASSERT_EQ(::write(other, g.data(), g.size()), static_cast<ssize_t>(g.size()));
    EXPECT_EQ(answer(other), "answer to show paths\n");
    ::close(other);
    loop_.advance(1s);
    EXPECT_EQ(answer(fd), "done later\n");
    EXPECT_EQ(answer(fd), "answer to show maps\n");
    // The next command waited for the loop's next turn: whoever gave the
    // late answer did not find it started under its feet.
    EXPECT_TRUE(nested_.empty()) << nested_.front();
    ::close(fd);
}

TEST_F(MultipathdSocketTest, AnAnswerForACallerThatWentIsDropped) {
    int fd = connectTo(name_);
    ASSERT_GE(fd, 0);
    const std::string f = frame("slow");
    ASSERT_EQ(::write(fd, f.data(), f.size()), static_cast<ssize_t>(f.size()));
    for (int i = 0; i < 5; ++i)
        loop_.dispatch(5ms);
    ASSERT_EQ(asked_.size(), 1u);
    // Gone while its answer was being made: the idle bound closes it.
    ::close(fd);
    loop_.advance(MultipathdSocket::kIdle + 1s);
    EXPECT_EQ(socket_->connections(), 0u);
    loop_.advance(30s); // the answer comes, for no one
    EXPECT_EQ(socket_->connections(), 0u);
    EXPECT_EQ(asked_.size(), 1u);
}

TEST_F(MultipathdSocketTest, AnOversizedCommandClosesItsConnectionAndOthersAreServed) {
    int bad = connectTo(name_);
    ASSERT_GE(bad, 0);
    const size_t huge = MultipathdSocket::kMaxCommand + 1;
    ASSERT_EQ(::write(bad, &huge, sizeof(huge)), static_cast<ssize_t>(sizeof(huge)));
    EXPECT_EQ(answer(bad), std::nullopt);
    EXPECT_TRUE(asked_.empty());
    ::close(bad);

    int fd = connectTo(name_);
    ASSERT_GE(fd, 0);
    const std::string f = frame("show daemon");
    ASSERT_EQ(::write(fd, f.data(), f.size()), static_cast<ssize_t>(f.size()));
    EXPECT_EQ(answer(fd), "answer to show daemon\n");
    ::close(fd);
    loop_.dispatch(5ms);
    EXPECT_EQ(socket_->connections(), 0u) << "a caller that went is forgotten";
}

TEST_F(MultipathdSocketTest, AnIdleConnectionIsClosedAfterItsBound) {
    int fd = connectTo(name_);
    ASSERT_GE(fd, 0);
    loop_.dispatch(5ms);
    EXPECT_EQ(socket_->connections(), 1u);
    loop_.advance(MultipathdSocket::kIdle + 1s);
    EXPECT_EQ(socket_->connections(), 0u);
    EXPECT_EQ(answer(fd), std::nullopt);
    ::close(fd);
}

TEST_F(MultipathdSocketTest, ANameInUseIsRefusedWithWhoHasIt) {
    ManualLoop other;
    MultipathdSocket second(
        other, [](const std::string &, bool, MultipathdSocket::Reply r) { r(std::string()); });
    auto r = second.start(name_);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, EADDRINUSE);
    EXPECT_NE(r.error().message.find("multipathd"), std::string::npos) << r.error().message;
}

TEST_F(MultipathdSocketTest, ACallerThatIsNotRootIsSaidToBeNotRoot) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root, to run a caller as another user";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
            ::_exit(2);
        int fd = connectTo(name_);
        if (fd < 0)
            ::_exit(3);
        const std::string f = frame("show maps");
        if (::write(fd, f.data(), f.size()) != static_cast<ssize_t>(f.size()))
            ::_exit(4);
        size_t len = 0;
        if (::read(fd, &len, sizeof(len)) != static_cast<ssize_t>(sizeof(len)))
            ::_exit(5);
        ::_exit(0);
    }
    int status = 0;
    bool ended = false;
    for (int i = 0; i < 2000 && !ended; ++i) {
        ended = ::waitpid(child, &status, WNOHANG) == child;
        loop_.dispatch(5ms);
    }
    if (!ended)
        ::kill(child, SIGKILL);
    ASSERT_TRUE(ended) << "the caller got no answer within 10 s";
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    ASSERT_EQ(roots_.size(), 1u);
    EXPECT_FALSE(roots_[0]);
}

} // namespace
