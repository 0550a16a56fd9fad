// multipath-tools' `multipathd COMMAND` as its callers run it (cli/
// multipathd_client.cpp): the real program against the daemon's command
// socket, on the test's loop.

#include "bus_harness.h"
#include "bus_service.h"
#include "daemon_harness.h"
#include "multipathd_commands.h"
#include "multipathd_socket.h"
#include "temp_dir.h"
#include "test_file.h"

#include <future>
#include <gtest/gtest.h>
#include <mpath/state/wwids_file.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <tuple>
#include <unistd.h>

#ifdef MULTIPATHD_CLIENT

namespace {

using namespace std::chrono_literals;
using mpathd_test::kMapA;

class MultipathdClientTest : public ::testing::Test {
protected:
    void SetUp() override {
        h_.config(mpathd_test::kConfig);
        h_.addDisk("sdb", 16, 1, kMapA, "active/optimized");
        h_.addDisk("sdc", 32, 2, kMapA, "standby");
        h_.start();
        h_.settle();
        service_.emplace(h_.daemon());
        commands_.emplace(h_.daemon(), *service_);
        socket_.emplace(h_.loop(),
                        [this](const std::string &c, bool root, mpathd::MultipathdSocket::Reply r) {
                            asked_.push_back(c);
                            commands_->answer(c, root, std::move(r));
                        });
        name_ = "/org/mpathd/test/multipathd-client/" + std::to_string(::getpid());
        ASSERT_TRUE(socket_->start(name_));
    }

    struct Run {
        int status;
        std::string out, err;
    };

    /// Runs the client with \a args (shell words), \a input on its stdin,
    /// while the loop serves it.
    Run client(const std::string &args, const std::string &input = "",
               const std::string &socket = "") {
        return run(MULTIPATHD_CLIENT, args, input, socket);
    }

    Run run(const std::string &program, const std::string &args, const std::string &input = "",
            const std::string &socket = "") {
        const auto dir = h_.dir().path();
        mpath_test::writeFile(dir / "client.in", input);
        const std::string cmd = "MPATH_MULTIPATHD_SOCKET=" + (socket.empty() ? name_ : socket) +
                                " " + program + " " + args + " <" + (dir / "client.in").string() +
                                " >" + (dir / "client.out").string() + " 2>" +
                                (dir / "client.err").string();
        auto future = std::async(std::launch::async, [cmd] { return std::system(cmd.c_str()); });
        for (int i = 0; i < 2000 && future.wait_for(0ms) != std::future_status::ready; ++i)
            h_.advance(10ms);
        const int st = future.get();
        return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, mpath_test::readFile(dir / "client.out"),
                mpath_test::readFile(dir / "client.err")};
    }

    mpathd_test::DaemonHarness h_;
    std::optional<mpathd::BusService> service_;
    std::optional<mpathd::MultipathdCommands> commands_;
    std::optional<mpathd::MultipathdSocket> socket_;
    std::string name_;
    std::vector<std::string> asked_;
};

TEST_F(MultipathdClientTest, SendsTheWordsAsMultipathToolsClientDoesAndPrintsTheAnswer) {
    const Run r = client("show maps json");
    EXPECT_EQ(r.status, 0) << r.err;
    // Each word and a blank, then a newline: what multipathd's parser
    // gets from its own client.
    EXPECT_EQ(asked_, std::vector<std::string>{"show maps json \n"});
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["maps"][0]["uuid"], kMapA);
    EXPECT_EQ(client("-k\"show maps json\"").out, r.out);
}

TEST_F(MultipathdClientTest, ExitsOneExactlyWhenTheAnswerIsFail) {
    const Run missing = client("show map nosuchmap json");
    EXPECT_EQ(missing.status, 1);
    EXPECT_EQ(missing.out, "fail\n");
    const Run failed = client("fail path sdc");
    EXPECT_EQ(failed.status, 0) << failed.out << failed.err;
    EXPECT_EQ(failed.out, "ok\n");
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " fail_path 8:32"));
    // Help is no failure for multipath-tools' client either.
    const Run help = client("show frobnicate");
    EXPECT_EQ(help.status, 0);
    EXPECT_TRUE(help.out.starts_with("show frobnicate \n: not found\n")) << help.out;
}

TEST_F(MultipathdClientTest, DashKAloneReadsCommandsUntilQuit) {
    const Run r = client("-k", "show daemon\n\nshow status\nquit\nshow maps\n");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(asked_, (std::vector<std::string>{"show daemon", "show status"}));
    EXPECT_EQ(r.out, "pid " + std::to_string(::getpid()) +
                         " idle\npath checker states:\nup                  2\n\npaths: 2\n"
                         "busy: False\n");
}

