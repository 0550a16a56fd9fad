#pragma once

// The client side of multipath-tools' command socket, which mpathd answers
// (daemon/multipathd_socket.h): what mpath's multipathd and multipath
// programs ask the daemon through, framed as libmpathcmd frames it.

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace mpathcompat {

/// Where multipath-tools' programs ask (libmpathcmd's DEFAULT_SOCKET);
/// MPATH_MULTIPATHD_SOCKET names another abstract name (tests).
std::string socketName();

/// How long each part of an answer may take: multipath-tools' default
/// uxsock_timeout, and the 100 ms its client adds.
constexpr int kTimeoutMs = 4000 + 100;
/// The longest answer libmpathcmd takes.
constexpr size_t kMaxReply = 32 * 1024 * 1024;

/// A connection to the daemon's command socket.
class Connection {
public:
    Connection() = default;
    ~Connection();
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    /// \return 0, or the errno of the failure
    int open(const std::string &name);

    /// Sends \a command: its length counting a closing NUL, then it.
    bool send(const std::string &command);

    /// The answer, or the errno of the failure (ETIMEDOUT, EIO, ERANGE).
    std::pair<std::optional<std::string>, int> receive();

    /// Sends \a command and returns the answer, or prints what went wrong
    /// in multipath-tools' client's words (on stdout, as it does) and
    /// returns nothing.
    std::optional<std::string> ask(const std::string &command);

private:
    int read(void *buf, size_t len);

    int fd_{-1};
};

} // namespace mpathcompat
