// mpathd: assembles multipath maps from the paths udev reports, keeps them
// healthy with path checkers, and adopts the maps it finds at start.

#include "bus_endpoints.h"
#include "bus_service.h"
#include "daemon.h"
#include "log.h"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstring>
#include <iostream>
#include <mpath/sys/device_mapper_lib.h>
#include <mpath/sys/file.h>
#include <mpath/sys/sd_event_loop.h>
#include <mpath/sys/udev_lib.h>
#include <sys/utsname.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <unistd.h>

namespace {

/// Whether the kernel has dm-lmpath, or can load it on first use.
bool lmpathAvailable() {
    if (::access("/sys/module/dm_lmpath", F_OK) == 0)
        return true;
    struct utsname u {};
    if (::uname(&u) != 0)
        return false;
    auto deps =
        mpath::sys::readFile(std::string("/lib/modules/") + u.release + "/modules.dep", 64 << 20);
    return deps && deps->find("/dm-lmpath.ko") != std::string::npos;
}

int onSignal(sd_event_source *, const struct signalfd_siginfo *si, void *data) {
    auto *d = static_cast<std::pair<mpathd::Daemon *, mpath::sys::SdEventLoop *> *>(data);
    if (si->ssi_signo == SIGHUP) {
        mpathd::logNotice({}, "SIGHUP: reading the configuration again");
        (void)d->first->reconfigure(); // errors are logged
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
    app.add_flag("-v,--verbose", verbose, "more detail in the log (-v info, -vv debug)");
    app.add_option("--root", root,
                   "look for configuration, bindings and wwids files below this folder")
        ->check(CLI::ExistingDirectory);
    app.add_option("--sysfs", sysfs, "the sysfs tree to describe devices from")
        ->check(CLI::ExistingDirectory);
    app.add_option("--bus-socket", busSocket,
                   "the private D-Bus socket for root, answering with no system bus");
    app.set_version_flag("--version", std::string("mpathd ") + MPATHD_VERSION);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        return app.exit(e);
    }
    mpathd::Log::setup(verbose >= 2   ? mpathd::Level::Debug
                       : verbose == 1 ? mpathd::Level::Info
                                      : mpathd::Level::Notice);
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
    env.lmpathAvailable = &lmpathAvailable;
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
        return 1;
    }
    mpathd::BusEndpoints endpoints(service, e);
    if (auto r = endpoints.start(busSocket); !r) {
        mpathd::logError({}, r.error().message);
        return 1;
    }
    auto rc = (*loop)->run();
    if (!rc) {
        mpathd::logError({}, rc.error().message);
        return 1;
    }
    // Checks stuck in the kernel are not waited for.
    std::_Exit(*rc);
}
