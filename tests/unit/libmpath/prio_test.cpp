#include "mpath/prio.h"
#include "mpath/prioritizer.h"
#include "mpath/sysfs_tree_builder.h"
#include "temp_dir.h"

#include <cerrno>
#include <future>
#include <gtest/gtest.h>

using namespace mpath;
using namespace std::chrono_literals;

namespace {

// REPORT TARGET PORT GROUPS reply, basic format: one descriptor per
// {state | pref bit, group}, each with one target port.
std::vector<uint8_t> rtpgReply(std::initializer_list<std::pair<uint8_t, uint16_t>> groups) {
    std::vector<uint8_t> body;
    for (auto [state, group] : groups) {
        body.insert(body.end(), {state, 0x0f, uint8_t(group >> 8), uint8_t(group), 0, 0, 0, 1});
        body.insert(body.end(), {0, 0, 0, 1});
    }
    std::vector<uint8_t> r{0, 0, uint8_t(body.size() >> 8), uint8_t(body.size())};
    r.insert(r.end(), body.begin(), body.end());
    return r;
}

void putLe32(std::vector<uint8_t> &v, uint32_t x) {
    for (int i = 0; i < 4; ++i)
        v.push_back(uint8_t(x >> (8 * i)));
}

// ANA log: header and one descriptor per {group, state, nsids}.
std::vector<uint8_t>
anaLog(std::initializer_list<std::tuple<uint32_t, uint8_t, std::vector<uint32_t>>> groups) {
    std::vector<uint8_t> log(16, 0);
    log[8] = static_cast<uint8_t>(groups.size());
    for (const auto &[grp, state, nsids] : groups) {
        putLe32(log, grp);
        putLe32(log, static_cast<uint32_t>(nsids.size()));
        log.insert(log.end(), 8, 0); // change count
        log.push_back(state);
        log.insert(log.end(), 15, 0);
        for (uint32_t n : nsids)
            putLe32(log, n);
    }
    return log;
}

class PrioritizerTest : public ::testing::Test {
protected:
    void SetUp() override { tree_ = std::make_unique<SysfsTreeBuilder>(dir_.str()); }

    // \a tpgs < 0: no inquiry attribute, as on kernels without one.
    Path scsi(const std::string &name, const std::string &accessState, int preferred, int tpg,
              int tpgs = -1) {
        SysfsTreeBuilder::ScsiDisk d;
        d.name = name;
        d.host = nextHost_++;
        d.minor = 16 * d.host;
        d.accessState = accessState;
        d.preferredPath = preferred;
        d.tpgs = tpgs;
        d.vpdPage83 = SysfsTreeBuilder::naaPage83("6001405aabbccdd0", tpg);
        EXPECT_EQ(tree_->addScsiDisk(d), 0);
        Path p;
        p.kernelName = name;
        return p;
    }

    PrioritizerContext context() {
        PrioritizerContext c;
        c.sysfs = Sysfs(tree_->sysfsRoot());
        c.devDirectory = dir_.file("dev-none");
        // Generous: the machine may be busy; tests of the bound set their own.
        c.timeout = 10s;
        return c;
    }

    std::unique_ptr<Prioritizer> make(std::string_view name, std::string_view args,
                                      PrioritizerContext c) {
        std::string error;
        auto p = Prioritizer::create(name, args, std::move(c), &error);
        EXPECT_NE(p, nullptr) << error;
        return p;
    }

    mpath_test::TempDir dir_{"mpath-prio"};
    std::unique_ptr<SysfsTreeBuilder> tree_;
    unsigned nextHost_{0};
};

} // namespace

TEST(Prio, AluaStatesMapToMultipathToolsPriorities) {
    EXPECT_EQ(Prio::fromAluaState(Prio::AluaOptimized, false, false), 50);
    EXPECT_EQ(Prio::fromAluaState(Prio::AluaNonOptimized, false, false), 10);
    EXPECT_EQ(Prio::fromAluaState(Prio::AluaLbaDependent, false, false), 5);
    EXPECT_EQ(Prio::fromAluaState(Prio::AluaStandby, false, false), 1);
    EXPECT_EQ(Prio::fromAluaState(Prio::AluaUnavailable, false, false), 0);
    EXPECT_EQ(Prio::fromAluaState(Prio::AluaTransitioning, false, false), 0);
}

TEST(Prio, PreferredBitAddsEightyUnlessOptimizedAndNotExclusive) {
    EXPECT_EQ(Prio::fromAluaState(Prio::AluaNonOptimized, true, false), 90);
    EXPECT_EQ(Prio::fromAluaState(Prio::AluaOptimized, true, false), 50);
    EXPECT_EQ(Prio::fromAluaState(Prio::AluaOptimized, true, true), 130);
}

