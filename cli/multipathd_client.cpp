// multipathd, as programs written for multipath-tools run it to ask the
// daemon something: `multipathd show maps json`, `multipathd -k"show
// paths"`, or `multipathd -k` to type commands. It sends the command on
// multipath-tools' command socket, which mpathd answers
// (daemon/multipathd_socket.h), and prints the answer as multipath-tools'
// client does: as it came, exit status 1 exactly when the answer is
// "fail". It starts no daemon: mpathd does that job (mpathd.service).

#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <getopt.h>
#include <optional>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

/// Where multipath-tools' programs ask (libmpathcmd's DEFAULT_SOCKET).
constexpr const char *kSocket = "/org/kernel/linux/storage/multipathd";
/// multipath-tools' client takes commands of at most this many bytes.
constexpr size_t kMaxCommand = 160;
/// How long each part of an answer may take: multipath-tools' default
/// uxsock_timeout, and the 100 ms its client adds.
constexpr int kTimeoutMs = 4000 + 100;
/// The longest answer libmpathcmd takes.
constexpr size_t kMaxReply = 32 * 1024 * 1024;

void usage(const char *name) {
    std::fprintf(stderr,
                 "Usage: %s COMMAND...\n"
                 "       %s -k\"COMMAND\"\n"
                 "       %s -k          (commands typed, one per line)\n"
                 "Asks mpathd, which serves multipath devices here in multipathd's place,\n"
                 "as multipath-tools' multipathd client asks multipathd: 'show maps json',\n"
                 "'show topology', 'fail path sdb', ... ('help' lists them).\n",
                 name, name, name);
}

/// A connection to the daemon's command socket.
class Connection {
public:
    Connection() = default;
    ~Connection() {
        if (fd_ >= 0)
            ::close(fd_);
    }
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    /// \return 0, or the errno of the failure
    int open(const std::string &name) {
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

    /// Sends \a command framed as libmpathcmd frames it.
    bool send(const std::string &command) {
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

    /// The answer, or the errno of the failure (ETIMEDOUT, EIO, ERANGE).
    std::pair<std::optional<std::string>, int> receive() {
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

private:
    int read(void *buf, size_t len) {
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

    int fd_{-1};
};

/// What came of asking.
enum class Asked { Answered, Failed, Lost };

/// Asks \a command and prints the answer, or what went wrong in
/// multipath-tools' client's words.
Asked ask(Connection &c, const std::string &command) {
    if (!c.send(command)) {
        std::printf("cannot send packet\n");
        return Asked::Lost;
    }
    auto [reply, error] = c.receive();
    if (!reply) {
        if (error == ETIMEDOUT)
            std::printf("timeout receiving packet\n");
        else
            std::printf("error %d receiving packet\n", -error);
        return Asked::Lost;
    }
    std::fputs(reply->c_str(), stdout);
    std::fflush(stdout);
    return *reply == "fail\n" ? Asked::Failed : Asked::Answered;
}

} // namespace

int main(int argc, char **argv) {
    bool interactive = false;
    std::optional<std::string> given;
    int opt;
    opterr = 0;
    // multipath-tools' options; those that run the daemon (-d, -s, -v,
    // -B, -n, -w) are taken and do nothing to a command.
    while ((opt = ::getopt(argc, argv, ":dsv:k::Bniwh")) != -1) {
        switch (opt) {
        case 'k':
            // As multipath-tools': "-kCOMMAND" sends it; "-k" alone reads
            // commands, whatever words follow.
            if (optarg)
                given = optarg;
            else
                interactive = true;
            break;
        case 'v':
            if (!std::isdigit(static_cast<unsigned char>(optarg[0]))) {
                std::fprintf(stderr, "Invalid verbosity '%s'\n", optarg);
                return 1;
            }
            break;
        case 'd':
        case 's':
        case 'B':
        case 'n':
        case 'i':
        case 'w':
            break;
        case 'h':
            usage(argv[0]);
            return 0;
        default:
            std::fprintf(stderr, "Invalid argument '-%c'\n", optopt);
            usage(argv[0]);
            return 1;
        }
    }
    std::string command;
    if (given) {
        command = *given;
    } else if (!interactive && optind < argc) {
        // As multipath-tools' client builds it: each word and a blank, a
        // word with a blank in quotes, a newline last.
        for (int i = optind; i < argc; ++i) {
            const std::string word = argv[i];
            command += word.find(' ') != std::string::npos ? "\"" + word + "\" " : word + " ";
        }
        if (command.size() >= kMaxCommand) {
            std::fprintf(stderr, "multipathd command too large\n");
            return 1;
        }
        command += "\n";
    } else if (!interactive) {
        std::fprintf(stderr,
                     "%s: this system runs mpathd in multipathd's place, as the service "
                     "mpathd.service; this program only asks it. Give a command ('%s show "
                     "maps'), or use mpathctl.\n",
                     argv[0], argv[0]);
        return 1;
    }

    const char *name = std::getenv("MPATH_MULTIPATHD_SOCKET");
    Connection c;
    if (int e = c.open(name && *name ? name : kSocket)) {
        // multipath-tools' client says nothing here; a word on stderr
        // leaves what scripts read unchanged.
        std::fprintf(stderr, "%s: cannot reach the daemon at @%s: %s (is mpathd running?)\n",
                     argv[0], name && *name ? name : kSocket, std::strerror(e));
        return 1;
    }
    if (!interactive)
        return ask(c, command) == Asked::Answered ? 0 : 1;

    const bool tty = ::isatty(STDIN_FILENO);
    char *buf = nullptr;
    size_t cap = 0;
    int rc = 0;
    for (;;) {
        if (tty) {
            std::fputs("multipathd> ", stdout);
            std::fflush(stdout);
        }
        const ssize_t n = ::getline(&buf, &cap, stdin);
        if (n < 0)
            break;
        std::string line(buf, static_cast<size_t>(n));
        if (!line.empty() && line.back() == '\n')
            line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos)
            continue;
        const std::string word = line.substr(first, line.find_first_of(" \t", first) - first);
        if (word == "quit" || word == "exit")
            break;
        if (ask(c, line) == Asked::Lost) {
            rc = 1;
            break;
        }
    }
    std::free(buf);
    if (tty)
        std::fputs("\n", stdout);
    return rc;
}
