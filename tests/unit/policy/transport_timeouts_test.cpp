#include "mpath/config/parser.h"
#include "mpath/policy/transport_timeouts.h"

#include <gtest/gtest.h>

using namespace mpath::policy;
using mpath::config::EffectiveSettings;
using mpath::config::OffOrNumber;
using mpath::model::Path;
using mpath::model::Transport;

namespace {

EffectiveSettings settingsFrom(const char *text) {
    mpath::config::ConfigResult r = mpath::config::parseString(text);
    EXPECT_FALSE(r.hasErrors());
    for (const auto &d : r.diagnostics)
        ADD_FAILURE() << "unexpected diagnostic: " << d.toString();
    return r.config.effective("ACME", "Disk", "1.0", "3600a");
}

Path pathOn(Transport t, const std::string &port) {
    Path p;
    p.kernelName = "sdb";
    p.transport = t;
    p.ids.scsiHost = "host3";
    p.ids.transportPort = port;
    return p;
}

std::vector<std::string> attributes(const std::vector<SysfsWrite> &writes) {
    std::vector<std::string> out;
    for (const auto &w : writes)
        out.push_back(w.attribute + "=" + w.value);
    return out;
}

} // namespace

TEST(TransportTimeouts,
     WithoutAConfigurationAnIscsiSessionRecoversForFiveSecondsAsMultipathdSetsIt) {
    TransportTimeouts t = transportTimeouts(settingsFrom(""), 5);
    EXPECT_EQ(t.fastIoFail, OffOrNumber::number(5));
    EXPECT_FALSE(t.devLoss) << "the transport's own dev_loss_tmo stays";
    EXPECT_FALSE(t.ehDeadline);
    EXPECT_FALSE(t.configured);
    std::vector<std::string> notes;
    EXPECT_EQ(attributes(timeoutWrites(t, pathOn(Transport::Iscsi, "session2"), {}, &notes)),
              std::vector<std::string>{"class/iscsi_session/session2/recovery_tmo=5"});
    EXPECT_TRUE(notes.empty());
    // Nothing is said of a virtio disk that nobody asked timeouts for.
    EXPECT_TRUE(timeoutWrites(t, pathOn(Transport::Virtio, ""), {}, &notes).empty());
    EXPECT_TRUE(notes.empty());
}

TEST(TransportTimeouts, FibreChannelRaisesDevLossFirstWhenFastIoFailWouldNotBeBelowIt) {
    TransportTimeouts t = transportTimeouts(
        settingsFrom("defaults {\n fast_io_fail_tmo 30\n dev_loss_tmo 90\n}\n"), 5);
    const Path p = pathOn(Transport::FibreChannel, "rport-3:0-1");
    const std::string dir = "class/fc_remote_ports/rport-3:0-1/";
    // The port's dev_loss_tmo is 10 now: fast_io_fail_tmo 30 would be refused.
    EXPECT_EQ(attributes(timeoutWrites(t, p, 10u)),
              (std::vector<std::string>{dir + "dev_loss_tmo=31", dir + "fast_io_fail_tmo=30",
                                        dir + "dev_loss_tmo=90"}));
    EXPECT_EQ(attributes(timeoutWrites(t, p, 60u)),
              (std::vector<std::string>{dir + "fast_io_fail_tmo=30", dir + "dev_loss_tmo=90"}));
    std::vector<std::string> notes;
    EXPECT_TRUE(timeoutWrites(t, p, std::nullopt, &notes).empty())
        << "an unreadable port is left alone";
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("rport-3:0-1's dev_loss_tmo cannot be read"), std::string::npos);
}

