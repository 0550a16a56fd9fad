// The private bus socket (/run/mpathd/bus): whoever connects is trusted as
// root, so root is all it lets in, whatever the socket file's mode says.

#include "bus_endpoints.h"
#include "bus_harness.h"
#include "bus_service.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <gtest/gtest.h>
#include <malloc.h>
#include <spawn.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <unistd.h>

extern char **environ;

namespace {

using namespace std::chrono_literals;

class PrivateSocket : public ::testing::Test {
protected:
    void SetUp() override {
        const auto dir = h_.dir().path();
        // Others may reach the socket file: only its mode or the daemon
        // keeps them out.
        std::filesystem::permissions(dir, std::filesystem::perms::owner_all |
                                              std::filesystem::perms::group_exec |
                                              std::filesystem::perms::others_exec);
        socket_ = (dir / "bus").string();
        // No system bus here: the endpoints wait for one that never comes.
        setenv("DBUS_SYSTEM_BUS_ADDRESS", ("unix:path=" + (dir / "no-system-bus").string()).c_str(),
               1);
        h_.config(mpathd_test::kConfig);
        h_.addDisk("sdb", 16, 1, mpathd_test::kMapA, "active/optimized");
        h_.addDisk("sdc", 32, 2, mpathd_test::kMapA, "standby");
        h_.start();
        h_.settle();
        ASSERT_GE(sd_event_new(&event_), 0);
        service_ = std::make_unique<mpathd::BusService>(h_.daemon());
        endpoints_ = std::make_unique<mpathd::BusEndpoints>(*service_, event_);
        auto r = endpoints_->start(socket_);
        ASSERT_TRUE(r) << r.error().message;
    }

    void TearDown() override {
        endpoints_.reset();
        service_.reset();
        sd_event_unref(event_);
        unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
    }

    /// Runs the endpoints' loop until \a done, at most 10 s.
    void runUntil(const std::function<bool()> &done) {
        for (int i = 0; i < 1000 && !done(); ++i)
            (void)sd_event_run(event_, 10000);
    }

    /// GetMaps as a peer of the socket, from this process (root).
    std::vector<std::string> mapsAsRoot() {
        auto f = std::async(std::launch::async, [this] {
            std::vector<std::string> out;
            sd_bus *b = nullptr;
            sd_bus_message *reply = nullptr;
            if (sd_bus_new(&b) >= 0 &&
                sd_bus_set_address(b, ("unix:path=" + socket_).c_str()) >= 0 &&
                sd_bus_start(b) >= 0 &&
                sd_bus_call_method(b, nullptr, "/org/mpathd/Multipath1/Manager",
                                   "org.mpathd.Multipath1.Manager", "GetMaps", nullptr, &reply,
                                   "a{sv}", 0) >= 0 &&
                sd_bus_message_enter_container(reply, 'a', "o") > 0) {
                const char *p = nullptr;
                while (sd_bus_message_read(reply, "o", &p) > 0)
                    out.push_back(p);
            }
            sd_bus_message_unref(reply);
            sd_bus_flush_close_unref(b);
            return out;
        });
        runUntil([&f] { return f.wait_for(0ms) == std::future_status::ready; });
        return f.get();
    }

