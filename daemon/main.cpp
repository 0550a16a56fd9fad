// mpathd: assembles multipath maps from the paths udev reports, keeps them
// healthy with path checkers, and adopts the maps it finds at start.

#include "bus_endpoints.h"
#include "bus_service.h"
#include "daemon.h"
#include "log.h"
#include "multipathd_commands.h"
#include "multipathd_socket.h"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <mpath/sys/device_mapper_lib.h>
#include <mpath/sys/file.h>
#include <mpath/sys/sd_event_loop.h>
#include <mpath/sys/udev_lib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <unistd.h>

namespace {

/// Takes \a path's lock for this process's life: one mpathd at a time per
/// private socket. \return false, with the reason, when another has it.
bool singleInstance(const std::string &path, std::string &why) {
    if (auto r = mpath::sys::makeDirectories(mpath::sys::directoryOf(path)); !r) {
        why = r.error().message;
        return false;
    }
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        why = path + ": " + strerror(errno);
        return false;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = {};
        const ssize_t n = ::pread(fd, pid, sizeof(pid) - 1, 0);
        std::string who = n > 0 ? std::string(pid, static_cast<size_t>(n)) : std::string("?");
        who.erase(who.find_last_not_of("\n ") + 1);
        why = "another mpathd (pid " + who + ") is running: " + path + " is locked";
        ::close(fd);
        return false;
    }
    const std::string me = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) < 0)
        mpathd::logWarning({}, path + ": cannot write the pid: " + strerror(errno));
    return true; // the descriptor stays open, and the lock with it
}

