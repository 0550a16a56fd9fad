#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mpath/error.h>
#include <mpath/sys/event_loop.h>
#include <string>
#include <vector>

namespace mpathd {

/// multipath-tools' command socket, which programs linked with its
/// libmpathcmd (libdmmp, `multipathd COMMAND`, CSI drivers) connect to
/// without running anything: the abstract UNIX stream socket
/// "@/org/kernel/linux/storage/multipathd". Each command and each answer
/// is a native size_t with the length of the text that follows, counting
/// the text's closing NUL. A connection may send one command after another
/// (the interactive client does); each is answered before the next is
/// read. The answers come from \a answer on the loop's thread, at once
/// or later (a command that changes a map answers once it is carried
/// out); the socket only frames them, bounds them and says who asks: root
/// (by SO_PEERCRED) or not.
class MultipathdSocket {
public:
    static constexpr const char *kName = "/org/kernel/linux/storage/multipathd";
    /// A command longer than this is refused and its connection closed:
    /// no command of the protocol comes near it.
    static constexpr size_t kMaxCommand = 64 * 1024;
    /// Connections open at once; a further one is closed at once.
    static constexpr size_t kMaxConnections = 64;
    /// A connection that sends nothing for this long is closed; a command
    /// or an answer half sent counts as nothing sent.
    static constexpr std::chrono::seconds kIdle{60};

    /// Answers what a caller asked, and whether it runs as root, by
    /// calling \a reply once, on the loop, now or later.
    using Reply = std::function<void(std::string answer)>;
    using Answer = std::function<void(const std::string &command, bool root, Reply reply)>;

    MultipathdSocket(mpath::sys::EventLoop &loop, Answer answer);
    ~MultipathdSocket();
    MultipathdSocket(const MultipathdSocket &) = delete;
    MultipathdSocket &operator=(const MultipathdSocket &) = delete;

    /// Listens on the abstract name \a name (without its leading NUL).
    /// EADDRINUSE: another daemon (multipathd) answers there already.
    mpath::Result<void> start(const std::string &name = kName);

    /// Connections open now.
    size_t connections() const { return connections_.size(); }

private:
    struct Connection;
    void accept();
    void readFrom(Connection &c);
    /// Answers the first whole command \a c sent, if there is one.
    void serve(Connection &c);
    void send(Connection &c, const std::string &reply);
    void writeTo(Connection &c);
    void close(Connection &c);
    void idle(Connection &c);

    mpath::sys::EventLoop &loop_;
    Answer answer_;
    int listenFd_{-1};
    mpath::sys::EventLoop::SourcePtr acceptSource_;
    std::vector<std::unique_ptr<Connection>> connections_;
};

} // namespace mpathd
