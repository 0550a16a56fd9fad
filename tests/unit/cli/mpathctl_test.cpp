#include "temp_dir.h"
#include "test_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
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

class Mpathctl : public ::testing::Test {
protected:
    /// Runs mpathctl with \p args (shell words, already quoted).
    Outcome run(const std::string &args) {
        const auto errFile = dir_.path() / "stderr";
        std::string cmd = std::string(MPATHCTL) + " " + args + " 2>" + errFile.string();
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
        o.err = readFile(errFile);
        return o;
    }

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
    std::string conf = write("multipath.conf", "defaults {\n max_fds 8192\n}\n");
    Outcome o = run("config check " + conf);
    EXPECT_EQ(o.exit, 0) << o.out;
    EXPECT_NE(o.out.find(conf + ":2: note: keyword 'max_fds' is accepted; it has no effect here"),
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
