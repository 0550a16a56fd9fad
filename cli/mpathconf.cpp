// mpathconf, as Red Hat's tools and libblockdev's mpath plugin run it: with
// no option it says how multipath is set up; --user_friendly_names,
// --find_multipaths, --enable and --disable change /etc/multipath.conf in
// place (every other line kept); --with_multipathd y makes mpathd read it
// again. libblockdev's plugin does not load without an mpathconf on PATH
// (its dependency check), and its set_friendly_names runs
// "mpathconf --find_multipaths y --user_friendly_names y|n --with_multipathd y".
// An edit that would leave a file multipath-tools refuses is not written.

#include "mpath/config/edit.h"
#include "mpath/config/parser.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <getopt.h>
#include <optional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

namespace config = mpath::config;

void usage(const char *name) {
    std::fprintf(stderr,
                 "Usage: %s [--enable|--disable] [--user_friendly_names y|n]\n"
                 "          [--find_multipaths y|n|strict|greedy|smart] [--with_module y|n]\n"
                 "          [--with_multipathd y|n] [--outfile FILE]\n"
                 "With no option, says how multipath is set up. Changes /etc/multipath.conf\n"
                 "in place; mpathd (mpathd.service, also multipathd.service) serves the maps.\n",
                 name);
}

/// "y"/"yes" or "n"/"no"; nothing for anything else.
std::optional<bool> yesNo(const char *s) {
    const std::string v = s;
    if (v == "y" || v == "yes")
        return true;
    if (v == "n" || v == "no")
        return false;
    return std::nullopt;
}

/// Runs \a argv, its output left as it is; true when it exits 0.
bool run(std::vector<const char *> argv) {
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        ::execvp(argv[0], const_cast<char *const *>(argv.data()));
        std::fprintf(stderr, "mpathconf: cannot run %s: %s\n", argv[0], std::strerror(errno));
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool quietRun(const std::string &command) {
    return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

bool readFile(const std::string &path, std::string &text, bool &exists) {
    std::ifstream in(path);
    if (!in) {
        exists = false;
        text.clear();
        return errno == ENOENT;
    }
    exists = true;
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
    return !in.bad();
}

/// Writes \a text to \a path (through a symlink, to the file it names)
/// with a file beside it and a rename, keeping the mode and owner of the
/// file replaced (\a mode for a new one); says why not on stderr.
bool writeFile(const std::string &given, const std::string &text, mode_t mode) {
    std::string path = given;
    if (char *real = ::realpath(given.c_str(), nullptr)) {
        path = real;
        std::free(real);
    }
    struct stat old {};
    const bool replacing = ::stat(path.c_str(), &old) == 0;
    const std::string tmp = path + ".mpathconf-new";
    ::unlink(tmp.c_str()); // a leftover, or something planted there
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        std::fprintf(stderr, "mpathconf: cannot write %s: %s\n", tmp.c_str(), std::strerror(errno));
        return false;
    }
    auto failed = [&](const char *what) {
        std::fprintf(stderr, "mpathconf: cannot %s %s: %s\n", what, path.c_str(),
                     std::strerror(errno));
        ::close(fd);
        ::unlink(tmp.c_str());
        return false;
    };
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return failed("write");
        done += static_cast<size_t>(n);
    }
    if (replacing && ::fchown(fd, old.st_uid, old.st_gid) != 0)
        return failed("keep the owner of");
    if (::fchmod(fd, replacing ? (old.st_mode & 07777) : mode) != 0)
        return failed("keep the mode of");
    if (::fsync(fd) != 0)
        return failed("write");
    if (::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
        std::fprintf(stderr, "mpathconf: cannot write %s: %s\n", path.c_str(),
                     std::strerror(errno));
        ::unlink(tmp.c_str());
        return false;
    }
    return true;
}

bool serviceActive() {
    return quietRun("systemctl is-active --quiet mpathd.service");
}

/// What Red Hat's mpathconf says with no option, from the file and the
/// system.
void status(const std::string &text) {
    const config::ConfigResult parsed = config::parseString(text, "multipath.conf");
    bool blacklistsAll = false;
    config::allowAllDevices(text, blacklistsAll);
    std::printf("multipath is %s\n", blacklistsAll ? "disabled" : "enabled");
    const auto globals = parsed.config.effectiveGlobals();
    std::printf("find_multipaths is %s\n",
                std::string(config::toString(globals.findMultipaths.value)).c_str());
    const auto settings = parsed.config.effective("", "", "", "");
    std::printf("user_friendly_names is %s\n",
                settings.userFriendlyNames.value ? "enabled" : "disabled");
    for (const char *module : {"dm_multipath", "dm_lmpath"}) {
        struct stat st {};
        const bool loaded = ::stat(("/sys/module/" + std::string(module)).c_str(), &st) == 0;
        std::printf("%s module is %s\n", module, loaded ? "loaded" : "not loaded");
    }
    std::printf("multipathd is %s\n", serviceActive() ? "running" : "not running");
}

} // namespace