TEST(Prio, AccessStateTextsAreKnown) {
    EXPECT_EQ(Prio::aluaStateFromText("active/optimized"), Prio::AluaOptimized);
    EXPECT_EQ(Prio::aluaStateFromText("active/non-optimized"), Prio::AluaNonOptimized);
    EXPECT_EQ(Prio::aluaStateFromText("standby"), Prio::AluaStandby);
    EXPECT_EQ(Prio::aluaStateFromText("bogus"), -EINVAL);
}

TEST(Prio, RtpgReplyGivesStateAndPreferredBitOfTheGroup) {
    auto reply = rtpgReply({{0x01, 1}, {0x80 | 0x00, 2}});
    uint8_t state = 0xff;
    bool pref = true;
    ASSERT_EQ(Prio::parseRtpg(reply, 1, state, pref), 0);
    EXPECT_EQ(state, Prio::AluaNonOptimized);
    EXPECT_FALSE(pref);
    ASSERT_EQ(Prio::parseRtpg(reply, 2, state, pref), 0);
    EXPECT_EQ(state, Prio::AluaOptimized);
    EXPECT_TRUE(pref);
    EXPECT_EQ(Prio::parseRtpg(reply, 3, state, pref), -ENOENT);
}

TEST(Prio, RtpgReplyWithExtendedHeaderIsUnderstood) {
    auto basic = rtpgReply({{0x02, 7}});
    std::vector<uint8_t> ext{0, 0, 0, uint8_t(basic.size())};
    ext.insert(ext.end(), {0x10, 0, 0, 0});
    ext.insert(ext.end(), basic.begin() + 4, basic.end());
    uint8_t state = 0;
    bool pref = false;
    ASSERT_EQ(Prio::parseRtpg(ext, 7, state, pref), 0);
    EXPECT_EQ(state, Prio::AluaStandby);
}

TEST(Prio, RtpgDescriptorCutShortIsMalformed) {
    auto reply = rtpgReply({{0x00, 1}});
    reply[4 + 7] = 9; // claims nine target ports
    uint8_t state = 0;
    bool pref = false;
    EXPECT_EQ(Prio::parseRtpg(reply, 2, state, pref), -EINVAL);
}

TEST(Prio, AnaLogGivesStateOfTheNamespaceOrItsGroup) {
    auto log = anaLog({{1, Prio::AnaOptimized, {1, 2}}, {2, Prio::AnaInaccessible, {3}}});
    EXPECT_EQ(Prio::parseAnaLog(log, 2), Prio::AnaOptimized);
    EXPECT_EQ(Prio::parseAnaLog(log, 3), Prio::AnaInaccessible);
    EXPECT_EQ(Prio::parseAnaLog(log, 9), -ENOENT);
    auto noNsids = anaLog({{4, Prio::AnaNonOptimized, {}}});
    EXPECT_EQ(Prio::parseAnaLog(noNsids, 9, 4), Prio::AnaNonOptimized);
    log.resize(30);
    EXPECT_EQ(Prio::parseAnaLog(log, 2), -EINVAL);
}

TEST(Prio, AnaStatesMapToMultipathToolsPriorities) {
    EXPECT_EQ(Prio::fromAnaState(Prio::AnaOptimized), 50);
    EXPECT_EQ(Prio::fromAnaState(Prio::AnaNonOptimized), 10);
    EXPECT_EQ(Prio::fromAnaState(Prio::AnaInaccessible), 5);
    EXPECT_EQ(Prio::fromAnaState(Prio::AnaPersistentLoss), 1);
    EXPECT_EQ(Prio::fromAnaState(Prio::AnaChange), 0);
    EXPECT_EQ(Prio::anaStateFromText("non-optimized"), Prio::AnaNonOptimized);
}

TEST(Prio, LatencyScaleFavoursFastPaths) {
    EXPECT_EQ(Prio::fromLatency(100, 10), 6);
    EXPECT_EQ(Prio::fromLatency(1000, 10), 5);
    EXPECT_EQ(Prio::fromLatency(0.1, 10), 8);
    EXPECT_EQ(Prio::fromLatency(1e9, 10), 1);
    EXPECT_EQ(Prio::fromLatency(100, 2), 19);
}

TEST_F(PrioritizerTest, UnknownNameIsRefusedWithAReason) {
    std::string error;
    EXPECT_EQ(Prioritizer::create("nosuch", "", context(), &error), nullptr);
    EXPECT_EQ(error, "unknown prioritizer 'nosuch'");
    EXPECT_EQ(Prioritizer::create("emc", "", context(), &error), nullptr);
    EXPECT_EQ(error, "'emc' is a multipath-tools prioritizer not implemented here");
    EXPECT_EQ(Prioritizer::create("alua", "bogus", context(), &error), nullptr);
    EXPECT_NE(error.find("exclusive_pref_bit"), std::string::npos);
}

