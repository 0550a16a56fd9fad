// multipath, as programs written for multipath-tools run it: `multipath
// -ll` to list the maps (installers, os-brick, admins' scripts parse it),
// `-f MAP` and `-F` to flush, `-r` after editing multipath.conf. mpathd
// makes and keeps the maps; this program asks it, on multipath-tools'
// command socket, what multipath-tools' multipath asks multipathd or
// reads from the kernel itself. Options it does not serve yet are refused
// with a message that says what to use instead, never silently ignored.

#include "config_file.h"
#include "is_path_command.h"
#include "multipath_wwids.h"
#include "multipathd_socket_client.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <getopt.h>
#include <mpath/config/writer.h>
#include <mpath/policy/blacklist.h>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

void usage(const char *name) {
    std::fprintf(stderr,
                 "mpath " MPATH_VERSION ": multipath-tools v" MPATH_COMPAT_LEVEL
                 " commands, served by mpathd\n"
                 "Usage: %s -ll|-l [DEVICE]   list the maps (DEVICE: a map's name or WWID,\n"
                 "                              its node, or a path's: /dev/sdb, 8:16)\n"
                 "       %s -f MAP            remove a map that is not in use\n"
                 "       %s -F                remove every map that is not in use\n"
                 "       %s -r                read the configuration again\n"
                 "       %s -c DEVICE         whether DEVICE is a multipath path (-u: under udev)\n"
                 "       %s -t                the configuration as it applies\n"
                 "       %s -a|-w DEVICE      add DEVICE's WWID to the wwids file, or remove it\n"
                 "       %s -W                the wwids file lists the maps present, no other\n"
                 "       %s -C|-U MAP         whether the map has a usable path (exit 0)\n"
                 "mpathd serves multipath devices here in multipathd's place; this program\n"
                 "asks it as multipath-tools' multipath does. mpathctl does the rest.\n",
                 name, name, name, name, name, name, name, name, name);
}

/// What mpathctl does where this program does not serve an option yet.
const char *instead(char option) {
    switch (option) {
    case 'd':
        return "mpathctl plan";
    case 'T':
        return "mpathctl config show";
    default:
        return "mpathctl";
    }
}

/// `-C DEVICE`, `-U DEVICE`: whether the multipath map DEVICE (its node,
/// /dev/mapper name or major:minor) has a path that can do I/O, as
/// is-ready decides it; exit 0 when it has. As multipath-tools', nothing is
/// said when it has; -U (udev) says nothing either way.
int usablePaths(std::string device, bool uevent) {
    // -U, as udev runs it: the device of the event.
    if (const char *env = std::getenv("DEVNAME"); uevent && env && *env)
        device = env;
    if (device.empty()) {
        std::fprintf(stderr, "the -%c option requires a device\n", uevent ? 'U' : 'C');
        return 1;
    }
    std::string node;
    unsigned ma = 0, mi = 0;
    char end = 0;
    std::error_code ec;
    if (std::sscanf(device.c_str(), "%u:%u%c", &ma, &mi, &end) == 2)
        node = std::filesystem::read_symlink("/sys/dev/block/" + device, ec).filename().string();
    else
        node = std::filesystem::canonical(device.starts_with("/") ? device : "/dev/" + device, ec)
                   .filename()
                   .string();
    std::ifstream nameFile("/sys/block/" + node + "/dm/name");
    std::string name;
    if (node.empty() || !std::getline(nameFile, name)) {
        if (!uevent)
            std::fprintf(stderr, "%s is not a dm device\n", device.c_str());
        return 1;
    }
    const mpathctl::Readiness r = mpathctl::mapReadiness(name);
    if (!r.ready && !uevent)
        std::fprintf(stderr, "%s: no usable paths found (%s)\n", device.c_str(), r.why.c_str());
    return r.ready ? 0 : 1;
}

class Multipath {
public:
    explicit Multipath(const char *program) : program_(program) {}

    /// Opens the connection; says why not on stderr.
    bool connect() {
        const std::string name = mpathcompat::socketName();
        if (int e = connection_.open(name)) {
            std::fprintf(stderr, "%s: cannot reach mpathd at @%s: %s (is mpathd running?)\n",
                         program_, name.c_str(), std::strerror(e));
            return false;
        }
        return true;
    }

