#include "multipathd_socket_client.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace mpathcompat {

std::string socketName() {
    const char *name = std::getenv("MPATH_MULTIPATHD_SOCKET");
    return name && *name ? name : "/org/kernel/linux/storage/multipathd";
}

Connection::~Connection() {
    if (fd_ >= 0)
        ::close(fd_);
}

int Connection::open(const std::string &name) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (name.size() + 1 > sizeof(addr.sun_path))
        return ENAMETOOLONG;
    std::memcpy(addr.sun_path + 1, name.data(), name.size());
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<const sockaddr *>(&addr), len) < 0)
        return errno;
    return 0;
}

bool Connection::send(const std::string &command) {
    const size_t len = command.size() + 1;
    std::string packet(reinterpret_cast<const char *>(&len), sizeof(len));
    packet += command;
    packet += '\0';
    size_t done = 0;
    while (done < packet.size()) {
        const ssize_t n = ::send(fd_, packet.data() + done, packet.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

std::pair<std::optional<std::string>, int> Connection::receive() {
    size_t len = 0;
    if (int e = read(&len, sizeof(len)))
        return {std::nullopt, e};
    if (len == 0 || len >= kMaxReply)
        return {std::nullopt, ERANGE};
    std::string reply(len, '\0');
    if (int e = read(reply.data(), len))
        return {std::nullopt, e};
    // The text ends at its NUL, as the C client prints it.
    reply.resize(std::strlen(reply.c_str()));
    return {std::move(reply), 0};
}

std::optional<std::string> Connection::ask(const std::string &command) {
    if (!send(command)) {
        std::printf("cannot send packet\n");
        return std::nullopt;
    }
    auto [reply, error] = receive();
    if (!reply) {
        if (error == ETIMEDOUT)
            std::printf("timeout receiving packet\n");
        else
            std::printf("error %d receiving packet\n", -error);
    }
    return std::move(reply);
}

int Connection::read(void *buf, size_t len) {
    auto *p = static_cast<char *>(buf);
    size_t done = 0;
    while (done < len) {
        pollfd pfd{fd_, POLLIN, 0};
        const int r = ::poll(&pfd, 1, kTimeoutMs);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return ETIMEDOUT;
        if (r < 0)
            return errno;
        const ssize_t n = ::recv(fd_, p + done, len - done, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return EIO; // the daemon went
        done += static_cast<size_t>(n);
    }
    return 0;
}

} // namespace mpathcompat
