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
    notes.clear();
    EXPECT_TRUE(timeoutWrites(t, pathOn(Transport::Nvme, ""), {}, &notes).empty());
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "sdb: transport timeouts apply to SCSI paths only (this one is nvme)");
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