TEST(TransportTimeouts, DevLossIsRaisedToOutlastNoPathRetryAndIsInfiniteWhenItQueues) {
    std::vector<std::string> notes;
    // 12 retries x 5 s = 60 s, + 1 s for the minute + one 5 s check.
    TransportTimeouts t = transportTimeouts(
        settingsFrom("defaults {\n no_path_retry 12\n dev_loss_tmo 30\n}\n"), 5, &notes);
    EXPECT_EQ(t.devLoss, 66u);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "dev_loss_tmo raised from 30 to 66: no_path_retry queues that long");

    t = transportTimeouts(settingsFrom("defaults {\n no_path_retry 12\n}\n"), 5);
    EXPECT_EQ(t.devLoss, 66u) << "set even where the file has no dev_loss_tmo";

    t = transportTimeouts(settingsFrom("defaults {\n no_path_retry queue\n}\n"), 5);
    EXPECT_EQ(t.devLoss, kDevLossInfinity);
    EXPECT_TRUE(t.queueForever);
    const std::string dir = "class/fc_remote_ports/rport-3:0-1/";
    EXPECT_EQ(
        attributes(timeoutWrites(t, pathOn(Transport::FibreChannel, "rport-3:0-1"), 60u)),
        (std::vector<std::string>{dir + "fast_io_fail_tmo=5", dir + "dev_loss_tmo=4294967295"}));
}

TEST(TransportTimeouts, FastIoFailNotBelowDevLossIsTurnedOffAndDevLossThenStaysAtSixHundred) {
    std::vector<std::string> notes;
    TransportTimeouts t = transportTimeouts(
        settingsFrom("defaults {\n fast_io_fail_tmo 20\n dev_loss_tmo 20\n}\n"), 5, &notes);
    EXPECT_TRUE(t.fastIoFail.off);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "fast_io_fail_tmo 20 turned off: it is not below dev_loss_tmo 20");

    // Without fast_io_fail_tmo the FC transport takes no dev_loss_tmo above 600.
    t = transportTimeouts(settingsFrom("defaults {\n fast_io_fail_tmo off\n dev_loss_tmo 900\n}\n"),
                          5);
    notes.clear();
    const std::string dir = "class/fc_remote_ports/rport-3:0-1/";
    EXPECT_EQ(
        attributes(timeoutWrites(t, pathOn(Transport::FibreChannel, "rport-3:0-1"), 60u, &notes)),
        (std::vector<std::string>{dir + "fast_io_fail_tmo=off", dir + "dev_loss_tmo=600"}));
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "sdb: dev_loss_tmo limited to 600: fast_io_fail_tmo is off");
}

TEST(TransportTimeouts, IscsiTakesNoDevLossAndCannotSwitchRecoveryOffAndSaysSo) {
    std::vector<std::string> notes;
    TransportTimeouts t = transportTimeouts(
        settingsFrom("defaults {\n fast_io_fail_tmo off\n dev_loss_tmo 60\n}\n"), 5);
    EXPECT_TRUE(timeoutWrites(t, pathOn(Transport::Iscsi, "session1"), {}, &notes).empty());
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_NE(notes[0].find("dev_loss_tmo has no iSCSI counterpart"), std::string::npos);
    EXPECT_EQ(notes[1], "sdb: an iSCSI session's recovery_tmo cannot be off; session1's stays");
}

TEST(TransportTimeouts, SasKeepsItsReadOnlyNexusLossTimeoutAndEveryScsiHostTakesEhDeadline) {
    TransportTimeouts t = transportTimeouts(
        settingsFrom("devices {\n device {\n vendor ACME\n product Disk\n dev_loss_tmo 45\n"
                     " eh_deadline 10\n }\n}\n"),
        5);
    EXPECT_TRUE(t.configured);
    std::vector<std::string> notes;
    EXPECT_EQ(attributes(timeoutWrites(t, pathOn(Transport::Sas, "end_device-3:1"), {}, &notes)),
              std::vector<std::string>{"class/scsi_host/host3/eh_deadline=10"});
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "sdb: dev_loss_tmo is not applied: a SAS end device's I_T nexus loss "
                        "timeout is read-only");
    // A SCSI path without a transport class (virtio-scsi, scsi_debug) takes
    // eh_deadline only, and says why the rest is not applied.
    notes.clear();
    EXPECT_EQ(attributes(timeoutWrites(t, pathOn(Transport::Scsi, ""), {}, &notes)),
              std::vector<std::string>{"class/scsi_host/host3/eh_deadline=10"});
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("apply to FC, iSCSI and SAS paths only"), std::string::npos);
    // NVMe over PCIe has no transport to time out.
    notes.clear();
    Path pcie = pathOn(Transport::Nvme, "");
    pcie.protocol = "nvme:pcie";
    EXPECT_TRUE(timeoutWrites(t, pcie, {}, &notes).empty());
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "sdb: transport timeouts apply to SCSI and NVMe over fabrics paths only "
                        "(this one is nvme:pcie)");
}