TEST_F(PrioritizerTest, ConstGivesOne) {
    auto p = make("const", "", context());
    EXPECT_EQ(p->name(), "const");
    EXPECT_EQ(p->priority(Path{}), 1);
}

TEST_F(PrioritizerTest, SysfsReadsAccessStateAndPreferredPath) {
    Path a = scsi("sda", "active/non-optimized", 1, 1);
    Path b = scsi("sdb", "active/optimized", 0, 2);
    Path c = scsi("sdc", "", -1, 3);
    auto p = make("sysfs", "", context());
    EXPECT_EQ(p->priority(a), 90);
    EXPECT_EQ(p->priority(b), 50);
    EXPECT_EQ(p->priority(c), -ENODATA);
}

TEST_F(PrioritizerTest, AluaAsksTheDeviceForItsTargetPortGroup) {
    Path a = scsi("sda", "standby", 0, 2);
    PrioritizerContext c = context();
    auto seenCdb = std::make_shared<std::vector<uint8_t>>();
    c.scsiCommand = [seenCdb](const std::string &name, std::span<const uint8_t> cdb,
                              std::vector<uint8_t> &data, std::chrono::milliseconds) {
        EXPECT_EQ(name, "sda");
        seenCdb->assign(cdb.begin(), cdb.end());
        data = rtpgReply({{0x00, 1}, {0x01, 2}});
        return 0;
    };
    // Discovery left targetPortGroup unset: the prioritizer reads vpd_pg83.
    EXPECT_EQ(make("alua", "", c)->priority(a), 10);
    ASSERT_EQ(seenCdb->size(), 12u);
    EXPECT_EQ((*seenCdb)[0], 0xa3);
    EXPECT_EQ((*seenCdb)[1], 0x0a);
}

TEST_F(PrioritizerTest, AluaFallsBackToSysfsWhenTheCommandFails) {
    Path a = scsi("sda", "standby", 0, 2);
    PrioritizerContext c = context();
    c.scsiCommand = [](const std::string &, std::span<const uint8_t>, std::vector<uint8_t> &,
                       std::chrono::milliseconds) { return -EACCES; };
    EXPECT_EQ(make("alua", "", c)->priority(a), 1);
}

TEST_F(PrioritizerTest, AluaDoesNotAskADeviceThatReportsNoAluaSupport) {
    Path a = scsi("sda", "", -1, 2, 0);
    PrioritizerContext c = context();
    c.scsiCommand = [](const std::string &, std::span<const uint8_t>, std::vector<uint8_t> &,
                       std::chrono::milliseconds) {
        ADD_FAILURE() << "REPORT TARGET PORT GROUPS sent to a device with TPGS 0";
        return -EIO;
    };
    EXPECT_EQ(make("alua", "", c)->priority(a), -EOPNOTSUPP);
    // What discovery found stands without the inquiry attribute.
    Path b = scsi("sdb", "", -1, 2);
    b.tpgs = 0;
    EXPECT_EQ(make("alua", "", c)->priority(b), -EOPNOTSUPP);
}

TEST_F(PrioritizerTest, AluaAsksADeviceThatReportsAluaSupport) {
    Path implicit = scsi("sda", "standby", 0, 2, 1);
    Path explicitOnly = scsi("sdb", "standby", 0, 1, 2);
    PrioritizerContext c = context();
    auto sent = std::make_shared<int>(0);
    c.scsiCommand = [sent](const std::string &, std::span<const uint8_t>,
                           std::vector<uint8_t> &data, std::chrono::milliseconds) {
        ++*sent;
        data = rtpgReply({{0x00, 1}, {0x01, 2}});
        return 0;
    };
    auto p = make("alua", "", c);
    EXPECT_EQ(p->priority(implicit), 10);
    EXPECT_EQ(p->priority(explicitOnly), 50);
    EXPECT_EQ(*sent, 2);
}

TEST_F(PrioritizerTest, AluaFallsBackToSysfsForADeviceThatReportsAluaSupport) {
    Path a = scsi("sda", "active/non-optimized", 0, 2, 3);
    PrioritizerContext c = context();
    c.scsiCommand = [](const std::string &, std::span<const uint8_t>, std::vector<uint8_t> &,
                       std::chrono::milliseconds) { return -EIO; };
    EXPECT_EQ(make("alua", "", c)->priority(a), 10);
}

TEST_F(PrioritizerTest, AluaGivesUpOnAHungDeviceWithinTheTimeout) {
    Path a = scsi("sda", "", -1, 2);
    PrioritizerContext c = context();
    c.timeout = 50ms;
    auto release = std::make_shared<std::promise<void>>();
    std::shared_future<void> released = release->get_future().share();
    c.scsiCommand = [released](const std::string &, std::span<const uint8_t>,
                               std::vector<uint8_t> &, std::chrono::milliseconds) {
        released.wait();
        return 0;
    };
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(make("alua", "", c)->priority(a), -ETIMEDOUT);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
    release->set_value();
}

