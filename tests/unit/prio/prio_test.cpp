#include "mpath/prio/prioritizer.h"
#include "mpath/prio/states.h"
#include "mpath/sys/executor.h"
#include "mpath/testing/manual_loop.h"

#include <atomic>
#include <cerrno>
#include <future>
#include <gtest/gtest.h>
#include <optional>

using namespace mpath;
using namespace mpath::prio;
using model::Path;
using mpath::testing::ManualLoop;
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
    // A SCSI path as discovery describes it. \a tpgs < 0: no inquiry
    // attribute, as on kernels without one.
    static Path scsi(const std::string &name, const std::string &accessState, bool preferred,
                     int tpg, int tpgs = -1) {
        Path p;
        p.kernelName = name;
        p.accessState = accessState;
        p.preferred = preferred;
        p.ids.targetPortGroup = tpg;
        p.tpgs = tpgs;
        return p;
    }

    static Context context() {
        Context c = Context::noDevices();
        c.devDirectory = "/nonexistent-dev";
        return c;
    }

    static std::unique_ptr<Prioritizer> make(std::string_view name, std::string_view args,
                                             Context c = context()) {
        auto p = Prioritizer::create(name, args, std::move(c));
        EXPECT_TRUE(p) << p.error().message;
        return p ? std::move(*p) : nullptr;
    }

    /// The priority of \a path, computed as a caller must: inline for a
    /// prioritizer without I/O, else on an executor with \a deadline.
    static Result<int> priority(const Prioritizer &p, const Path &path,
                                std::chrono::milliseconds deadline = 10s) {
        if (!p.needsIo())
            return p.job(path)();
        ManualLoop loop;
        sys::Executor ex(loop);
        std::optional<Result<int>> r;
        startPriority(ex, p, path, deadline, [&](Result<int> x) { r = std::move(x); });
        if (!loop.runUntil([&] { return r.has_value(); }, 5s))
            loop.advance(deadline);
        return r ? *r : Result<int>(Error{EIO, "no answer"});
    }
};

} // namespace

TEST(Prio, AluaStatesMapToMultipathToolsPriorities) {
    EXPECT_EQ(fromAluaState(AluaOptimized, false, false), 50);
    EXPECT_EQ(fromAluaState(AluaNonOptimized, false, false), 10);
    EXPECT_EQ(fromAluaState(AluaLbaDependent, false, false), 5);
    EXPECT_EQ(fromAluaState(AluaStandby, false, false), 1);
    EXPECT_EQ(fromAluaState(AluaUnavailable, false, false), 0);
    EXPECT_EQ(fromAluaState(AluaTransitioning, false, false), 0);
}

TEST(Prio, PreferredBitAddsEightyUnlessOptimizedAndNotExclusive) {
    EXPECT_EQ(fromAluaState(AluaNonOptimized, true, false), 90);
    EXPECT_EQ(fromAluaState(AluaOptimized, true, false), 50);
    EXPECT_EQ(fromAluaState(AluaOptimized, true, true), 130);
}

TEST(Prio, AccessStateTextsAreKnown) {
    EXPECT_EQ(*aluaStateFromText("active/optimized"), AluaOptimized);
    EXPECT_EQ(*aluaStateFromText("active/non-optimized"), AluaNonOptimized);
    EXPECT_EQ(*aluaStateFromText("standby"), AluaStandby);
    auto bogus = aluaStateFromText("bogus");
    ASSERT_FALSE(bogus);
    EXPECT_EQ(bogus.code(), EINVAL);
    EXPECT_EQ(bogus.error().message, "unknown ALUA access state 'bogus'");
}

TEST(Prio, RtpgReplyGivesStateAndPreferredBitOfTheGroup) {
    auto reply = rtpgReply({{0x01, 1}, {0x80 | 0x00, 2}});
    auto one = parseRtpg(reply, 1);
    ASSERT_TRUE(one);
    EXPECT_EQ(one->state, AluaNonOptimized);
    EXPECT_FALSE(one->preferred);
    auto two = parseRtpg(reply, 2);
    ASSERT_TRUE(two);
    EXPECT_EQ(two->state, AluaOptimized);
    EXPECT_TRUE(two->preferred);
    EXPECT_EQ(parseRtpg(reply, 3).code(), ENOENT);
}

TEST(Prio, RtpgReplyWithExtendedHeaderIsUnderstood) {
    auto basic = rtpgReply({{0x02, 7}});
    std::vector<uint8_t> ext{0, 0, 0, uint8_t(basic.size())};
    ext.insert(ext.end(), {0x10, 0, 0, 0});
    ext.insert(ext.end(), basic.begin() + 4, basic.end());
    auto g = parseRtpg(ext, 7);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->state, AluaStandby);
}