namespace {

Path nvmeOverTcp() {
    Path p;
    p.kernelName = "nvme3n1";
    p.transport = Transport::Nvme;
    p.protocol = "nvme:tcp";
    p.ids.transportPort = "nvme3";
    return p;
}

std::vector<std::string> shown(const std::vector<SysfsWrite> &writes) {
    std::vector<std::string> out;
    for (const auto &w : writes)
        out.push_back(w.attribute + "=" + w.value + "/" + (w.shown.empty() ? w.value : w.shown));
    return out;
}

} // namespace

TEST(TransportTimeouts, AnNvmeOverFabricsControllerTakesFastIoFailAndDevLossAsItsCtrlLossTmo) {
    const std::string dir = "class/nvme/nvme3/";
    // The default: fast_io_fail_tmo 5 only; the controller keeps its
    // ctrl_loss_tmo, and a PCIe controller is left alone without a word.
    TransportTimeouts t = transportTimeouts(settingsFrom(""), 5);
    std::vector<std::string> notes;
    EXPECT_EQ(attributes(timeoutWrites(t, nvmeOverTcp(), 600u, &notes)),
              std::vector<std::string>{dir + "fast_io_fail_tmo=5"});
    Path pcie = nvmeOverTcp();
    pcie.protocol = "nvme:pcie";
    pcie.ids.transportPort.clear();
    EXPECT_TRUE(timeoutWrites(t, pcie, {}, &notes).empty());
    EXPECT_TRUE(notes.empty());

    // A configured dev_loss_tmo is the controller's ctrl_loss_tmo, shorter
    // or longer than the one it has.
    t = transportTimeouts(settingsFrom("defaults {\n fast_io_fail_tmo 2\n dev_loss_tmo 90\n}\n"),
                          5);
    EXPECT_EQ(attributes(timeoutWrites(t, nvmeOverTcp(), 600u, &notes)),
              (std::vector<std::string>{dir + "fast_io_fail_tmo=2", dir + "ctrl_loss_tmo=90"}));
    EXPECT_EQ(attributes(timeoutWrites(t, nvmeOverTcp(), 60u, &notes)),
              (std::vector<std::string>{dir + "fast_io_fail_tmo=2", dir + "ctrl_loss_tmo=90"}));
    EXPECT_TRUE(notes.empty());

    // Off and infinity: the controller takes -1 and shows "off".
    t = transportTimeouts(
        settingsFrom("defaults {\n fast_io_fail_tmo off\n dev_loss_tmo infinity\n}\n"), 5);
    EXPECT_EQ(
        shown(timeoutWrites(t, nvmeOverTcp(), 600u, &notes)),
        (std::vector<std::string>{dir + "fast_io_fail_tmo=-1/off", dir + "ctrl_loss_tmo=-1/off"}));
    EXPECT_TRUE(notes.empty());
}