    /// The daemon's answer to \a command; nothing when it could not be had.
    std::optional<std::string> ask(const std::string &command) { return connection_.ask(command); }

    /// `-ll`/`-l` [DEVICE]. \return the exit status
    int list(const std::string &device) {
        if (device.empty()) {
            auto topology = ask("show topology");
            if (!topology)
                return 1;
            print(*topology);
            return 0;
        }
        // As multipath-tools tells them apart: a device node (a map's or a
        // path's), major:minor, or else a map's name.
        const bool node = device.starts_with("/dev/");
        unsigned ma = 0, mi = 0;
        char end = 0;
        const bool devt = std::sscanf(device.c_str(), "%u:%u%c", &ma, &mi, &end) == 2;
        if (!devt) {
            auto map = ask("show map \"" + device + "\" topology");
            if (!map)
                return 1;
            if (*map != "fail\n" || !node) {
                print(*map == "fail\n" ? std::string("ok\n") : *map);
                return 0;
            }
        }
        // A path: the map it is in.
        const std::string dev = node ? device.substr(5) : device;
        auto paths = ask("show paths raw format \"%d|%D|%m\"");
        if (!paths)
            return 1;
        std::istringstream in(*paths);
        for (std::string line; std::getline(in, line);) {
            const auto a = line.find('|'), b = line.rfind('|');
            if (a == std::string::npos || a == b)
                continue;
            const std::string name = line.substr(0, a), number = line.substr(a + 1, b - a - 1),
                              owner = line.substr(b + 1);
            // A map not named yet cannot be asked for by name.
            if ((devt ? number : name) != dev || owner == "[orphan]" || owner == "[unknown]")
                continue;
            auto topology = ask("show map \"" + owner + "\" topology");
            if (!topology)
                return 1;
            if (*topology != "fail\n")
                print(*topology);
            return 0;
        }
        // As multipath-tools': a device in no map lists nothing.
        return 0;
    }

    /// `-f MAP`, `-F`, `-r`: \a command, and what failed said.
    int change(const std::string &command, const std::string &what) {
        auto reply = ask(command);
        if (!reply)
            return 1;
        if (*reply == "ok\n")
            return 0;
        std::fprintf(stderr, "%s: %s failed: %s", program_, what.c_str(),
                     *reply == "fail\n" ? "mpathd refused it (its log says why)\n"
                                        : reply->c_str());
        return 1;
    }

private:
    /// A listing as multipath-tools prints it: nothing for no map.
    static void print(const std::string &answer) {
        if (answer == "ok\n")
            return;
        std::fputs(answer.c_str(), stdout);
    }

    const char *program_;
    mpathcompat::Connection connection_;
};

} // namespace