TEST(Prio, RtpgDescriptorCutShortIsMalformed) {
    auto reply = rtpgReply({{0x00, 1}});
    reply[4 + 7] = 9; // claims nine target ports
    EXPECT_EQ(parseRtpg(reply, 2).code(), EINVAL);
}

TEST(Prio, AnaLogGivesStateOfTheNamespaceOrItsGroup) {
    auto log = anaLog({{1, AnaOptimized, {1, 2}}, {2, AnaInaccessible, {3}}});
    EXPECT_EQ(*parseAnaLog(log, 2), AnaOptimized);
    EXPECT_EQ(*parseAnaLog(log, 3), AnaInaccessible);
    EXPECT_EQ(parseAnaLog(log, 9).code(), ENOENT);
    auto noNsids = anaLog({{4, AnaNonOptimized, {}}});
    EXPECT_EQ(*parseAnaLog(noNsids, 9, 4), AnaNonOptimized);
    log.resize(30);
    EXPECT_EQ(parseAnaLog(log, 2).code(), EINVAL);
}

TEST(Prio, AnaStatesMapToMultipathToolsPriorities) {
    EXPECT_EQ(fromAnaState(AnaOptimized), 50);
    EXPECT_EQ(fromAnaState(AnaNonOptimized), 10);
    EXPECT_EQ(fromAnaState(AnaInaccessible), 5);
    EXPECT_EQ(fromAnaState(AnaPersistentLoss), 1);
    EXPECT_EQ(fromAnaState(AnaChange), 0);
    EXPECT_EQ(*anaStateFromText("non-optimized"), AnaNonOptimized);
}

TEST(Prio, LatencyScaleFavoursFastPaths) {
    EXPECT_EQ(fromLatency(100, 10), 6);
    EXPECT_EQ(fromLatency(1000, 10), 5);
    EXPECT_EQ(fromLatency(0.1, 10), 8);
    EXPECT_EQ(fromLatency(1e9, 10), 1);
    EXPECT_EQ(fromLatency(100, 2), 19);
}

TEST_F(PrioritizerTest, UnknownNameIsRefusedWithAReason) {
    auto none = Prioritizer::create("nosuch", "", context());
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().message, "unknown prioritizer 'nosuch'");
    auto emc = Prioritizer::create("emc", "", context());
    ASSERT_FALSE(emc);
    EXPECT_EQ(emc.code(), ENOTSUP);
    EXPECT_EQ(emc.error().message, "'emc' is a multipath-tools prioritizer not implemented here");
    auto bad = Prioritizer::create("alua", "bogus", context());
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("exclusive_pref_bit"), std::string::npos);
}

TEST_F(PrioritizerTest, TheDefaultCommandTimeoutGivesTheDeviceTime) {
    // mpathctl plan once gave the kernel a command timeout of 0 and waited
    // for nothing: every ALUA path ranked -1. The default is multipath-
    // tools' 30 s command timeout.
    EXPECT_EQ(Context{}.commandTimeout, 30s);
    EXPECT_EQ(Context::system().commandTimeout, 30s);
}

TEST_F(PrioritizerTest, ConstGivesOneWithoutIo) {
    auto p = make("const", "");
    EXPECT_EQ(p->name(), "const");
    EXPECT_FALSE(p->needsIo());
    EXPECT_EQ(*priority(*p, Path{}), 1);
}

TEST_F(PrioritizerTest, SysfsReadsAccessStateAndPreferredPathWithoutIo) {
    auto p = make("sysfs", "");
    EXPECT_FALSE(p->needsIo());
    EXPECT_EQ(*priority(*p, scsi("sda", "active/non-optimized", true, 1)), 90);
    EXPECT_EQ(*priority(*p, scsi("sdb", "active/optimized", false, 2)), 50);
    EXPECT_EQ(priority(*p, scsi("sdc", "", false, 3)).code(), ENODATA);
}

TEST_F(PrioritizerTest, AluaAsksTheDeviceForItsTargetPortGroup) {
    Path a = scsi("sda", "standby", false, 2);
    Context c = context();
    auto seenCdb = std::make_shared<std::vector<uint8_t>>();
    auto seenTimeout = std::make_shared<std::chrono::milliseconds>(0);
    c.scsiCommand =
        [seenCdb, seenTimeout](const std::string &name, std::span<const uint8_t> cdb, size_t length,
                               std::chrono::milliseconds timeout) -> Result<std::vector<uint8_t>> {
        EXPECT_EQ(name, "sda");
        EXPECT_EQ(length, 4096u);
        seenCdb->assign(cdb.begin(), cdb.end());
        *seenTimeout = timeout;
        return rtpgReply({{0x00, 1}, {0x01, 2}});
    };
    auto p = make("alua", "", c);
    EXPECT_TRUE(p->needsIo());
    EXPECT_EQ(*priority(*p, a), 10) << "group 2 is active/non-optimized in the reply";
    ASSERT_EQ(seenCdb->size(), 12u);
    EXPECT_EQ((*seenCdb)[0], 0xa3);
    EXPECT_EQ((*seenCdb)[1], 0x0a);
    EXPECT_EQ(*seenTimeout, 30s);
}