TEST_F(MultipathdClientTest, RefusesWhatMultipathToolsClientRefuses) {
    const Run big = client(std::string(200, 'x'));
    EXPECT_EQ(big.status, 1);
    EXPECT_EQ(big.err, "multipathd command too large\n");
    const Run bad = client("-x show maps");
    EXPECT_EQ(bad.status, 1);
    EXPECT_TRUE(bad.err.starts_with("Invalid argument '-x'\n")) << bad.err;
    EXPECT_TRUE(asked_.empty());
    // No command: it runs no daemon, and says which one does.
    const Run none = client("-d -s");
    EXPECT_EQ(none.status, 1);
    EXPECT_NE(none.err.find("mpathd.service"), std::string::npos) << none.err;
}

TEST_F(MultipathdClientTest, NoDaemonIsExitOneAndNothingOnStdout) {
    const Run r = client("show maps", "", "/org/mpathd/test/multipathd-client/nobody");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("cannot reach the daemon at @/org/mpathd/test/multipathd-client/nobody"),
              std::string::npos)
        << r.err;
}

#ifdef MULTIPATH_COMPAT

TEST_F(MultipathdClientTest, MultipathListsTheMapsAsTheTopologyDrawsThem) {
    const Run all = run(MULTIPATH_COMPAT, "-ll");
    EXPECT_EQ(all.status, 0) << all.err;
    EXPECT_TRUE(all.out.starts_with(std::string(kMapA) + " dm-")) << all.out;
    EXPECT_NE(all.out.find("`- 2:0:0:1 sdc 8:32 active ready running"), std::string::npos)
        << all.out;
    // A map by name, and by one of its paths.
    EXPECT_EQ(run(MULTIPATH_COMPAT, std::string("-ll ") + kMapA).out, all.out);
    EXPECT_EQ(run(MULTIPATH_COMPAT, "-l /dev/sdc").out, all.out);
    EXPECT_EQ(run(MULTIPATH_COMPAT, "-ll 8:16").out, all.out);
    // A bare name is a map's, as multipath-tools takes it.
    EXPECT_EQ(run(MULTIPATH_COMPAT, "-ll sdc").out, "");
    const Run none = run(MULTIPATH_COMPAT, "-ll /dev/sdz");
    EXPECT_EQ(none.status, 0);
    EXPECT_EQ(none.out, "");
}

TEST_F(MultipathdClientTest, MultipathFlushesAndReloadsThroughTheDaemon) {
    const Run noMap = run(MULTIPATH_COMPAT, "-f");
    EXPECT_EQ(noMap.status, 1);
    EXPECT_EQ(noMap.err, "the -f option requires a map name to remove\n");
    const Run wrong = run(MULTIPATH_COMPAT, "-f nosuchmap");
    EXPECT_EQ(wrong.status, 1);
    EXPECT_NE(wrong.err.find("removing nosuchmap failed"), std::string::npos) << wrong.err;
    const Run r = run(MULTIPATH_COMPAT, "-r");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(asked_.back(), "reconfigure all");
    const Run f = run(MULTIPATH_COMPAT, std::string("-f ") + kMapA);
    EXPECT_EQ(f.status, 0) << f.err;
    EXPECT_TRUE(h_.called(std::string("remove ") + kMapA));
    EXPECT_EQ(run(MULTIPATH_COMPAT, "-ll").out, "");
    EXPECT_EQ(run(MULTIPATH_COMPAT, "-F").status, 0);
}

TEST_F(MultipathdClientTest, MultipathRefusesWhatItDoesNotServeAndSaysWhatDoes) {
    const Run d = run(MULTIPATH_COMPAT, "-d");
    EXPECT_EQ(d.status, 1);
    EXPECT_NE(d.err.find("-d is not served by mpath's multipath yet; mpathctl plan does it"),
              std::string::npos)
        << d.err;
    EXPECT_EQ(run(MULTIPATH_COMPAT, "-x").status, 1);
    // -C needs a map; a device that is none is said and exits 1.
    const Run c = run(MULTIPATH_COMPAT, "-C");
    EXPECT_EQ(c.status, 1);
    EXPECT_EQ(c.err, "the -C option requires a device\n");
    const Run notDm = run(MULTIPATH_COMPAT, "-C /dev/null");
    EXPECT_EQ(notDm.status, 1);
    EXPECT_EQ(notDm.err, "/dev/null is not a dm device\n");
    EXPECT_TRUE(asked_.empty());
}

