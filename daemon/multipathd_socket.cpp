#include "multipathd_socket.h"

#include "log.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace mpathd {

using mpath::Error;
using mpath::Result;

struct MultipathdSocket::Connection {
    int fd{-1};
    bool root{false};
    std::string in;        ///< what came and is not answered yet
    bool answering{false}; ///< a command is being answered
    std::string out;       ///< the framed answer being sent
    size_t sent{0};        ///< of out
    mpath::sys::EventLoop::SourcePtr reading, writing, timer, next;
    /// Held while it is open: an answer that comes after it closed finds
    /// it gone.
    std::shared_ptr<bool> open{std::make_shared<bool>(true)};

    ~Connection() {
        reading.reset();
        writing.reset();
        timer.reset();
        next.reset();
        if (fd >= 0)
            ::close(fd);
    }
};

MultipathdSocket::MultipathdSocket(mpath::sys::EventLoop &loop, Answer answer)
    : loop_(loop), answer_(std::move(answer)) {}

MultipathdSocket::~MultipathdSocket() {
    connections_.clear();
    acceptSource_.reset();
    if (listenFd_ >= 0)
        ::close(listenFd_);
}

Result<void> MultipathdSocket::start(const std::string &name) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (name.empty() || name.size() + 1 > sizeof(addr.sun_path))
        return Error{EINVAL, "multipathd socket name '" + name + "' does not fit"};
    // Abstract: a NUL, then the name, and the address ends with the name
    // (libmpathcmd connects with exactly that length).
    std::memcpy(addr.sun_path + 1, name.data(), name.size());
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return Error::fromErrno(errno, "multipathd socket");
    if (::bind(fd, reinterpret_cast<const sockaddr *>(&addr), len) < 0 || ::listen(fd, 16) < 0) {
        const int e = errno;
        ::close(fd);
        if (e == EADDRINUSE)
            return Error{e, "@" + name + " is taken: multipathd (or another mpathd) answers there"};
        return Error::fromErrno(e, "@" + name);
    }
    listenFd_ = fd;
    acceptSource_ = loop_.addReadable(fd, [this] { accept(); });
    if (!acceptSource_)
        return Error{ENOMEM, "@" + name + ": the loop takes no more sources"};
    return mpath::ok();
}

void MultipathdSocket::accept() {
    for (;;) {
        int fd = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return; // EAGAIN, or a caller that went before it was taken
        if (connections_.size() >= kMaxConnections) {
            logWarning({}, "multipathd socket: " + std::to_string(kMaxConnections) +
                               " connections open already; one more closed");
            ::close(fd);
            continue;
        }
        auto c = std::make_unique<Connection>();
        c->fd = fd;
        ucred cred{};
        socklen_t credLen = sizeof(cred);
        c->root = ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &credLen) == 0 && cred.uid == 0;
        Connection *raw = c.get();
        c->reading = loop_.addReadable(fd, [this, raw] { readFrom(*raw); });
        connections_.push_back(std::move(c));
        idle(*raw);
    }
}

void MultipathdSocket::idle(Connection &c) {
    Connection *raw = &c;
    c.timer = loop_.addTimer(kIdle, [this, raw] { close(*raw); });
}

void MultipathdSocket::readFrom(Connection &c) {
    char buf[4096];
    const ssize_t n = ::read(c.fd, buf, sizeof(buf));
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        close(c); // the caller went
        return;
    }
    c.in.append(buf, static_cast<size_t>(n));
    idle(c);
    serve(c);
}

void MultipathdSocket::serve(Connection &c) {
    if (c.answering || c.in.size() < sizeof(size_t))
        return;
    size_t len = 0;
    std::memcpy(&len, c.in.data(), sizeof(len));
    if (len == 0 || len > kMaxCommand) {
        logWarning({}, "multipathd socket: a command of " + std::to_string(len) +
                           " bytes refused (at most " + std::to_string(kMaxCommand) +
                           "); its connection closed");
        close(c);
        return;
    }
    if (c.in.size() < sizeof(size_t) + len)
        return;
    std::string command = c.in.substr(sizeof(size_t), len);
    c.in.erase(0, sizeof(size_t) + len);
    if (const auto nul = command.find('\0'); nul != std::string::npos)
        command.resize(nul);

    // One command at a time: nothing more is read until it is answered.
    c.reading.reset();
    c.next.reset();
    c.answering = true;
    std::weak_ptr<bool> open = c.open;
    Connection *raw = &c;
    answer_(command, c.root, [this, open, raw](std::string reply) {
        if (open.lock())
            send(*raw, reply);
    });
}

void MultipathdSocket::send(Connection &c, const std::string &reply) {
    c.answering = false;
    const size_t replyLen = reply.size() + 1;
    c.out.assign(reinterpret_cast<const char *>(&replyLen), sizeof(replyLen));
    c.out += reply;
    c.out += '\0';
    c.sent = 0;
    writeTo(c);
}

void MultipathdSocket::writeTo(Connection &c) {
    while (c.sent < c.out.size()) {
        const ssize_t n =
            ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            if (!c.writing) {
                Connection *raw = &c;
                c.writing = loop_.addWritable(c.fd, [this, raw] { writeTo(*raw); });
            }
            return;
        }
        if (n <= 0) {
            close(c);
            return;
        }
        c.sent += static_cast<size_t>(n);
        idle(c);
    }
    c.out.clear();
    c.sent = 0;
    c.writing.reset();
    Connection *raw = &c;
    c.reading = loop_.addReadable(c.fd, [this, raw] { readFrom(*raw); });
    // A command that came with the last one is served on the loop's next
    // turn, not here: an answer given late goes out from inside whoever
    // gave it (a map's change ending), which must not find the next
    // command's work started under it.
    if (c.in.size() >= sizeof(size_t))
        c.next = loop_.addTimer(std::chrono::milliseconds(0), [this, raw] {
            raw->next.reset();
            serve(*raw);
        });
}

void MultipathdSocket::close(Connection &c) {
    auto it = std::find_if(connections_.begin(), connections_.end(),
                           [&](const auto &p) { return p.get() == &c; });
    if (it != connections_.end())
        connections_.erase(it);
}

} // namespace mpathd