/// Keeps the daemon's memory resident: with a root file system on a
/// multipath device, a page fault during a failover could wait on the very
/// I/O the daemon must unblock (multipathd locks its memory too). Only
/// pages used are locked: threads' stacks are not all taken at once.
void lockMemory() {
    if (::mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0)
        return;
    if (errno == EINVAL && ::mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
        return;
    mpathd::logWarning({}, std::string("cannot lock the daemon's memory: ") + strerror(errno) +
                               "; it may be paged out");
}

/// Whether the kernel has dm-lmpath, or can load it on first use (not when
/// the package's modprobe.d file fell back to the stock module), and
/// whether it also answers to "multipath": the module says so in its
/// alias_multipath parameter, which reads Y only while the alias is
/// registered.
mpathd::LmpathPresence lmpathPresence() {
    using mpathd::LmpathPresence;
    if (::access("/sys/module/dm_lmpath", F_OK) == 0) {
        auto alias = mpath::sys::readFile("/sys/module/dm_lmpath/parameters/alias_multipath", 16);
        return alias && alias->starts_with('Y') ? LmpathPresence::AsMultipath : LmpathPresence::Own;
    }
    struct utsname u {};
    if (::uname(&u) != 0)
        return LmpathPresence::Absent;
    auto deps =
        mpath::sys::readFile(std::string("/lib/modules/") + u.release + "/modules.dep", 64 << 20);
    if (!deps || deps->find("/dm-lmpath.ko") == std::string::npos)
        return LmpathPresence::Absent;
    // dm-lmpath-dkms' modprobe.d file loads dm-lmpath for every load of
    // dm_multipath, and the stock module only when dm-lmpath cannot load
    // (Secure Boot without the DKMS key, for one): tables naming lmpath
    // would then fail to load.
    if (::access("/sys/module/dm_multipath", F_OK) == 0 &&
        ::access("/lib/modprobe.d/dm-lmpath.conf", F_OK) == 0)
        return LmpathPresence::Absent;
    return LmpathPresence::Own;
}

int onSignal(sd_event_source *, const struct signalfd_siginfo *si, void *data) {
    auto *d = static_cast<std::pair<mpathd::Daemon *, mpath::sys::SdEventLoop *> *>(data);
    if (si->ssi_signo == SIGHUP) {
        mpathd::logNotice({}, "SIGHUP: reading the configuration again");
        d->first->reconfigure(); // errors are logged
        return 0;
    }
    mpathd::logNotice({}, "stopping");
    auto *loop = d->second;
    d->first->stop([loop] { loop->exit(0); });
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    // Blocked before any thread starts (the executor's workers inherit the
    // mask): the loop takes these signals, never a worker.
    sigset_t mask;
    sigemptyset(&mask);
    for (int s : {SIGTERM, SIGINT, SIGHUP})
        sigaddset(&mask, s);
    pthread_sigmask(SIG_BLOCK, &mask, nullptr);

    CLI::App app{"mpathd: multipath maps from the paths udev reports, kept healthy"};
    int verbose = 0;
    std::string root = "/";
    std::string sysfs = "/sys";
    std::string busSocket = mpathd::BusEndpoints::kSocket;
    std::string multipathdSocket = mpathd::MultipathdSocket::kName;
    app.add_flag("-v,--verbose", verbose, "more detail in the log (-v info, -vv debug)");
    app.add_option("--root", root,
                   "look for configuration, bindings and wwids files below this folder")
        ->check(CLI::ExistingDirectory);
    app.add_option("--sysfs", sysfs, "the sysfs tree to describe devices from")
        ->check(CLI::ExistingDirectory);
    app.add_option("--bus-socket", busSocket,
                   "the private D-Bus socket for root, answering with no system bus");
    app.add_option("--multipathd-socket", multipathdSocket,
                   "the abstract socket name where multipath-tools' clients send commands "
                   "(\"\" for none)");
    app.set_version_flag("--version", std::string("mpathd ") + MPATHD_VERSION);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        return app.exit(e);
    }
    // -v decides over the configuration's verbosity; without it,
    // verbosity does once the configuration is read.
    if (verbose > 0)
        mpathd::Log::setup(verbose >= 2 ? mpathd::Level::Debug : mpathd::Level::Info);
    else
        mpathd::Log::setupDefault(mpathd::Level::Notice);
    std::string why;
    if (!singleInstance(busSocket + ".lock", why)) {
        mpathd::logError({}, "not starting: " + why);
        mpathd::Log::flush(std::chrono::seconds(1));
        return 1;
    }
    lockMemory();
    // libdevmapper's own messages repeat what the daemon reports.
    mpath::sys::DeviceMapperLib::setLogHandler(
        [](int, const std::string &m) { mpathd::logDebug({}, "libdevmapper: " + m); });

    auto loop = mpath::sys::SdEventLoop::create();
    if (!loop) {
        mpathd::logError({}, loop.error().message);
        return 1;
    }
    auto udev = mpath::sys::UdevLib::create();
    if (!udev) {
        mpathd::logError({}, udev.error().message);
        return 1;
    }
    mpathd::Environment env;
    env.loop = loop->get();
    env.udev = udev->get();
    env.dm = std::make_shared<mpath::sys::DeviceMapperLib>();
    env.root = root;
    env.sysfsRoot = sysfs;
    env.notify = [](const std::string &s) { (void)sd_notify(0, s.c_str()); };
    env.lmpathPresence = &lmpathPresence;
    mpathd::Daemon daemon(std::move(env));
    mpathd::BusService service(daemon);

    std::pair<mpathd::Daemon *, mpath::sys::SdEventLoop *> ctx{&daemon, loop->get()};
    sd_event *e = (*loop)->event();
    for (int s : {SIGTERM, SIGINT, SIGHUP})
        if (int r = sd_event_add_signal(e, nullptr, s, onSignal, &ctx); r < 0) {
            mpathd::logError({}, std::string("cannot watch signals: ") + strerror(-r));
            return 1;
        }
    // Pings systemd's watchdog from the loop, when the unit asks for one.
    (void)sd_event_set_watchdog(e, 1);

    if (auto r = daemon.start(); !r) {
        mpathd::logError({}, r.error().message);
        sd_notifyf(0, "STATUS=failed to start: %s\nERRNO=%d", r.error().message.c_str(),
                   r.error().code);
        mpathd::Log::flush(std::chrono::seconds(1));
        return 1;
    }
    mpathd::BusEndpoints endpoints(service, e);
    if (auto r = endpoints.start(busSocket); !r) {
        mpathd::logError({}, r.error().message);
        return 1;
    }
    // Programs linked with multipath-tools' libmpathcmd ask here. The
    // daemon works without it: a name taken (multipathd runs) is said.
    mpathd::MultipathdCommands commands(daemon, service, [&daemon, &loop] {
        mpathd::logNotice({}, "stopping");
        auto *l = loop->get();
        daemon.stop([l] { l->exit(0); });
    });
    mpathd::MultipathdSocket legacy(
        **loop, [&commands](const std::string &c, bool root, mpathd::MultipathdSocket::Reply r) {
            commands.answer(c, root, std::move(r));
        });
    if (!multipathdSocket.empty()) {
        if (auto r = legacy.start(multipathdSocket); !r)
            mpathd::logWarning({},
                               "multipath-tools' command socket not served: " + r.error().message);
    }
    auto rc = (*loop)->run();
    if (!rc) {
        mpathd::logError({}, rc.error().message);
        mpathd::Log::flush(std::chrono::seconds(1));
        return 1;
    }
    // Checks stuck in the kernel are not waited for; the log is, a little.
    mpathd::Log::flush(std::chrono::seconds(1));
    std::_Exit(*rc);
}