#ifdef MPATHCTL
// multipath -t, as multipath-tools': the configuration read from the files
// by the program itself, without the daemon, as mpathctl config show
// prints it.
TEST_F(MultipathdClientTest, MultipathDashTPrintsTheConfigurationFromTheFiles) {
    const Run t = run(MULTIPATH_COMPAT, "-t");
    EXPECT_EQ(t.status, 0) << t.err;
    EXPECT_TRUE(t.out.starts_with("defaults {\n")) << t.out;
    EXPECT_EQ(t.out, run(MPATHCTL, "config show").out);
    EXPECT_TRUE(asked_.empty());
}
#endif

// multipath -a, -w and -W change the wwids file as multipath-tools' do: a
// map's name, an alias of the bindings file or of multipaths {}, or a WWID
// given as it is; -W keeps the maps present (sysfs) and nothing else.
TEST_F(MultipathdClientTest, MultipathAddsRemovesAndResetsWwidsAsMultipathToolsDoes) {
    mpath_test::TempDir root("mproot");
    const auto at = [&](const std::string &p) { return root.path() / p; };
    std::filesystem::create_directories(at("etc/multipath"));
    mpath_test::writeFile(at("etc/multipath.conf"),
                          "multipaths {\n multipath {\n  wwid 3600b\n  alias data\n }\n}\n");
    mpath_test::writeFile(at("etc/multipath/bindings"), "mpathz 3600z\n");
    for (const auto &[dm, name, uuid] :
         {std::tuple{"dm-0", "mpatha", "mpath-3600a"}, std::tuple{"dm-1", "vg-lv", "LVM-x"}}) {
        std::filesystem::create_directories(at(std::string("sys/block/") + dm + "/dm"));
        mpath_test::writeFile(at(std::string("sys/block/") + dm + "/dm/name"),
                              std::string(name) + "\n");
        mpath_test::writeFile(at(std::string("sys/block/") + dm + "/dm/uuid"),
                              std::string(uuid) + "\n");
    }
    const std::string mp = "MPATH_CONFIG_ROOT=" + root.str() + " " MULTIPATH_COMPAT;
    const auto listed = [&] {
        return mpath::state::WwidsFile::parse(mpath_test::readFile(at("etc/multipath/wwids")),
                                              "wwids", nullptr);
    };
    EXPECT_EQ(run(mp, "-a mpatha").out, "wwid '3600a' added\n");
    EXPECT_EQ(run(mp, "-a data").out, "wwid '3600b' added\n");
    EXPECT_EQ(run(mp, "-a mpathz").out, "wwid '3600z' added\n");
    EXPECT_EQ(run(mp, "-a 3600q").out, "wwid '3600q' added\n");
    EXPECT_EQ(listed(), (std::vector<std::string>{"3600a", "3600b", "3600z", "3600q"}));
    const Run removed = run(mp, "-w 3600q");
    EXPECT_EQ(removed.status, 0);
    EXPECT_EQ(removed.out, "wwid '3600q' removed\n");
    const Run again = run(mp, "-w 3600q");
    EXPECT_EQ(again.status, 0);
    EXPECT_EQ(again.out, "wwid '3600q' not in wwids file\n");
    // A map's node stands for the map (mpatha is dm-0 in this tree).
    EXPECT_EQ(run(mp, "-w /dev/dm-0").out, "wwid '3600a' removed\n");
    const Run reset = run(mp, "-W");
    EXPECT_EQ(reset.status, 0);
    EXPECT_EQ(reset.out, "successfully reset wwids\n");
    EXPECT_EQ(listed(), std::vector<std::string>{"3600a"});
    const Run none = run(mp, "-a");
    EXPECT_EQ(none.status, 1);
    EXPECT_EQ(none.err, "the -a option requires a device\n");
    EXPECT_TRUE(asked_.empty());
}

// libblockdev's mpath plugin runs `multipath --version` and reads the
// version from what it prints (stdout, or stderr when it exits non-zero)
// with "multipath-tools v([\d\.]+)"; it needs at least 0.4.9.
TEST_F(MultipathdClientTest, TheUsageSaysTheMultipathToolsReleaseAsLibblockdevReadsIt) {
    const std::regex version(R"(multipath-tools v([0-9.]+))");
    for (const char *program : {MULTIPATH_COMPAT, MULTIPATHD_CLIENT}) {
        const Run r = run(program, "--version");
        std::smatch m;
        const std::string said = r.out + r.err;
        ASSERT_TRUE(std::regex_search(said, m, version)) << program << ": " << said;
        EXPECT_EQ(m[1].str(), "0.9.4") << program;
    }
    EXPECT_TRUE(asked_.empty());
}

#endif

} // namespace

#endif