TEST_F(PrioritizerTest, AluaFallsBackToSysfsWhenTheCommandFails) {
    Context c = context();
    c.scsiCommand = [](const std::string &, std::span<const uint8_t>, size_t,
                       std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        return Error{EACCES, "denied"};
    };
    EXPECT_EQ(*priority(*make("alua", "", c), scsi("sda", "standby", false, 2)), 1);
}

TEST_F(PrioritizerTest, AluaSaysWhyWhenNeitherTheCommandNorSysfsAnswer) {
    Context c = context();
    c.scsiCommand = [](const std::string &, std::span<const uint8_t>, size_t,
                       std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        return Error{EIO, "sda: SCSI status 2"};
    };
    auto r = priority(*make("alua", "", c), scsi("sda", "", false, 2, 1));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "REPORT TARGET PORT GROUPS: sda: SCSI status 2");
}

TEST_F(PrioritizerTest, AluaDoesNotAskADeviceThatReportsNoAluaSupport) {
    Context c = context();
    c.scsiCommand = [](const std::string &, std::span<const uint8_t>, size_t,
                       std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        ADD_FAILURE() << "REPORT TARGET PORT GROUPS sent to a device with TPGS 0";
        return Error{EIO, "sent"};
    };
    EXPECT_EQ(priority(*make("alua", "", c), scsi("sda", "", false, 2, 0)).code(), EOPNOTSUPP);
}

TEST_F(PrioritizerTest, AluaAsksADeviceThatReportsAluaSupport) {
    Path implicit = scsi("sda", "standby", false, 2, 1);
    Path explicitOnly = scsi("sdb", "standby", false, 1, 2);
    Context c = context();
    auto sent = std::make_shared<std::atomic<int>>(0);
    c.scsiCommand = [sent](const std::string &, std::span<const uint8_t>, size_t,
                           std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        ++*sent;
        return rtpgReply({{0x00, 1}, {0x01, 2}});
    };
    auto p = make("alua", "", c);
    EXPECT_EQ(*priority(*p, implicit), 10);
    EXPECT_EQ(*priority(*p, explicitOnly), 50);
    EXPECT_EQ(*sent, 2);
}

TEST_F(PrioritizerTest, AluaGivesUpOnAHungDeviceAtItsDeadline) {
    Context c = context();
    auto release = std::make_shared<std::promise<void>>();
    std::shared_future<void> released = release->get_future().share();
    c.scsiCommand = [released](const std::string &, std::span<const uint8_t>, size_t,
                               std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        released.wait();
        return std::vector<uint8_t>{};
    };
    auto p = make("alua", "", c);
    ManualLoop loop;
    std::optional<Result<int>> r;
    {
        sys::Executor ex(loop);
        startPriority(ex, *p, scsi("sda", "", false, 2), 2s,
                      [&](Result<int> x) { r = std::move(x); });
        loop.dispatch(50ms);
        EXPECT_FALSE(r) << "the command hangs";
        loop.advance(2s);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->code(), ETIMEDOUT);
    }
    release->set_value();
}

TEST_F(PrioritizerTest, AnaUsesTheStateDiscoveryReadWithoutIo) {
    Context c = context();
    c.nvmeAnaLog = [](const std::string &,
                      std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        ADD_FAILURE() << "log page read although sysfs had the state";
        return Error{EIO, "read"};
    };
    Path p;
    p.kernelName = "nvme0n1";
    p.nsid = 1;
    p.anaState = "non-optimized";
    EXPECT_EQ(*priority(*make("ana", "", c), p), 10);
}

TEST_F(PrioritizerTest, AnaReadsTheLogPageWithoutTheAttribute) {
    Context c = context();
    c.nvmeAnaLog = [](const std::string &name,
                      std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        EXPECT_EQ(name, "nvme1n1");
        return anaLog({{1, AnaOptimized, {1}}, {2, AnaPersistentLoss, {3}}});
    };
    Path p;
    p.kernelName = "nvme1n1";
    p.nsid = 3;
    EXPECT_EQ(*priority(*make("ana", "", c), p), 1);
}