int main(int argc, char **argv) {
    enum { Enable = 1, Disable, Ufn, Find, Module, Daemon, Outfile, Help };
    static const option options[] = {
        {"enable", no_argument, nullptr, Enable},
        {"disable", no_argument, nullptr, Disable},
        {"user_friendly_names", required_argument, nullptr, Ufn},
        {"find_multipaths", required_argument, nullptr, Find},
        {"with_module", required_argument, nullptr, Module},
        {"with_multipathd", required_argument, nullptr, Daemon},
        {"outfile", required_argument, nullptr, Outfile},
        {"help", no_argument, nullptr, Help},
        {nullptr, 0, nullptr, 0},
    };
    bool enable = false, disable = false;
    std::optional<bool> ufn, withModule, withDaemon;
    std::optional<std::string> find, outfile;
    opterr = 0;
    int opt;
    while ((opt = ::getopt_long_only(argc, argv, ":", options, nullptr)) != -1) {
        // The option as given, for messages ("--with_multipathd").
        std::string given = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
        for (const option &o : options)
            if (o.name && o.val == opt)
                given = std::string("--") + o.name;
        switch (opt) {
        case Enable:
            enable = true;
            break;
        case Disable:
            disable = true;
            break;
        case Ufn:
        case Module:
        case Daemon: {
            const auto v = yesNo(optarg);
            if (!v) {
                std::fprintf(stderr, "mpathconf: %s takes y or n, not '%s'\n", given.c_str(),
                             optarg);
                return 1;
            }
            (opt == Ufn ? ufn : opt == Module ? withModule : withDaemon) = v;
            break;
        }
        case Find: {
            std::string v = optarg;
            if (v == "y")
                v = "yes";
            else if (v == "n")
                v = "no";
            if (!mpath::valueOf(config::kFindMultipathsNames, v)) {
                std::fprintf(stderr,
                             "mpathconf: --find_multipaths takes y, n, strict, greedy or smart, "
                             "not '%s'\n",
                             optarg);
                return 1;
            }
            find = v;
            break;
        }
        case Outfile:
            outfile = optarg;
            break;
        case Help:
            usage(argv[0]);
            return 0;
        case ':':
            std::fprintf(stderr, "mpathconf: %s needs a value\n", given.c_str());
            return 1;
        default:
            std::fprintf(stderr,
                         "mpathconf: %s is not served by mpath's mpathconf; edit "
                         "/etc/multipath.conf (mpathctl config check verifies it)\n",
                         given.c_str());
            usage(argv[0]);
            return 1;
        }
    }
    if (optind < argc) {
        std::fprintf(stderr, "mpathconf: unexpected argument '%s'\n", argv[optind]);
        usage(argv[0]);
        return 1;
    }
    if (enable && disable) {
        std::fprintf(stderr, "mpathconf: --enable and --disable cannot both be given\n");
        return 1;
    }

    const char *env = std::getenv("MPATH_MULTIPATH_CONF");
    const std::string file = env && *env ? env : "/etc/multipath.conf";
    std::string text;
    bool exists = false;
    if (!readFile(file, text, exists)) {
        std::fprintf(stderr, "mpathconf: cannot read %s: %s\n", file.c_str(), std::strerror(errno));
        return 1;
    }
    const bool edits = enable || disable || ufn || find || outfile;
    if (!edits && !withModule && !withDaemon) {
        status(text);
        return 0;
    }

    if (edits) {
        // As Red Hat's: --enable without a file writes a default one.
        std::string edited =
            !exists && enable ? "defaults {\n\tuser_friendly_names yes\n\tfind_multipaths yes\n}\n"
                              : text;
        if (enable) {
            bool removed = false;
            edited = config::allowAllDevices(edited, removed);
        }
        if (disable)
            edited = config::blacklistAllDevices(edited);
        if (find)
            edited = config::setDefault(edited, "find_multipaths", *find);
        if (ufn)
            edited = config::setDefault(edited, "user_friendly_names", *ufn ? "yes" : "no");
        const config::ConfigResult parsed = config::parseString(edited, file);
        if (parsed.hasErrors()) {
            std::fprintf(stderr, "mpathconf: %s left unchanged: it would be refused:\n",
                         file.c_str());
            for (const auto &d : parsed.diagnostics)
                if (d.severity == config::Diagnostic::Severity::Error)
                    std::fprintf(stderr, "  %s\n", d.toString().c_str());
            return 1;
        }
        const std::string out = outfile.value_or(file);
        if (edited != text || !exists || out != file) {
            struct stat st {};
            const mode_t mode = ::stat(file.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
            if (!writeFile(out, edited, mode))
                return 1;
        }
    }

    bool ok = true;
    if (withModule && *withModule && !run({"modprobe", "dm-lmpath"}) &&
        !run({"modprobe", "dm-multipath"})) {
        std::fprintf(stderr, "mpathconf: neither dm-lmpath nor dm-multipath could be loaded\n");
        ok = false;
    }
    // As Red Hat's: y starts or reloads the daemon after the change, and
    // stops it with --disable; n leaves it alone.
    if (withDaemon && *withDaemon) {
        if (::access("/run/systemd/system", F_OK) != 0) {
            std::fprintf(stderr,
                         "mpathconf: systemd does not run here: mpathd reads %s when it starts\n",
                         file.c_str());
            ok = false;
        } else {
            const char *action = disable ? "stop" : serviceActive() ? "reload" : "start";
            if (!run({"systemctl", action, "mpathd.service"})) {
                std::fprintf(stderr, "mpathconf: systemctl %s mpathd.service failed\n", action);
                ok = false;
            }
        }
    }
    return ok ? 0 : 1;
}
