#include "temp_dir.h"
#include "test_file.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iomanip>
#include <mpath/testing/sysfs_tree_builder.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>

namespace {

struct Outcome {
    int exit{-1};
    std::string out;
    std::string err;
};

using mpath_test::readFile;

/// Runs shell command \p cmd: its standard output, and its exit status
/// (-1 when it did not exit, or could not be started).
Outcome shell(const std::string &cmd) {
    Outcome o;
    FILE *p = popen(cmd.c_str(), "r");
    if (!p)
        return o;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
        o.out.append(buf, n);
    int status = pclose(p);
    o.exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return o;
}

class Mpathctl : public ::testing::Test {
protected:
    /// Runs mpathctl with \p args (shell words, already quoted).
    Outcome run(const std::string &args, const std::string &env = "") {
        const auto errFile = dir_.path() / "stderr";
        std::string cmd = (env.empty() ? "" : "env -u DEVNAME " + env + " ") + program_ + " " +
                          args + " 2>" + errFile.string();
        Outcome o = shell(cmd);
        o.err = readFile(errFile);
        return o;
    }

    /// The program run(): mpathctl, or the udev rules' helper.
    std::string program_ = MPATHCTL;

    /// Runs mpathctl with \p env (VAR=value words) in its environment.
    Outcome runWith(const std::string &env, const std::string &args) { return run(args, env); }

    std::string write(const std::string &name, const std::string &text) {
        auto p = dir_.path() / name;
        std::ofstream(p) << text;
        return p.string();
    }

    /// Two LUNs with two paths each and one LUN with one path.
    std::string tree() {
        mpath::testing::SysfsTreeBuilder b(dir_.file("tree"));
        struct {
            const char *name;
            unsigned minor, host;
            const char *wwid;
        } disks[] = {{"sdb", 16, 1, "36001405aaaa"},
                     {"sdc", 32, 1, "36001405bbbb"},
                     {"sdd", 48, 2, "36001405aaaa"},
                     {"sde", 64, 2, "36001405bbbb"},
                     {"sdf", 80, 3, "36001405cccc"}};
        for (const auto &d : disks) {
            mpath::testing::SysfsTreeBuilder::ScsiDisk disk;
            disk.name = d.name;
            disk.minor = d.minor;
            disk.host = d.host;
            disk.lun = d.minor / 16;
            disk.vendor = "ACME";
            disk.model = "Array";
            disk.udev = {{"ID_SERIAL", d.wwid}, {"DEVTYPE", "disk"}};
            EXPECT_TRUE(b.addScsiDisk(disk));
        }
        return b.sysfsRoot();
    }

    mpath_test::TempDir dir_{"mpathctl"};
};

} // namespace

TEST_F(Mpathctl, WithoutArgumentsPrintsUsageAndExitsTwo) {
    Outcome o = run("");
    EXPECT_EQ(o.exit, 2);
    EXPECT_NE(o.err.find("usage:"), std::string::npos);
}

TEST_F(Mpathctl, NamesAnUnknownCommand) {
    Outcome o = run("frobnicate");
    EXPECT_EQ(o.exit, 2);
    EXPECT_NE(o.err.find("'frobnicate'"), std::string::npos) << o.err;
}

TEST_F(Mpathctl, PlanNamesAnUnknownFlag) {
    Outcome o = run("plan --bogus");
    EXPECT_EQ(o.exit, 2);
    EXPECT_NE(o.err.find("--bogus"), std::string::npos) << o.err;
}

TEST_F(Mpathctl, PlanSaysWhenConfigLacksItsValue) {
    Outcome o = run("plan --config");
    EXPECT_EQ(o.exit, 2);
    EXPECT_NE(o.err.find("--config needs a value"), std::string::npos) << o.err;
}

TEST_F(Mpathctl, PlanJsonGroupsPathsByWwidWithExactTables) {
    std::string sys = tree();
    std::string conf = write("mpathd.conf", "defaults {\n find_multipaths on\n "
                                            "path_grouping_policy multibus\n path_selector "
                                            "\"queue-length 0\"\n dm_target multipath\n}\n");
    Outcome o = run("plan --json --config " + conf + " --sysfs-root " + sys);
    ASSERT_EQ(o.exit, 0) << o.err;
    auto j = nlohmann::json::parse(o.out);
    ASSERT_EQ(j["maps"].size(), 2u) << o.out;
    EXPECT_EQ(j["maps"][0]["wwid"], "36001405aaaa");
    EXPECT_EQ(j["maps"][0]["dmUuid"], "mpath-36001405aaaa");
    ASSERT_EQ(j["maps"][0]["groups"].size(), 1u);
    EXPECT_EQ(j["maps"][0]["groups"][0]["paths"][0]["name"], "sdb");
    EXPECT_EQ(j["maps"][0]["groups"][0]["paths"][1]["name"], "sdd");
    EXPECT_EQ(j["maps"][0]["table"], "0 2048 multipath 0 0 1 1 queue-length 0 2 1 8:16 1 8:48 1");
    EXPECT_EQ(j["maps"][1]["table"], "0 2048 multipath 0 0 1 1 queue-length 0 2 1 8:32 1 8:64 1");
    ASSERT_EQ(j["skipped"].size(), 1u);
    EXPECT_EQ(j["skipped"][0]["name"], "sdf");
}