TEST_F(PrioritizerTest, AnaWaitsForTheLogPageNoLongerThanTheKeepAliveTimeout) {
    // On Linux 6.1, nvme-tcp's error recovery of a controller that stopped
    // answering waits for an admin command in flight: a log page read with
    // the 30 s command timeout held the path's I/O for 30 s after its port
    // dropped. A controller that does not answer within its keep-alive
    // timeout is reset anyway.
    Context c = context();
    auto seen = std::make_shared<std::vector<std::chrono::milliseconds>>();
    c.nvmeAnaLog = [seen](const std::string &,
                          std::chrono::milliseconds timeout) -> Result<std::vector<uint8_t>> {
        seen->push_back(timeout);
        return anaLog({{1, AnaOptimized, {1}}});
    };
    auto p = make("ana", "", c);
    Path path;
    path.kernelName = "nvme3n1";
    path.nsid = 1;
    path.keepAliveTimeout = 5;
    EXPECT_EQ(*priority(*p, path), 50);
    path.keepAliveTimeout = 0; // PCIe, or a kernel without kato
    EXPECT_EQ(*priority(*p, path), 50);
    path.keepAliveTimeout = 120;
    EXPECT_EQ(*priority(*p, path), 50);
    EXPECT_EQ(*seen, (std::vector<std::chrono::milliseconds>{5s, 30s, 30s}));
}

TEST_F(PrioritizerTest, PathLatencyAveragesReadsOnALogScale) {
    Context c = context();
    auto calls = std::make_shared<std::atomic<int>>(0);
    c.readLatency = [calls](const std::string &) -> Result<std::chrono::nanoseconds> {
        ++*calls;
        return std::chrono::nanoseconds((*calls % 2) ? 50us : 150us);
    };
    Path p;
    p.kernelName = "sda";
    EXPECT_EQ(*priority(*make("path_latency", "io_num=4 base_num=10", c), p), 6);
    EXPECT_EQ(*calls, 4);
}

TEST_F(PrioritizerTest, PathLatencyRejectsOutOfRangeArguments) {
    auto few = Prioritizer::create("path_latency", "io_num=1", context());
    ASSERT_FALSE(few);
    EXPECT_NE(few.error().message.find("io_num"), std::string::npos);
    EXPECT_FALSE(Prioritizer::create("path_latency", "base_num=1.0", context()));
    EXPECT_FALSE(Prioritizer::create("path_latency", "speed=3", context()));
}

TEST_F(PrioritizerTest, WeightedPathUsesTheFirstMatchingExpression) {
    Path p;
    p.kernelName = "sdc";
    p.scsiAddress = "3:0:1:0";
    p.serial = "ctrlB-77";
    p.ids = {"0x2000", "0x2100", "0x5000", "0x5001", "", -1, "", ""};
    EXPECT_EQ(*priority(*make("weightedpath", "devname ^sd[ab]$ 5 ^sdc$ 20 .* 1"), p), 20);
    EXPECT_EQ(*priority(*make("weightedpath", "hbtl ^3:0:.*:0$ 7"), p), 7);
    EXPECT_EQ(*priority(*make("weightedpath", "serial ^ctrlA 9"), p), 0);
    EXPECT_EQ(*priority(*make("weightedpath", "wwn ^0x2000:0x2100:0x5000: 3"), p), 3);
}

TEST_F(PrioritizerTest, WeightedPathRejectsIncompleteArguments) {
    auto noPrio = Prioritizer::create("weightedpath", "devname ^sd", context());
    ASSERT_FALSE(noPrio);
    EXPECT_NE(noPrio.error().message.find("no priority"), std::string::npos);
    EXPECT_FALSE(Prioritizer::create("weightedpath", "colour red 3", context()));
    EXPECT_FALSE(Prioritizer::create("weightedpath", "devname ([ 3", context()));
}

TEST_F(PrioritizerTest, DetectedAnaFallsBackToTheConfiguredOneOnAControllerWithoutAna) {
    Context c = context();
    bool ana = false;
    c.nvmeAnaLog = [&ana](const std::string &name,
                          std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        if (!ana)
            return Error{EOPNOTSUPP, "/dev/" + name + ": the controller has no ANA log"};
        return anaLog({{1, AnaOptimized, {1}}, {2, AnaNonOptimized, {2}}});
    };
    Path p;
    p.kernelName = "nvme1n1";
    p.nsid = 2;
    auto made = Prioritizer::create("ana", "", "const", "", c);
    ASSERT_TRUE(made);
    EXPECT_EQ((*made)->name(), "ana");
    EXPECT_EQ(*priority(**made, p), 1) << "const, configured, when the log is not supported";
    ana = true;
    EXPECT_EQ(*priority(**made, p), 10) << "ana, non-optimized, when it is";
    // Any other failure is ana's own: no silent switch of method.
    c.nvmeAnaLog = [](const std::string &,
                      std::chrono::milliseconds) -> Result<std::vector<uint8_t>> {
        return Error{EIO, "Get Log Page: NVMe status 6"};
    };
    auto failing = Prioritizer::create("ana", "", "const", "", c);
    ASSERT_TRUE(failing);
    EXPECT_EQ(priority(**failing, p).code(), EIO);
}