TEST_F(PrioritizerTest, AnaPrefersTheAnaStateAttribute) {
    SysfsTreeBuilder::NvmeNamespace n;
    n.name = "nvme0n1";
    n.anaState = "non-optimized";
    ASSERT_EQ(tree_->addNvmeNamespace(n), 0);
    PrioritizerContext c = context();
    c.nvmeAnaLog = [](const std::string &, std::vector<uint8_t> &, std::chrono::milliseconds) {
        ADD_FAILURE() << "log page read although sysfs had the state";
        return -EIO;
    };
    Path p;
    p.kernelName = "nvme0n1";
    EXPECT_EQ(make("ana", "", c)->priority(p), 10);
}

TEST_F(PrioritizerTest, AnaReadsTheLogPageWithoutTheAttribute) {
    SysfsTreeBuilder::NvmeNamespace n;
    n.name = "nvme1n1";
    n.controller = 1;
    n.nsid = 3;
    ASSERT_EQ(tree_->addNvmeNamespace(n), 0);
    PrioritizerContext c = context();
    c.nvmeAnaLog = [](const std::string &name, std::vector<uint8_t> &log,
                      std::chrono::milliseconds) {
        EXPECT_EQ(name, "nvme1n1");
        log = anaLog({{1, Prio::AnaOptimized, {1}}, {2, Prio::AnaPersistentLoss, {3}}});
        return 0;
    };
    Path p;
    p.kernelName = "nvme1n1";
    EXPECT_EQ(make("ana", "", c)->priority(p), 1);
}

TEST_F(PrioritizerTest, PathLatencyAveragesReadsOnALogScale) {
    PrioritizerContext c = context();
    auto calls = std::make_shared<int>(0);
    c.readLatency = [calls](const std::string &, std::chrono::nanoseconds &latency) {
        ++*calls;
        latency = (*calls % 2) ? 50us : 150us;
        return 0;
    };
    Path p;
    p.kernelName = "sda";
    EXPECT_EQ(make("path_latency", "io_num=4 base_num=10", c)->priority(p), 6);
    EXPECT_EQ(*calls, 4);
}

TEST_F(PrioritizerTest, PathLatencyRejectsOutOfRangeArguments) {
    std::string error;
    EXPECT_EQ(Prioritizer::create("path_latency", "io_num=1", context(), &error), nullptr);
    EXPECT_NE(error.find("io_num"), std::string::npos);
    EXPECT_EQ(Prioritizer::create("path_latency", "base_num=1.0", context(), &error), nullptr);
    EXPECT_EQ(Prioritizer::create("path_latency", "speed=3", context(), &error), nullptr);
}

TEST_F(PrioritizerTest, PathLatencyGivesUpOnAHungDeviceWithinTheTimeout) {
    PrioritizerContext c = context();
    c.timeout = 50ms;
    auto release = std::make_shared<std::promise<void>>();
    std::shared_future<void> released = release->get_future().share();
    c.readLatency = [released](const std::string &, std::chrono::nanoseconds &latency) {
        released.wait();
        latency = 1us;
        return 0;
    };
    Path p;
    p.kernelName = "sda";
    EXPECT_EQ(make("path_latency", "", c)->priority(p), -ETIMEDOUT);
    release->set_value();
}

TEST_F(PrioritizerTest, WeightedPathUsesTheFirstMatchingExpression) {
    Path p;
    p.kernelName = "sdc";
    p.scsiAddress = "3:0:1:0";
    p.serial = "ctrlB-77";
    p.ids = {"0x2000", "0x2100", "0x5000", "0x5001", "", -1};
    EXPECT_EQ(make("weightedpath", "devname ^sd[ab]$ 5 ^sdc$ 20 .* 1", context())->priority(p), 20);
    EXPECT_EQ(make("weightedpath", "hbtl ^3:0:.*:0$ 7", context())->priority(p), 7);
    EXPECT_EQ(make("weightedpath", "serial ^ctrlA 9", context())->priority(p), 0);
    EXPECT_EQ(make("weightedpath", "wwn ^0x2000:0x2100:0x5000: 3", context())->priority(p), 3);
}

TEST_F(PrioritizerTest, WeightedPathRejectsIncompleteArguments) {
    std::string error;
    EXPECT_EQ(Prioritizer::create("weightedpath", "devname ^sd", context(), &error), nullptr);
    EXPECT_NE(error.find("no priority"), std::string::npos);
    EXPECT_EQ(Prioritizer::create("weightedpath", "colour red 3", context(), &error), nullptr);
    EXPECT_EQ(Prioritizer::create("weightedpath", "devname ([ 3", context(), &error), nullptr);
}