TEST_F(Mpathctl, PlanPrintsGroupsAndTheTableForPeople) {
    std::string sys = tree();
    std::string conf = write("multipath.conf", "defaults {\n find_multipaths on\n "
                                               "path_grouping_policy failover\n}\n");
    Outcome o = run("plan --config " + conf + " --sysfs-root " + sys);
    ASSERT_EQ(o.exit, 0) << o.err;
    EXPECT_NE(o.out.find("36001405aaaa ACME,Array"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("|-+- policy="), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("table: 0 2048 lmpath 0 0 2 1 "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("sdf (36001405cccc): not multipathed"), std::string::npos) << o.out;
}

TEST_F(Mpathctl, PlanSaysWhyAPathHasNoPriority) {
    std::string sys = tree();
    std::string conf = write("mpathd.conf", "defaults {\n find_multipaths on\n prio emc\n}\n");
    Outcome o = run("plan --config " + conf + " --sysfs-root " + sys);
    ASSERT_EQ(o.exit, 0) << o.err;
    EXPECT_NE(o.out.find("note: sdb: prioritizer emc not used: 'emc' is a multipath-tools "
                         "prioritizer not implemented here, the path ranks -1"),
              std::string::npos)
        << o.out;
    o = run("plan --json --config " + conf + " --sysfs-root " + sys);
    ASSERT_EQ(o.exit, 0) << o.err;
    auto j = nlohmann::json::parse(o.out);
    ASSERT_EQ(j["maps"].size(), 2u) << o.out;
    EXPECT_EQ(j["maps"][0]["notes"].size(), 2u) << o.out;
}

TEST_F(Mpathctl, PlanFailsOnAnUnreadableConfig) {
    Outcome o = run("plan --config " + dir_.file("missing.conf"));
    EXPECT_EQ(o.exit, 1);
    EXPECT_NE(o.err.find("missing.conf: cannot read"), std::string::npos) << o.err;
}

TEST_F(Mpathctl, ConfigCheckPrintsFileLineDiagnosticsAndExitsOneOnErrors) {
    // A blacklist pattern that does not compile makes multipath-tools
    // refuse the file: an error.
    std::string conf = write("multipath.conf", "blacklist {\n devnode \"^(sd\"\n}\n");
    Outcome o = run("config check " + conf);
    EXPECT_EQ(o.exit, 1);
    EXPECT_NE(o.out.find(conf + ":2: error: invalid value '^(sd' for devnode"), std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("1 error, 0 warnings"), std::string::npos) << o.out;
}

TEST_F(Mpathctl, ConfigCheckExitsZeroForWhatMultipathToolsIgnoresAndRunsWith) {
    // An invalid value, a device entry without product and an unclosed
    // section: multipath-tools reports each and runs with the rest.
    std::string conf = write("multipath.conf", "defaults {\n failback sometimes\n}\n"
                                               "devices {\n device {\n vendor ACME\n }\n}\n"
                                               "multipaths {\n");
    Outcome o = run("config check " + conf);
    EXPECT_EQ(o.exit, 0) << o.out;
    EXPECT_NE(o.out.find(conf + ":2: warning: invalid value 'sometimes' for failback"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find(conf + ":5: warning: device entry missing vendor or product parameter"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find(conf + ":9: warning: section 'multipaths' is not closed"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("0 errors, 3 warnings"), std::string::npos) << o.out;
}

TEST_F(Mpathctl, ConfigCheckNotesKeywordsWithoutEffectWithoutCountingThem) {
    std::string conf = write("multipath.conf", "defaults {\n disable_changed_wwids yes\n}\n");
    Outcome o = run("config check " + conf);
    EXPECT_EQ(o.exit, 0) << o.out;
    EXPECT_NE(o.out.find(conf + ":2: note: keyword 'disable_changed_wwids' is accepted; it has "
                                "no effect here"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("0 errors, 0 warnings, 1 note"), std::string::npos) << o.out;
}

TEST_F(Mpathctl, ConfigCheckAcceptsAValidFile) {
    std::string conf = write("multipath.conf", "defaults {\n failback immediate\n}\n");
    Outcome o = run("config check " + conf);
    EXPECT_EQ(o.exit, 0) << o.out;
    EXPECT_NE(o.out.find("0 errors, 0 warnings"), std::string::npos) << o.out;
}

TEST_F(Mpathctl, ConfigCheckWarnsWithoutFailingOnUnknownKeywords) {
    std::string conf = write("multipath.conf", "defaults {\n no_such_keyword 1\n}\n");
    Outcome o = run("config check " + conf);
    EXPECT_EQ(o.exit, 0) << o.out;
    EXPECT_NE(o.out.find(conf + ":2: warning:"), std::string::npos) << o.out;
}

TEST_F(Mpathctl, ConfigCheckRefusesTwoFiles) {
    Outcome o = run("config check a b");
    EXPECT_EQ(o.exit, 2);
    EXPECT_NE(o.err.find("'b'"), std::string::npos) << o.err;
}

TEST_F(Mpathctl, DebugCheckRunsAChecker) {
    Outcome o = run("debug check none /dev/null");
    EXPECT_EQ(o.exit, 0) << o.err;
    EXPECT_EQ(o.out.rfind("up ", 0), 0u) << o.out;
}

namespace {

const char *kShowConf = "defaults {\n"                            // 1
                        "    user_friendly_names yes\n"           // 2
                        "}\n"                                     // 3
                        "devices {\n"                             // 4
                        "    device {\n"                          // 5
                        "        vendor NETAPP\n"                 // 6
                        "        product LUN\n"                   // 7
                        "        no_path_retry 16\n"              // 8
                        "    }\n"                                 // 9
                        "}\n"                                     // 10
                        "multipaths {\n"                          // 11
                        "    multipath {\n"                       // 12
                        "        wwid 3600a0980383030\n"          // 13
                        "        alias oradata\n"                 // 14
                        "        path_grouping_policy failover\n" // 15
                        "    }\n"                                 // 16
                        "}\n"                                     // 17
                        "overrides {\n"                           // 18
                        "    max_sectors_kb 256\n"                // 19
                        "}\n";                                    // 20

// "keyword value" of each line of a `config show --device` listing, without
// where the value came from.
std::vector<std::string> keywordsAndValues(const std::string &listing) {
    std::vector<std::string> out;
    std::istringstream in(listing);
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string keyword, value;
        words >> keyword >> std::quoted(value);
        out.push_back(keyword + " " + value);
    }
    return out;
}

} // namespace

TEST_F(Mpathctl, ConfigShowListsEachSettingOfADeviceWithWhereItCameFrom) {
    std::string conf = write("multipath.conf", kShowConf);
    Outcome o = run("config show --config " + conf + " --device NETAPP 'LUN C-Mode' 9800 --wwid " +
                    "3600a0980383030");
    ASSERT_EQ(o.exit, 0) << o.err;
    auto has = [&](const std::string &keyword, const std::string &value,
                   const std::string &source) {
        std::istringstream in(o.out);
        for (std::string line; std::getline(in, line);) {
            std::istringstream words(line);
            std::string k, v, s;
            words >> k >> std::quoted(v);
            std::getline(words >> std::ws, s);
            if (k == keyword)
                return v == value && s == source;
        }
        return false;
    };
    EXPECT_TRUE(has("alias", "oradata", conf + ":14")) << o.out;
    EXPECT_TRUE(has("path_grouping_policy", "failover", conf + ":15")) << o.out;
    EXPECT_TRUE(has("no_path_retry", "16", conf + ":8")) << o.out;
    EXPECT_TRUE(has("max_sectors_kb", "256", conf + ":19")) << o.out;
    EXPECT_TRUE(has("user_friendly_names", "no", "built-in device table"))
        << "the device table's no over defaults' yes\n"
        << o.out;
    EXPECT_TRUE(has("prio", "ontap", "built-in device table")) << o.out;
    EXPECT_TRUE(has("features", "2 pg_init_retries 50", "built-in device table")) << o.out;
    EXPECT_TRUE(has("rr_min_io_rq", "1", "built-in")) << o.out;

    // Without the WWID no multipaths entry applies.
    Outcome noWwid = run("config show --config " + conf + " --device NETAPP LUN");
    ASSERT_EQ(noWwid.exit, 0) << noWwid.err;
    EXPECT_NE(noWwid.out.find("group_by_prio"), std::string::npos) << noWwid.out;
    EXPECT_EQ(noWwid.out.find("oradata"), std::string::npos) << noWwid.out;
}

TEST_F(Mpathctl, ConfigShowPrintsTheWholeConfigurationSoThatItReadsBack) {
    std::string conf = write("multipath.conf", kShowConf);
    Outcome o = run("config show --config " + conf);
    ASSERT_EQ(o.exit, 0) << o.err;
    // Every default with its value, the device table merged with the file.
    EXPECT_NE(o.out.find("defaults {\n    verbosity 2\n"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("    user_friendly_names yes\n"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("    path_checker tur\n"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("    devnode \"!^(sd[a-z]|dasd[a-z]|nvme[0-9])\"\n"), std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("        vendor \"^DGC\"\n"), std::string::npos) << o.out;
    const std::string netapp = "        vendor \"NETAPP\"\n        product \"LUN\"\n";
    ASSERT_NE(o.out.find(netapp), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find(netapp), o.out.rfind(netapp)) << "one NETAPP LUN entry, merged";
    const std::string merged = o.out.substr(o.out.find(netapp));
    EXPECT_LT(merged.find("no_path_retry 16"), merged.find("}")) << merged;
    EXPECT_LT(merged.find("prio ontap"), merged.find("}")) << merged;

    // Read back, it is a valid configuration that gives every device the
    // same settings.
    std::string shown = write("shown.conf", o.out);
    Outcome check = run("config check " + shown);
    EXPECT_EQ(check.exit, 0) << check.out;
    for (const char *device :
         {"NETAPP LUN", "DGC VRAID", "ACME Disk", "NVME 'NetApp ONTAP Controller'"}) {
        const std::string args = std::string(" --device ") + device + " --wwid 3600a0980383030";
        Outcome original = run("config show --config " + conf + args);
        Outcome again = run("config show --config " + shown + args);
        ASSERT_EQ(original.exit, 0) << original.err;
        ASSERT_EQ(again.exit, 0) << again.err;
        EXPECT_EQ(keywordsAndValues(again.out), keywordsAndValues(original.out)) << device;
    }
}

TEST_F(Mpathctl, ConfigShowJsonCarriesVersionOneAndTheSameData) {
    std::string conf = write("multipath.conf", kShowConf);
    Outcome o = run("config show --json --config " + conf + " --device NETAPP LUN");
    ASSERT_EQ(o.exit, 0) << o.err;
    auto j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["version"], 1);
    EXPECT_EQ(j["device"]["vendor"], "NETAPP");
    EXPECT_TRUE(j["wwid"].is_null());
    bool found = false;
    for (const auto &s : j["settings"]) {
        if (s["keyword"] != "no_path_retry")
            continue;
        found = true;
        EXPECT_EQ(s["value"], "16");
        EXPECT_EQ(s["origin"], "devices");
        EXPECT_EQ(s["file"], conf);
        EXPECT_EQ(s["line"], 8);
    }
    EXPECT_TRUE(found) << o.out;

    Outcome whole = run("config show --json --config " + conf);
    ASSERT_EQ(whole.exit, 0) << whole.err;
    auto w = nlohmann::json::parse(whole.out);
    EXPECT_EQ(w["version"], 1);
    EXPECT_EQ(w["defaults"]["user_friendly_names"], "yes");
    EXPECT_EQ(w["overrides"]["max_sectors_kb"], "256");
    ASSERT_EQ(w["multipaths"].size(), 1u);
    EXPECT_EQ(w["multipaths"][0]["alias"], "oradata");
    const auto &last = w["devices"].back();
    EXPECT_EQ(last["vendor"], "NETAPP");
    EXPECT_EQ(last["settings"]["no_path_retry"], "16");
    EXPECT_EQ(last["settings"]["prio"], "ontap");
    EXPECT_EQ(last["line"], 5);
}

TEST_F(Mpathctl, ConfigShowNamesWhatIsWrongWithItsArguments) {
    std::string conf = write("multipath.conf", kShowConf);
    Outcome unknown = run("config show --bogus");
    EXPECT_EQ(unknown.exit, 2);
    EXPECT_NE(unknown.err.find("unknown option --bogus"), std::string::npos) << unknown.err;
    Outcome noProduct = run("config show --config " + conf + " --device NETAPP");
    EXPECT_EQ(noProduct.exit, 2);
    EXPECT_NE(noProduct.err.find("--device needs VENDOR PRODUCT"), std::string::npos)
        << noProduct.err;
    Outcome noWwid = run("config show --wwid");
    EXPECT_EQ(noWwid.exit, 2);
    EXPECT_NE(noWwid.err.find("--wwid needs a value"), std::string::npos) << noWwid.err;
    Outcome stray = run("config show " + conf);
    EXPECT_EQ(stray.exit, 2);
    EXPECT_NE(stray.err.find("unexpected argument '" + conf + "'"), std::string::npos) << stray.err;
    Outcome missing = run("config show --config " + dir_.file("missing.conf"));
    EXPECT_EQ(missing.exit, 1);
    EXPECT_NE(missing.err.find("missing.conf: cannot read"), std::string::npos) << missing.err;
}

TEST_F(Mpathctl, ConfigShowRefusesAConfigurationWithErrors) {
    std::string conf = write("multipath.conf", "blacklist {\n wwid \"*\"\n}\n");
    Outcome o = run("config show --config " + conf);
    EXPECT_EQ(o.exit, 1);
    EXPECT_NE(o.err.find(conf + ":2: error: invalid value '*' for wwid"), std::string::npos)
        << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
}

// The daemon commands: what they refuse before asking mpathd, and what
// they say when it is not there. Real calls are in tests/integration.

namespace {

/// Neither a system bus nor mpathd's socket.
std::string noDaemon(const mpath_test::TempDir &dir) {
    return "DBUS_SYSTEM_BUS_ADDRESS=unix:path=" + (dir.path() / "no-bus").string() + " " +
           MPATHCTL + " --socket " + (dir.path() / "no-socket").string();
}

} // namespace

TEST_F(Mpathctl, DaemonCommandsNameTheWordTheyRefuse) {
    struct {
        const char *args;
        const char *says;
    } cases[] = {
        {"show", "a command is needed: topology, maps, paths, map, path, config"},
        {"show frob", "'frob'"},
        {"show maps --bogus", "unknown option --bogus"},
        {"show map", "NAME is required"},
        {"show map a b", "unexpected argument 'b'"},
        {"--bus session show maps", "--bus: session not in"},
        {"--color=sometimes show maps", "--color: sometimes not in"},
        {"set map mpatha", "SETTING is required"},
        {"set map mpatha frob 1", "unknown setting 'frob'"},
        {"set map mpatha queue-if-no-path maybe", "needs on or off, not 'maybe'"},
        {"set map mpatha no-path-retry forever", "needs queue, fail or a number, not 'forever'"},
        {"set map mpatha pg-init-retries -1", "needs a number, not '-1'"},
        {"set map mpatha pg-init-delay 10 20", "takes one value, not '10 20'"},
        {"fail mpatha", "'mpatha'"},
        {"fail path", "DEV is required"},
        {"switch-group mpatha zero", "group 'zero' is not a group number"},
        {"switch-group mpatha 0", "group '0' is not a group number"},
        {"flush", "MAP is required"},
        {"reconfigure now", "unexpected argument 'now'"},
        {"watch --follow", "unknown option --follow"},
    };
    for (const auto &c : cases) {
        // Refused before any connection: the daemon's absence does not matter.
        Outcome o = run(std::string(c.args) + " --socket " + dir_.file("no-socket"));
        EXPECT_EQ(o.exit, 2) << c.args << "\n" << o.err;
        EXPECT_NE(o.err.find(c.says), std::string::npos) << c.args << "\n" << o.err;
    }
}

TEST_F(Mpathctl, SaysTheDaemonIsNotRunningWithExitThree) {
    for (const char *args : {"show topology", "show maps --json", "show map mpatha", "reconfigure",
                             "fail path sdb", "watch",
                             "set map mpatha selector "
                             "service-time 0"}) {
        const auto errFile = dir_.path() / "stderr";
        const std::string cmd = noDaemon(dir_) + " " + args + " 2>" + errFile.string();
        int status = std::system(cmd.c_str());
        ASSERT_TRUE(WIFEXITED(status)) << args;
        EXPECT_EQ(WEXITSTATUS(status), 3) << args;
        const std::string err = readFile(errFile);
        EXPECT_NE(err.find("mpathctl: mpathd is not running"), std::string::npos) << err;
        EXPECT_NE(err.find("no-socket"), std::string::npos) << err;
    }
    const std::string cmd = noDaemon(dir_) + " --bus system show maps 2>/dev/null";
    int status = std::system(cmd.c_str());
    EXPECT_EQ(WEXITSTATUS(status), 3);
}

TEST_F(Mpathctl, HelpListsTheCommandsAndTheExitCodes) {
    Outcome o = run("--help");
    EXPECT_EQ(o.exit, 0);
    for (const char *word : {"plan", "config", "show", "set", "fail", "reinstate", "switch-group",
                             "reconfigure", "flush", "reload", "suspend", "resume", "add", "remove",
                             "watch", "--bus", "--socket", "--color", "3  mpathd is not running"})
        EXPECT_NE(o.out.find(word), std::string::npos) << word << "\n" << o.out;
    EXPECT_EQ(o.out.find("debug"), std::string::npos) << "debug is hidden";
}

// is-path: the decision udev's rules take for every disk.

class IsPath : public Mpathctl {
protected:
    /// The tree's disks under \p config (a defaults {} body), the wwids
    /// file listing \p wwids.
    std::string args(const std::string &config, const std::string &device,
                     const std::vector<std::string> &wwids = {}) {
        if (sys_.empty())
            sys_ = tree();
        std::string list = "# Multipath wwids, Version : 1.0\n";
        for (const auto &w : wwids)
            list += "/" + w + "/\n";
        const std::string wwidsFile = write("wwids", list);
        const std::string conf =
            write("mpathd.conf", "defaults {\n wwids_file " + wwidsFile + "\n" + config + "}\n");
        return "is-path --config " + conf + " --sysfs-root " + sys_ + " " + device;
    }
    std::string sys_;
};

TEST_F(IsPath, StrictLeavesAnUnknownWwidAloneAndSaysWhy) {
    Outcome o = run(args(" find_multipaths strict\n", "sdb"));
    EXPECT_EQ(o.exit, 1) << o.out << o.err;
    EXPECT_NE(o.out.find("sdb: not a multipath path: WWID 36001405aaaa is not known"),
              std::string::npos)
        << o.out;
    o = run(args(" find_multipaths strict\n", "--export /dev/sdb"));
    EXPECT_EQ(o.exit, 0) << o.err;
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=0\n");
}

TEST_F(IsPath, StrictClaimsAWwidOfTheWwidsFile) {
    Outcome o = run(args(" find_multipaths strict\n", "--export sdb", {"36001405aaaa"}));
    EXPECT_EQ(o.exit, 0) << o.err;
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=1\n");
    o = run(args(" find_multipaths strict\n", "sdb", {"36001405aaaa"}));
    EXPECT_EQ(o.exit, 0);
    EXPECT_NE(o.out.find("sdb: a multipath path: WWID 36001405aaaa is in "), std::string::npos)
        << o.out;
}

TEST_F(IsPath, StrictClaimsThePathsOfAMapSetUp) {
    std::string a = args(" find_multipaths strict\n", "--export sdf");
    std::filesystem::create_directories(sys_ + "/block/dm-0/dm");
    std::ofstream(sys_ + "/block/dm-0/dm/uuid") << "mpath-36001405cccc\n";
    Outcome o = run(a);
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=1\n") << o.err;
    // Another map's uuid does not count.
    std::ofstream(sys_ + "/block/dm-0/dm/uuid") << "mpath-36001405aaaa\n";
    o = run(a);
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=0\n") << o.err;
}

TEST_F(IsPath, OnClaimsAWwidWithTwoPathsAndNotALonePath) {
    Outcome o = run(args(" find_multipaths on\n", "--export sdd"));
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=1\n") << o.err;
    o = run(args(" find_multipaths on\n", "sdd"));
    EXPECT_NE(o.out.find("2 paths present (find_multipaths on)"), std::string::npos) << o.out;
    o = run(args(" find_multipaths on\n", "--export sdf"));
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=0\n") << o.err;
}

TEST_F(IsPath, ABlacklistedSiblingDoesNotCountAsASecondPath) {
    const std::string conf = " find_multipaths on\n}\nblacklist {\n devnode \"^sdd$\"\n";
    Outcome o = run(args(conf, "--export sdb"));
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=0\n") << o.err;
    o = run(args(conf, "sdd"));
    EXPECT_EQ(o.exit, 1);
    EXPECT_NE(o.out.find("sdd: not a multipath path: blacklisted by devnode \"^sdd$\""),
              std::string::npos)
        << o.out;
}

TEST_F(IsPath, SmartHoldsALonePathBackUntilTheTimeoutThenReleasesItForGood) {
    const std::string conf = " find_multipaths smart\n find_multipaths_timeout 5\n";
    Outcome o = run(args(conf, "--export --now 1000 sdf"));
    EXPECT_EQ(o.exit, 0) << o.err;
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=2\nFIND_MULTIPATHS_WAIT_UNTIL=1005\n"
                     "MPATH_WAIT_SECS=5\n");
    // udev runs it again with what it stored: still waiting, same deadline.
    const std::string event = "DEVNAME=/dev/sdf DEVTYPE=disk ID_SERIAL=36001405cccc ";
    o = runWith(event + "FIND_MULTIPATHS_WAIT_UNTIL=1005", args(conf, "--export --now 1003 sdf"));
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=2\nFIND_MULTIPATHS_WAIT_UNTIL=1005\n"
                     "MPATH_WAIT_SECS=2\n")
        << o.err;
    // Past it: released.
    o = runWith(event + "FIND_MULTIPATHS_WAIT_UNTIL=1005", args(conf, "--export --now 1005 sdf"));
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=0\nFIND_MULTIPATHS_WAIT_UNTIL=0\n") << o.err;
    // Released stays released, even when a second path shows up.
    o = runWith(event + "FIND_MULTIPATHS_WAIT_UNTIL=0", args(conf, "--export --now 2000 sdf"));
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=0\nFIND_MULTIPATHS_WAIT_UNTIL=0\n") << o.err;
    // A lone path of a WWID with two paths is claimed at once.
    o = run(args(conf, "--export --now 1000 sdb"));
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=1\n") << o.err;
}

TEST_F(IsPath, MultipathToolsFormIsWhatMultipathDashCPrints) {
    // multipath -c and -u (cli/multipath_compat.cpp) print the decision as
    // multipath-tools does: quoted, and -c exits 1 for "not a path".
    const std::string conf = " find_multipaths smart\n find_multipaths_timeout 5\n";
    Outcome o = run(args(conf, "--multipath-tools --now 1000 sdb"));
    EXPECT_EQ(o.exit, 0) << o.err;
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=\"1\"\n");
    o = run(args(conf, "--multipath-tools --now 1000 sdf"));
    EXPECT_EQ(o.exit, 0) << o.err;
    EXPECT_EQ(o.out,
              "FIND_MULTIPATHS_WAIT_UNTIL=\"1005.000000\"\nDM_MULTIPATH_DEVICE_PATH=\"2\"\n");
    const std::string event = "DEVNAME=/dev/sdf DEVTYPE=disk ID_SERIAL=36001405cccc ";
    o = runWith(event + "FIND_MULTIPATHS_WAIT_UNTIL=1005",
                args(conf, "--multipath-tools --now 1005 sdf"));
    EXPECT_EQ(o.exit, 1);
    EXPECT_EQ(o.out, "FIND_MULTIPATHS_WAIT_UNTIL=\"0\"\nDM_MULTIPATH_DEVICE_PATH=\"0\"\n");
    // -u: exit 0 whatever, so that udev imports what it printed.
    o = runWith(event + "FIND_MULTIPATHS_WAIT_UNTIL=1005",
                args(conf, "--multipath-tools --uevent --now 1005 sdf"));
    EXPECT_EQ(o.exit, 0);
    EXPECT_EQ(o.out, "FIND_MULTIPATHS_WAIT_UNTIL=\"0\"\nDM_MULTIPATH_DEVICE_PATH=\"0\"\n");
}

TEST_F(IsPath, ANegativeTimeoutHoldsBackOnlyADeviceSomeEntryDescribes) {
    // multipath-tools' meaning of find_multipaths_timeout -N: N seconds
    // for a device a devices {} or built-in entry describes, 1 s for
    // another; 0 and the default are -10.
    for (const char *timeout :
         {"", " find_multipaths_timeout 0\n", " find_multipaths_timeout -10\n"}) {
        const std::string conf = std::string(" find_multipaths smart\n") + timeout;
        Outcome o = run(args(conf, "--export --now 1000 sdf"));
        EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=2\nFIND_MULTIPATHS_WAIT_UNTIL=1001\n"
                         "MPATH_WAIT_SECS=1\n")
            << timeout << o.err;
        o = run(args(conf + "}\ndevices {\n device {\n vendor ACME\n product Array\n }\n",
                     "--export --now 1000 sdf"));
        EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=2\nFIND_MULTIPATHS_WAIT_UNTIL=1010\n"
                         "MPATH_WAIT_SECS=10\n")
            << timeout << o.err;
    }
}

TEST_F(IsPath, TheEventsPropertiesDecideUnderUdev) {
    // The tree's udev data says 36001405cccc; the event (what udev runs
    // the rule for) says it is the WWID listed.
    Outcome o = runWith("DEVNAME=/dev/sdf DEVTYPE=disk ID_SERIAL=36001405aaaa",
                        args(" find_multipaths strict\n", "--export sdf", {"36001405aaaa"}));
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=1\n") << o.err;
}

TEST_F(IsPath, AConfigurationWithErrorsClaimsOnlyWhatAMapHolds) {
    // A pattern that is no regular expression: mpathd would not start.
    const std::string conf = " find_multipaths strict\n}\nblacklist {\n devnode \"(\"\n";
    Outcome o = run(args(conf, "--export sdb", {"36001405aaaa"}));
    EXPECT_EQ(o.exit, 0);
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=0\n");
    EXPECT_NE(o.err.find("error: "), std::string::npos) << o.err;
    o = run(args(conf, "sdb", {"36001405aaaa"}));
    EXPECT_NE(o.out.find("the configuration has errors"), std::string::npos) << o.out;
    // Its map set up keeps it.
    std::filesystem::create_directories(sys_ + "/block/dm-0/dm");
    std::ofstream(sys_ + "/block/dm-0/dm/uuid") << "mpath-36001405aaaa\n";
    o = run(args(conf, "--export sdb", {"36001405aaaa"}));
    EXPECT_EQ(o.out, "DM_MULTIPATH_DEVICE_PATH=1\n");
}

TEST_F(IsPath, NamesADeviceThatIsNotThereOrNotADeviceName) {
    Outcome o = run(args(" find_multipaths strict\n", "sdq"));
    EXPECT_EQ(o.exit, 1);
    EXPECT_NE(o.err.find("sdq: no such block device"), std::string::npos) << o.err;
    o = run(args(" find_multipaths strict\n", "/dev/disk/by-id/x"));
    EXPECT_EQ(o.exit, 2);
    EXPECT_NE(o.err.find("'/dev/disk/by-id/x' is not a block device name"), std::string::npos)
        << o.err;
    o = run("is-path");
    EXPECT_EQ(o.exit, 2);
    EXPECT_NE(o.err.find("device is required"), std::string::npos) << o.err;
}

TEST_F(IsPath, TheRulesHelperDecidesAsMpathctlDoes) {
    // udev's rules run mpath-udev, an administrator mpathctl is-path: one
    // code in two programs, the same answers.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {" find_multipaths strict\n", "sdb"},
        {" find_multipaths strict\n", "--export sdd"},
        {" find_multipaths on\n", "sdd"},
        {" find_multipaths on\n", "--export sdf"},
        {" find_multipaths smart\n", "--export --now 1000 sdf"},
        {" find_multipaths on\n}\nblacklist {\n devnode \"^sdd$\"\n", "sdd"},
        {" find_multipaths strict\n", "sdq"},
    };
    for (const auto &[conf, device] : cases) {
        const std::string a = args(conf, device, {"36001405aaaa"});
        program_ = MPATHCTL;
        const Outcome ctl = run(a);
        program_ = MPATH_UDEV;
        const Outcome udev = run(a);
        EXPECT_EQ(udev.exit, ctl.exit) << conf << device;
        EXPECT_EQ(udev.out, ctl.out) << conf << device;
    }
    // It names itself in what it says.
    program_ = MPATH_UDEV;
    Outcome o = run(args(" find_multipaths strict\n", "sdq"));
    EXPECT_EQ(o.exit, 1);
    EXPECT_NE(o.err.find("mpath-udev is-path: sdq: no such block device"), std::string::npos)
        << o.err;
    o = run("is-ready no-such-map");
    EXPECT_EQ(o.exit, 1);
    EXPECT_NE(o.out.find("no-such-map: not ready: "), std::string::npos) << o.out;
    o = run("show maps");
    EXPECT_EQ(o.exit, 2) << o.out;
    EXPECT_NE(o.err.find("mpath-udev: "), std::string::npos) << o.err;
}

TEST(MpathUdev, LinksNeitherSdBusNorTheSharedCxxRuntime) {
    // What keeps it cheap to start for every udev event (docs/boot.md):
    // no libsystemd (and what it pulls in), no libstdc++ symbols for the
    // dynamic loader to resolve.
    const Outcome readelf = shell("readelf -d " + std::string(MPATH_UDEV));
    ASSERT_EQ(readelf.exit, 0) << readelf.out;
    const std::string &out = readelf.out;
    EXPECT_NE(out.find("[libudev.so"), std::string::npos) << out;
    EXPECT_EQ(out.find("libsystemd"), std::string::npos) << out;
    EXPECT_EQ(out.find("libstdc++"), std::string::npos) << out;
}

TEST_F(Mpathctl, IsReadyNamesAMapItCannotRead) {
    Outcome o = run("is-ready no-such-map");
    EXPECT_EQ(o.exit, 1);
    EXPECT_NE(o.out.find("no-such-map: not ready: "), std::string::npos) << o.out;
}
