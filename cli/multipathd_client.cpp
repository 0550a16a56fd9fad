// multipathd, as programs written for multipath-tools run it to ask the
// daemon something: `multipathd show maps json`, `multipathd -k"show
// paths"`, or `multipathd -k` to type commands. It sends the command on
// multipath-tools' command socket, which mpathd answers
// (daemon/multipathd_socket.h), and prints the answer as multipath-tools'
// client does: as it came, exit status 1 exactly when the answer is
// "fail". It starts no daemon: mpathd does that job (mpathd.service).

#include "multipathd_socket_client.h"

#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <getopt.h>
#include <string>
#include <unistd.h>

namespace {

/// multipath-tools' client takes commands of at most this many bytes.
constexpr size_t kMaxCommand = 160;

void usage(const char *name) {
    std::fprintf(stderr,
                 "mpath " MPATH_VERSION ": multipath-tools v" MPATH_COMPAT_LEVEL
                 " commands, served by mpathd\n"
                 "Usage: %s COMMAND...\n"
                 "       %s -k\"COMMAND\"\n"
                 "       %s -k          (commands typed, one per line)\n"
                 "Asks mpathd, which serves multipath devices here in multipathd's place,\n"
                 "as multipath-tools' multipathd client asks multipathd: 'show maps json',\n"
                 "'show topology', 'fail path sdb', ... ('help' lists them).\n",
                 name, name, name);
}

/// What came of asking.
enum class Asked { Answered, Failed, Lost };

/// Asks \a command and prints the answer, or what went wrong in
/// multipath-tools' client's words.
Asked ask(mpathcompat::Connection &c, const std::string &command) {
    auto reply = c.ask(command);
    if (!reply)
        return Asked::Lost;
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

    const std::string name = mpathcompat::socketName();
    mpathcompat::Connection c;
    if (int e = c.open(name)) {
        // multipath-tools' client says nothing here; a word on stderr
        // leaves what scripts read unchanged.
        std::fprintf(stderr, "%s: cannot reach the daemon at @%s: %s (is mpathd running?)\n",
                     argv[0], name.c_str(), std::strerror(e));
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