int main(int argc, char **argv) {
    enum class Cmd {
        Create,
        List,
        FlushOne,
        FlushAll,
        ValidPath,
        AddWwid,
        RemoveWwid,
        ResetWwids,
        UsablePaths
    };
    Cmd cmd = Cmd::Create;
    bool reload = false;
    bool uevent = false;
    int opt;
    opterr = 0;
    // multipath-tools' options, all of them: those served below, those
    // that change nothing here, and those refused.
    while ((opt = ::getopt(argc, argv, ":adDcChl::eFfM:v:p:b:BrR:itTquUwW")) != -1) {
        switch (opt) {
        case 'l':
            cmd = Cmd::List;
            break;
        case 'f':
            cmd = Cmd::FlushOne;
            break;
        case 'F':
            cmd = Cmd::FlushAll;
            break;
        case 'c':
            cmd = Cmd::ValidPath;
            break;
        case 'u':
            cmd = Cmd::ValidPath;
            uevent = true;
            break;
        case 't': {
            // As multipath-tools': the configuration from the files, read
            // here (no daemon, no root), built-in device table included.
            mpath::config::ConfigResult result;
            if (mpathctl::loadConfig(std::nullopt, result) != 0)
                return 1;
            for (const auto &d : result.diagnostics)
                if (d.severity != mpath::config::Diagnostic::Severity::Info)
                    std::fprintf(stderr, "%s\n", d.toString().c_str());
            if (result.hasErrors())
                return 1;
            std::fputs(
                mpath::config::write(mpath::policy::BlacklistFilter::shownConfig(result.config))
                    .c_str(),
                stdout);
            return 0;
        }
        case 'a':
            cmd = Cmd::AddWwid;
            break;
        case 'C':
            cmd = Cmd::UsablePaths;
            break;
        case 'U':
            cmd = Cmd::UsablePaths;
            uevent = true;
            break;
        case 'w':
            cmd = Cmd::RemoveWwid;
            break;
        case 'W':
            cmd = Cmd::ResetWwids;
            break;
        case 'r':
            reload = true;
            break;
        case 'v':
            if (!std::isdigit(static_cast<unsigned char>(optarg[0]))) {
                usage(argv[0]);
                return 1;
            }
            break;
        case 'h':
            usage(argv[0]);
            return 0;
        // How multipath-tools' multipath finds, names or waits: mpathd's
        // configuration decides that, not this program's options.
        case 'b':
        case 'B':
        case 'D':
        case 'e':
        case 'i':
        case 'M':
        case 'q':
        case 'R':
            break;
        case ':':
            std::fprintf(stderr, "Missing option argument\n");
            usage(argv[0]);
            return 1;
        case '?':
            std::fprintf(stderr, "Unknown switch: -%c\n", optopt);
            usage(argv[0]);
            return 1;
        default:
            std::fprintf(stderr,
                         "%s: -%c is not served by mpath's multipath yet; %s does it with "
                         "mpathd\n",
                         argv[0], opt, instead(static_cast<char>(opt)));
            return 1;
        }
    }
    if (::getuid() != 0) {
        std::fprintf(stderr, "need to be root\n");
        return 1;
    }
    const std::string device = optind < argc ? argv[optind] : "";
    if (cmd == Cmd::ValidPath) {
        // The decision udev's rules take (mpathctl is-path), without the
        // daemon, in multipath-tools' words. -u takes the device from the
        // event, as udev runs it.
        if (device.empty() && !uevent) {
            std::fprintf(stderr, "the -c option requires a path to check\n");
            return 1;
        }
        std::string name = device;
        if (name.empty())
            if (const char *env = std::getenv("DEVNAME"))
                name = env;
        CLI::App app("multipath");
        mpathctl::IsPathCommand isPath(app);
        std::vector<std::string> args{"--multipath-tools", name, "is-path"};
        if (uevent)
            args.insert(args.begin(), "--uevent");
        try {
            app.parse(args); // CLI11 takes them last first
        } catch (const CLI::ParseError &e) {
            return app.exit(e);
        }
        return isPath.run();
    }
    // The wwids file, changed here as multipath-tools' multipath changes it
    // (udev's rules and mpathd read it at the path's next event).
    if (cmd == Cmd::AddWwid || cmd == Cmd::RemoveWwid) {
        if (device.empty()) {
            std::fprintf(stderr, "the %s option requires a device\n",
                         cmd == Cmd::AddWwid ? "-a" : "-w");
            return 1;
        }
        return mpathcompat::changeWwid(device, cmd == Cmd::AddWwid, argv[0]);
    }
    if (cmd == Cmd::ResetWwids)
        return mpathcompat::resetWwids(argv[0]);
    if (cmd == Cmd::UsablePaths)
        return usablePaths(device, uevent);
    if (cmd == Cmd::FlushOne && device.empty()) {
        std::fprintf(stderr, "the -f option requires a map name to remove\n");
        return 1;
    }
    if (cmd == Cmd::Create && !reload) {
        // mpathd makes the maps as paths appear; there is nothing to ask.
        std::fprintf(stderr,
                     "%s: mpathd makes the maps as their paths appear; 'multipath -ll' lists "
                     "them, 'mpathctl plan' shows what it would make\n",
                     argv[0]);
        return 0;
    }
    Multipath mp(argv[0]);
    if (!mp.connect())
        return 1;
    switch (cmd) {
    case Cmd::List:
        return mp.list(device);
    case Cmd::FlushOne:
        return mp.change("del map \"" + device + "\"", "removing " + device);
    case Cmd::FlushAll:
        return mp.change("del maps", "removing the maps");
    default:
        break;
    }
    return mp.change("reconfigure all", "reading the configuration again");
}