TEST(TransportTimeouts, NoPathRetryOnlyRaisesAnNvmeControllersCtrlLossTmo) {
    const std::string dir = "class/nvme/nvme3/";
    // 30 checks of 5 s: 150 s, plus 2 s and a 5 s check.
    TransportTimeouts t = transportTimeouts(settingsFrom("defaults {\n no_path_retry 30\n}\n"), 5);
    ASSERT_TRUE(t.devLoss);
    EXPECT_EQ(*t.devLoss, 157u);
    std::vector<std::string> notes;
    // Longer already (the kernel's default 600): kept.
    EXPECT_EQ(attributes(timeoutWrites(t, nvmeOverTcp(), 600u, &notes)),
              std::vector<std::string>{dir + "fast_io_fail_tmo=5"});
    // Shorter: raised, as the path must not vanish while the map queues.
    EXPECT_EQ(attributes(timeoutWrites(t, nvmeOverTcp(), 60u, &notes)),
              (std::vector<std::string>{dir + "fast_io_fail_tmo=5", dir + "ctrl_loss_tmo=157"}));
    EXPECT_TRUE(notes.empty());
    // Not readable: not written, and said.
    EXPECT_EQ(attributes(timeoutWrites(t, nvmeOverTcp(), std::nullopt, &notes)),
              std::vector<std::string>{dir + "fast_io_fail_tmo=5"});
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "nvme3n1: nvme3's ctrl_loss_tmo cannot be read: it is not raised to "
                        "outlast no_path_retry (157 s)");

    // Queueing for ever: the controller reconnects for ever.
    t = transportTimeouts(settingsFrom("defaults {\n no_path_retry queue\n}\n"), 5);
    EXPECT_EQ(
        shown(timeoutWrites(t, nvmeOverTcp(), 600u)),
        (std::vector<std::string>{dir + "fast_io_fail_tmo=5/5", dir + "ctrl_loss_tmo=-1/off"}));
    EXPECT_EQ(attributes(timeoutWrites(t, nvmeOverTcp(), kDevLossInfinity)),
              std::vector<std::string>{dir + "fast_io_fail_tmo=5"});
}

TEST(TransportTimeouts, APortsDevLossIsReadFromItsTransportsAttribute) {
    EXPECT_EQ(portDevLossAttribute(nvmeOverTcp()), "class/nvme/nvme3/ctrl_loss_tmo");
    EXPECT_EQ(portDevLossAttribute(pathOn(Transport::FibreChannel, "rport-3:0-1")),
              "class/fc_remote_ports/rport-3:0-1/dev_loss_tmo");
    EXPECT_EQ(portDevLossAttribute(pathOn(Transport::Iscsi, "session2")), "");
    EXPECT_EQ(parsePortDevLoss("600"), 600u);
    EXPECT_EQ(parsePortDevLoss("off"), kDevLossInfinity);
    EXPECT_EQ(parsePortDevLoss(""), std::nullopt);
    EXPECT_EQ(parsePortDevLoss("-1"), std::nullopt);
    EXPECT_EQ(parsePortDevLoss("99999999999"), std::nullopt);
}

TEST(TransportTimeouts, DevLossZeroIsUnsetAsInMultipathTools) {
    // Not a dev_loss_tmo of 0 (the FC drivers make it 1 s: a link bounce
    // would remove the disks), and fast_io_fail_tmo stays.
    TransportTimeouts t = transportTimeouts(settingsFrom("defaults {\n dev_loss_tmo 0\n}\n"), 5);
    EXPECT_FALSE(t.devLoss);
    EXPECT_EQ(t.fastIoFail, OffOrNumber::number(5));
    const std::string dir = "class/fc_remote_ports/rport-3:0-1/";
    EXPECT_EQ(attributes(timeoutWrites(t, pathOn(Transport::FibreChannel, "rport-3:0-1"), 60u)),
              std::vector<std::string>{dir + "fast_io_fail_tmo=5"});
}

TEST(TransportTimeouts, OnlyTheTemporaryFcDevLossIsAPrerequisiteOfTheWritesAfterIt) {
    TransportTimeouts t = transportTimeouts(
        settingsFrom("defaults {\n fast_io_fail_tmo 30\n dev_loss_tmo 90\n}\n"), 5);
    auto writes = timeoutWrites(t, pathOn(Transport::FibreChannel, "rport-3:0-1"), 10u);
    ASSERT_EQ(writes.size(), 3u);
    EXPECT_TRUE(writes[0].prerequisite);
    EXPECT_FALSE(writes[1].prerequisite);
    EXPECT_FALSE(writes[2].prerequisite);
}