    /// Connects as user nobody (setpriv, python3) and starts sd-bus's
    /// authentication.
    /// \return 0 when the daemon closed the connection, 1 when it accepted
    ///         the credentials, 2 on anything else
    int authenticateAsNobody() {
        static const char *const kScript =
            "import socket, sys\n"
            "s = socket.socket(socket.AF_UNIX)\n"
            "s.connect(sys.argv[1])\n"
            "s.settimeout(5)\n"
            "try:\n"
            "    s.sendall(b'\\0AUTH EXTERNAL 3635353334\\r\\n')\n" // uid "65534", hex
            "    d = s.recv(64)\n"
            "except (ConnectionResetError, BrokenPipeError):\n"
            "    d = b''\n"
            "except socket.timeout:\n"
            "    sys.exit(2)\n"
            "sys.exit(0 if d == b'' else 1 if d.startswith(b'OK') else 2)\n";
        std::vector<std::string> argv = {"/usr/bin/setpriv",
                                         "--reuid=65534",
                                         "--regid=65534",
                                         "--clear-groups",
                                         "/usr/bin/python3",
                                         "-c",
                                         kScript,
                                         socket_};
        std::vector<char *> a;
        for (auto &s : argv)
            a.push_back(s.data());
        a.push_back(nullptr);
        pid_t pid = -1;
        if (posix_spawn(&pid, a[0], nullptr, nullptr, a.data(), environ) != 0)
            return -1;
        int status = -1;
        runUntil([&] { return waitpid(pid, &status, WNOHANG) == pid; });
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    mpathd_test::DaemonHarness h_;
    std::string socket_;
    sd_event *event_{nullptr};
    std::unique_ptr<mpathd::BusService> service_;
    std::unique_ptr<mpathd::BusEndpoints> endpoints_;
};

TEST_F(PrivateSocket, RootIsAnsweredWithNoBusDaemon) {
    EXPECT_EQ(std::filesystem::status(socket_).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    EXPECT_EQ(mapsAsRoot(),
              std::vector<std::string>{mpathd::BusService::mapPath(mpathd_test::kMapA)});
}

TEST_F(PrivateSocket, AnotherUserIsRefusedEvenWhenTheSocketModeLetsThemIn) {
    // Someone loosened the mode (or handed the socket on): the daemon asks
    // the kernel who connected.
    std::filesystem::permissions(socket_, std::filesystem::perms::all);
    EXPECT_EQ(authenticateAsNobody(), 0) << "nobody was let in as root";
    EXPECT_TRUE(h_.logged("private bus: refused a connection from uid 65534")) << h_.logText();
    // Root still is.
    EXPECT_EQ(mapsAsRoot(),
              std::vector<std::string>{mpathd::BusService::mapPath(mpathd_test::kMapA)});
}

} // namespace

TEST_F(PrivateSocket, AClosedConnectionLeavesNothingBehind) {
    // mpathctl connects once per command: a daemon that kept a little of
    // each connection would grow for as long as it runs. (It kept the
    // whole connection once: about 5 kB per command.)
    for (int i = 0; i < 20; ++i) // the allocator's and sd-bus's first needs
        ASSERT_EQ(mapsAsRoot().size(), 1u);
    runUntil([this] { return endpoints_->peerCount() == 0; });
    const size_t before = mallinfo2().uordblks;
    constexpr int kConnections = 100;
    for (int i = 0; i < kConnections; ++i)
        ASSERT_EQ(mapsAsRoot().size(), 1u);
    runUntil([this] { return endpoints_->peerCount() == 0; });
    EXPECT_EQ(endpoints_->peerCount(), 0u);
    const size_t after = mallinfo2().uordblks;
    EXPECT_LT(after, before + kConnections * 1024)
        << "heap in use grew from " << before << " to " << after << " bytes over " << kConnections
        << " connections";
}

namespace {

/// The endpoints against a system bus (its own dbus-daemon) whose policy
/// has \a policy for mpathd's name.
class SystemBus : public ::testing::Test {
protected:
    void start(const std::string &policy) {
        const auto dir = h_.dir().path();
        const std::string address = "unix:path=" + (dir / "system_bus").string();
        mpath_test::writeFile(dir / "bus.conf",
                              "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus "
                              "Configuration 1.0//EN\"\n"
                              " \"http://www.freedesktop.org/standards/dbus/1.0/"
                              "busconfig.dtd\">\n"
                              "<busconfig><type>system</type><listen>" +
                                  address +
                                  "</listen><auth>EXTERNAL</auth>"
                                  "<policy context=\"default\"><allow user=\"*\"/>"
                                  "<allow send_destination=\"*\"/>"
                                  "<allow receive_sender=\"*\"/>" +
                                  policy + "</policy></busconfig>\n");
        startBus();
        setenv("DBUS_SYSTEM_BUS_ADDRESS", address.c_str(), 1);
        h_.config(mpathd_test::kConfig);
        h_.addDisk("sdb", 16, 1, mpathd_test::kMapA, "active/optimized");
        h_.start();
        h_.settle();
        ASSERT_GE(sd_event_new(&event_), 0);
        service_ = std::make_unique<mpathd::BusService>(h_.daemon());
        endpoints_ = std::make_unique<mpathd::BusEndpoints>(*service_, event_);
        auto r = endpoints_->start((dir / "bus").string());
        ASSERT_TRUE(r) << r.error().message;
    }

