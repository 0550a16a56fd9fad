#pragma once

// The D-Bus API on a private dbus-daemon, over the daemon on its test loop:
// every call goes through a real bus, as mpathctl's and busctl's do.

#include "bus_service.h"
#include "daemon_harness.h"
#include "test_file.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <future>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <thread>

extern char **environ;

namespace mpathd_test {

using namespace std::chrono_literals;

using Dict = std::map<std::string, std::string>;
inline constexpr const char *kName = "org.mpathd.Multipath1";
inline constexpr const char *kMapA = "36001405aaaa";
inline constexpr const char *kMapB = "36001405bbbb";

inline const char *const kConfig = "defaults {\n"
                                   "  find_multipaths on\n"
                                   "  path_grouping_policy failover\n"
                                   "  prio sysfs\n"
                                   "  dm_target multipath\n"
                                   "  polling_interval 5\n"
                                   "}\n";

/// A child process, killed when the test ends.
class Child {
public:
    Child() = default;
    explicit Child(std::vector<std::string> argv, std::vector<std::string> env = {}) {
        std::vector<char *> a;
        for (auto &s : argv)
            a.push_back(s.data());
        a.push_back(nullptr);
        std::vector<std::string> envs;
        for (char **e = environ; *e; ++e)
            envs.push_back(*e);
        for (auto &e : env)
            envs.push_back(e);
        std::vector<char *> ev;
        for (auto &s : envs)
            ev.push_back(s.data());
        ev.push_back(nullptr);
        if (posix_spawn(&pid_, a[0], nullptr, nullptr, a.data(), ev.data()) != 0)
            pid_ = -1;
    }
    ~Child() {
        if (pid_ > 0) {
            kill(pid_, SIGTERM);
            waitpid(pid_, nullptr, 0);
        }
    }
    Child(Child &&o) noexcept : pid_(o.pid_) { o.pid_ = -1; }
    Child &operator=(Child &&o) noexcept {
        std::swap(pid_, o.pid_);
        return *this;
    }
    bool running() const { return pid_ > 0; }

private:
    pid_t pid_{-1};
};

/// What a client got back.
struct Reply {
    std::string error;   ///< D-Bus error name, "" on success
    std::string message; ///< its message
    std::string value;   ///< a string or object path the reply carried
};

class BusFixture : public ::testing::Test {
protected:
    void SetUp() override {
        const auto dir = h_.dir().path();
        // The bus socket is in it: callers run as nobody too.
        std::filesystem::permissions(dir, std::filesystem::perms::owner_all |
                                              std::filesystem::perms::group_exec |
                                              std::filesystem::perms::others_exec);
        socket_ = (dir / "bus").string();
        address_ = "unix:path=" + socket_;
        mpath_test::writeFile(dir / "bus.conf",
                              "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus "
                              "Configuration 1.0//EN\"\n"
                              " \"http://www.freedesktop.org/standards/dbus/1.0/"
                              "busconfig.dtd\">\n"
                              "<busconfig><type>system</type><listen>" +
                                  address_ +
                                  "</listen><auth>EXTERNAL</auth>"
                                  "<policy context=\"default\"><allow user=\"*\"/>"
                                  "<allow own=\"*\"/><allow send_destination=\"*\"/>"
                                  "<allow receive_sender=\"*\"/></policy></busconfig>\n");
        busDaemon_ = Child({"/usr/bin/dbus-daemon", "--nofork", "--nopidfile",
                            "--config-file=" + (dir / "bus.conf").string()});
        ASSERT_TRUE(busDaemon_.running());
        for (int i = 0; i < 200 && !std::filesystem::exists(socket_); ++i)
            std::this_thread::sleep_for(10ms);
        ASSERT_TRUE(std::filesystem::exists(socket_)) << "dbus-daemon did not start";

        h_.config(kConfig);
        addDisks();
        h_.start();
        h_.settle();

        service_ = std::make_unique<mpathd::BusService>(h_.daemon());
        server_ = connect();
        ASSERT_NE(server_, nullptr);
        ASSERT_GE(sd_bus_request_name(server_, kName, 0), 0);
        ASSERT_EQ(service_->attach(server_, false), 0);
        // The bus on the test's loop, as sd_bus_attach_event() does on sd-event.
        pump_ = h_.loop().addReadable(sd_bus_get_fd(server_), [this] {
            while (sd_bus_process(server_, nullptr) > 0) {
            }
        });
        flush_ = h_.loop().addAfterDispatch([this] { (void)sd_bus_flush(server_); });
        service_->publish();
        h_.clearCalls();
    }

    /// The devices: two maps of two paths by default.
    virtual void addDisks() {
        h_.addDisk("sdb", 16, 1, kMapA, "active/optimized");
        h_.addDisk("sdc", 32, 2, kMapA, "standby");
        h_.addDisk("sdd", 48, 1, kMapB, "active/optimized");
        h_.addDisk("sde", 64, 2, kMapB, "standby");
    }