    void startBus() {
        const auto dir = h_.dir().path();
        std::filesystem::remove(dir / "system_bus");
        bus_ = mpathd_test::Child({"/usr/bin/dbus-daemon", "--nofork", "--nopidfile",
                                   "--config-file=" + (dir / "bus.conf").string()});
        ASSERT_TRUE(bus_.running());
        for (int i = 0; i < 200 && !std::filesystem::exists(dir / "system_bus"); ++i)
            std::this_thread::sleep_for(10ms);
    }

    void TearDown() override {
        endpoints_.reset();
        service_.reset();
        sd_event_unref(event_);
        unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
    }

    /// Whether this process owns mpathd's name on the bus (asked from a
    /// connection of its own).
    static bool owned() {
        sd_bus *b = nullptr;
        sd_bus_creds *c = nullptr;
        pid_t pid = 0;
        const bool yes =
            sd_bus_open_system(&b) >= 0 &&
            sd_bus_get_name_creds(b, mpathd::BusService::kBusName, SD_BUS_CREDS_PID, &c) >= 0 &&
            sd_bus_creds_get_pid(c, &pid) >= 0 && pid == getpid();
        sd_bus_creds_unref(c);
        sd_bus_flush_close_unref(b);
        return yes;
    }

    /// Runs the endpoints' loop until this process owns the name, at most
    /// \a ms milliseconds. \return how long it took, or -1
    long runUntilOwned(long ms) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto spent = [&t0] {
            return std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - t0)
                .count();
        };
        while (spent() < ms) {
            (void)sd_event_run(event_, 20000);
            if (owned())
                return spent();
        }
        return -1;
    }

    /// Runs the endpoints' loop until \a text is logged, at most 10 s.
    bool runUntilLogged(const std::string &text) {
        for (int i = 0; i < 1000 && !h_.logged(text); ++i)
            (void)sd_event_run(event_, 10000);
        return h_.logged(text);
    }

    mpathd_test::DaemonHarness h_;
    mpathd_test::Child bus_;
    sd_event *event_{nullptr};
    std::unique_ptr<mpathd::BusService> service_;
    std::unique_ptr<mpathd::BusEndpoints> endpoints_;
};

TEST_F(SystemBus, ANameTheBusRefusesIsSaidWithTheBusReason) {
    // sd-bus's own handler would close the connection and say why only at
    // debug level: the admin would read only "disconnected".
    start("<deny own=\"org.mpathd.Multipath1\"/>");
    EXPECT_TRUE(runUntilLogged("system bus: cannot own org.mpathd.Multipath1 "
                               "(org.freedesktop.DBus.Error.AccessDenied: "))
        << h_.logText();
    EXPECT_TRUE(h_.logged("connecting again in 10 s")) << h_.logText();
    EXPECT_FALSE(h_.logged("disconnected")) << "said once, with its reason\n" << h_.logText();
}

TEST_F(SystemBus, ANameAnotherProcessOwnsIsWaitedForAndSaid) {
    start("<allow own=\"*\"/>");
    sd_bus *other = nullptr;
    ASSERT_GE(sd_bus_open_system(&other), 0);
    ASSERT_GE(sd_bus_request_name(other, mpathd::BusService::kBusName, 0), 0);
    EXPECT_TRUE(runUntilLogged("system bus: another process owns org.mpathd.Multipath1"))
        << h_.logText();
    // It lets go: mpathd owns it, on the connection it kept.
    ASSERT_GE(sd_bus_release_name(other, mpathd::BusService::kBusName), 0);
    EXPECT_GE(runUntilOwned(5000), 0) << h_.logText();
    EXPECT_FALSE(h_.logged("disconnected")) << h_.logText();
    sd_bus_flush_close_unref(other);
}

TEST_F(SystemBus, ARestartedBusIsFoundAgainWithinAboutASecond) {
    start("<allow own=\"*\"/>");
    ASSERT_GE(runUntilOwned(5000), 0) << h_.logText();
    bus_ = mpathd_test::Child(); // stopped
    ASSERT_TRUE(runUntilLogged("system bus: disconnected; connecting again in 1 s"))
        << h_.logText();
    startBus();
    const long ms = runUntilOwned(8000);
    EXPECT_GE(ms, 0) << h_.logText();
    EXPECT_LT(ms, 3000) << "not 10 s for a bus that restarted\n" << h_.logText();
}

} // namespace