    void TearDown() override {
        pump_.reset();
        flush_.reset();
        if (server_)
            service_->detach(server_);
        service_.reset();
        sd_bus_flush_close_unref(server_);
    }

    sd_bus *connect() {
        sd_bus *b = nullptr;
        if (sd_bus_new(&b) < 0)
            return nullptr;
        if (sd_bus_set_address(b, address_.c_str()) < 0 || sd_bus_set_bus_client(b, 1) < 0 ||
            sd_bus_start(b) < 0) {
            sd_bus_unref(b);
            return nullptr;
        }
        return b;
    }

    /// Runs \a fn on a client connection in another thread while the
    /// daemon's loop runs here (its clock moving), until \a fn returns.
    template <typename F>
    auto onClient(F fn) {
        auto future = std::async(std::launch::async, [this, fn] {
            sd_bus *b = connect();
            auto r = fn(b);
            sd_bus_flush_close_unref(b);
            return r;
        });
        for (int i = 0; i < 2000 && future.wait_for(0ms) != std::future_status::ready; ++i)
            h_.advance(20ms);
        return future.get();
    }

    /// Calls \a method of \a iface at \a path with \a sig and the values.
    template <typename... A>
    Reply call(const std::string &path, const char *iface, const char *method, const char *sig,
               A... args) {
        return onClient([=](sd_bus *b) {
            Reply out;
            sd_bus_error e = SD_BUS_ERROR_NULL;
            sd_bus_message *reply = nullptr;
            if (sd_bus_call_method(b, kName, path.c_str(), iface, method, &e, &reply, sig,
                                   args...) < 0) {
                out.error = e.name ? e.name : "?";
                out.message = e.message ? e.message : "";
            } else {
                const char *contents = nullptr;
                char type = 0;
                if (sd_bus_message_peek_type(reply, &type, &contents) > 0 &&
                    (type == 's' || type == 'o')) {
                    const char *v = nullptr;
                    if (sd_bus_message_read_basic(reply, type, &v) >= 0)
                        out.value = v;
                }
            }
            sd_bus_error_free(&e);
            sd_bus_message_unref(reply);
            return out;
        });
    }
    Reply map(const std::string &wwid, const char *method, const char *sig, auto... args) {
        return call(mpathd::BusService::mapPath(wwid), "org.mpathd.Multipath1.Map", method, sig,
                    args...);
    }
    Reply manager(const char *method, const char *sig, auto... args) {
        return call("/org/mpathd/Multipath1/Manager", "org.mpathd.Multipath1.Manager", method, sig,
                    args...);
    }

    /// A property as the bus gives it, printed by busctl's rules ("s" only).
    std::string property(const std::string &path, const char *iface, const char *name) {
        return onClient([=](sd_bus *b) {
            char *v = nullptr;
            sd_bus_error e = SD_BUS_ERROR_NULL;
            std::string out = "<error>";
            if (sd_bus_get_property_string(b, kName, path.c_str(), iface, name, &e, &v) >= 0)
                out = v;
            free(v);
            sd_bus_error_free(&e);
            return out;
        });
    }
    std::string mapProperty(const std::string &wwid, const char *name) {
        return property(mpathd::BusService::mapPath(wwid), "org.mpathd.Multipath1.Map", name);
    }
    const mpathd::BusService::Value *published(const std::string &path, const std::string &name) {
        const auto &objects = service_->objects();
        auto it = objects.find(path);
        if (it == objects.end())
            return nullptr;
        for (const auto &[n, v] : it->second.properties)
            if (n == name)
                return &v;
        return nullptr;
    }

    /// Runs \a command (shell words) while the daemon's loop runs here.
    /// \return its exit status; \a out gets stdout and stderr
    int runCommand(const std::string &command, std::string *out = nullptr) {
        const std::string file = (h_.dir().path() / "command.out").string();
        const std::string cmd = command + " >" + file + " 2>&1";
        auto future = std::async(std::launch::async, [cmd] { return std::system(cmd.c_str()); });
        for (int i = 0; i < 2000 && future.wait_for(0ms) != std::future_status::ready; ++i)
            h_.advance(20ms);
        int st = future.get();
        if (out)
            *out = mpath_test::readFile(file);
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }

    /// Runs busctl as user nobody against the test bus.
    int busctlAsNobody(const std::string &args, std::string *out = nullptr) {
        const std::string file = (h_.dir().path() / "busctl.out").string();
        const std::string cmd = "setpriv --reuid=65534 --regid=65534 --clear-groups busctl "
                                "--address=" +
                                address_ + " " + args + " >" + file + " 2>&1";
        auto future = std::async(std::launch::async, [cmd] { return std::system(cmd.c_str()); });
        for (int i = 0; i < 2000 && future.wait_for(0ms) != std::future_status::ready; ++i)
            h_.advance(20ms);
        int st = future.get();
        if (out)
            *out = mpath_test::readFile(file);
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }

    /// One call for callsFromProcess().
    struct ProcessCall {
        std::string path, interface, method, signature;
        std::string args; ///< a Python list: "[\"sdb\", {}]"
    };

    /// Makes \a calls one after the other from a process of their own
    /// (python3-dbus, a client like any other), as user nobody when
    /// \a asNobody, else as root.
    std::vector<Reply> callsFromProcess(bool asNobody, const std::vector<ProcessCall> &calls) {
        const auto dir = h_.dir().path();
        const auto script = dir / "calls.py";
        if (!std::filesystem::exists(script))
            mpath_test::writeFile(
                script, "import dbus, json, sys\n"
                        "c = dbus.bus.BusConnection(sys.argv[1])\n"
                        "for path, iface, method, sig, args in json.load(open(sys.argv[2])):\n"
                        "    try:\n"
                        "        c.call_blocking('org.mpathd.Multipath1', path, iface,\n"
                        "                        method, sig, eval(args), timeout=60)\n"
                        "        print(json.dumps(['', '']))\n"
                        "    except dbus.exceptions.DBusException as e:\n"
                        "        print(json.dumps([e.get_dbus_name(),\n"
                        "                          e.get_dbus_message()]))\n");
        nlohmann::json list = nlohmann::json::array();
        for (const auto &c : calls)
            list.push_back({c.path, c.interface, c.method, c.signature, c.args});
        const auto input = dir / "calls.json";
        mpath_test::writeFile(input, list.dump());
        std::string out;
        const int st = runCommand(
            std::string(asNobody ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "") +
                "/usr/bin/python3 " + script.string() + " '" + address_ + "' " + input.string() +
                " 2>&1",
            &out);
        std::vector<Reply> replies;
        std::istringstream lines(out);
        for (std::string line; std::getline(lines, line);) {
            const auto j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_array() && j.size() == 2)
                replies.push_back({j[0].get<std::string>(), j[1].get<std::string>(), ""});
        }
        if (st != 0 || replies.size() != calls.size())
            replies.assign(calls.size(), Reply{"<python3 failed: " + out + ">", "", ""});
        return replies;
    }
    Reply callFromProcess(bool asNobody, const std::string &path, const std::string &iface,
                          const std::string &method, const std::string &signature,
                          const std::string &args) {
        return callsFromProcess(asNobody, {{path, iface, method, signature, args}}).front();
    }

    /// Starts python-dbusmock's polkitd on the test bus: it denies every
    /// action until allow() names it.
    void startPolkit() {
        polkit_ = Child({"/usr/bin/python3", "-m", "dbusmock", "--template", "polkitd", "--system"},
                        {"DBUS_SYSTEM_BUS_ADDRESS=" + address_});
        ASSERT_TRUE(polkit_.running());
        bool up = false;
        for (int i = 0; i < 300 && !up; ++i) {
            up = onClient([](sd_bus *b) {
                return sd_bus_get_name_creds(b, "org.freedesktop.PolicyKit1", 0, nullptr) >= 0;
            });
            if (!up)
                std::this_thread::sleep_for(20ms);
        }
        ASSERT_TRUE(up) << "python3-dbusmock's polkitd did not come up";
    }
    /// Calls a method of the mock polkitd's own (SimulateHangActions,
    /// ReleaseHangingCalls) with no argument or one list of strings.
    void polkitMock(const char *method, std::vector<std::string> actions = {}, bool list = false) {
        ASSERT_TRUE(onClient([method, actions, list](sd_bus *b) {
            sd_bus_message *m = nullptr;
            int r = sd_bus_message_new_method_call(b, &m, "org.freedesktop.PolicyKit1",
                                                   "/org/freedesktop/PolicyKit1/Authority",
                                                   "org.freedesktop.DBus.Mock", method);
            if (r >= 0 && list) {
                r = sd_bus_message_open_container(m, 'a', "s");
                for (const auto &a : actions)
                    if (r >= 0)
                        r = sd_bus_message_append(m, "s", a.c_str());
                if (r >= 0)
                    r = sd_bus_message_close_container(m);
            }
            if (r >= 0)
                r = sd_bus_call(b, m, 0, nullptr, nullptr);
            sd_bus_message_unref(m);
            return r >= 0;
        }));
    }
    void allow(const char *action) {
        ASSERT_TRUE(onClient([action](sd_bus *b) {
            return sd_bus_call_method(b, "org.freedesktop.PolicyKit1",
                                      "/org/freedesktop/PolicyKit1/Authority",
                                      "org.freedesktop.DBus.Mock", "SetAllowed", nullptr, nullptr,
                                      "as", 1, action) >= 0;
        }));
    }

    DaemonHarness h_;
    std::string socket_, address_;
    Child busDaemon_, polkit_;
    std::unique_ptr<mpathd::BusService> service_;
    sd_bus *server_{nullptr};
    mpath::sys::EventLoop::SourcePtr pump_, flush_;
};

} // namespace mpathd_test
