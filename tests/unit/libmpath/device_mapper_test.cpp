#include "mpath/device_mapper_lib.h"
#include "mpath/fake_device_mapper.h"
#include "mpath/status.h"
#include "mpath/table.h"

#include <gtest/gtest.h>
#include <unistd.h>

using namespace mpath;

namespace {

const std::vector<DmTargetLine> twoPaths{
    {0, 2048, "multipath", "0 0 1 1 round-robin 0 2 1 8:16 1 8:32 1"}};

Map statusOf(FakeDeviceMapper &dm, const std::string &name) {
    std::vector<DmTargetLine> t, s;
    Map m;
    EXPECT_EQ(dm.table(name, t), 0);
    EXPECT_EQ(dm.status(name, s), 0);
    EXPECT_EQ(Table::parse(t.at(0).params, m), 0);
    std::string why;
    EXPECT_EQ(Status::parse(s.at(0).params, m, nullptr, &why), 0) << why;
    return m;
}

} // namespace

TEST(FakeDeviceMapper, CreatedMapsAreListedWithTheirUuid) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("mpatha", "mpath-3600a", twoPaths), 0);
    ASSERT_EQ(dm.create("lin", "", {{0, 8, "linear", "8:0 0"}}), 0);
    std::vector<DmDevice> list;
    ASSERT_EQ(dm.listMultipath(list), 0);
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0].name, "mpatha");
    EXPECT_EQ(list[0].uuid, "mpath-3600a");
    EXPECT_EQ(list[0].targetType, "multipath");
}

TEST(FakeDeviceMapper, RefusesADuplicateNameOrUuid) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("mpatha", "mpath-1", twoPaths), 0);
    EXPECT_EQ(dm.create("mpatha", "mpath-2", twoPaths), -EEXIST);
    EXPECT_EQ(dm.create("mpathb", "mpath-1", twoPaths), -EEXIST);
}

TEST(FakeDeviceMapper, RefusesATableTheKernelWouldReject) {
    FakeDeviceMapper dm;
    EXPECT_EQ(dm.create("bad", "", {{0, 8, "multipath", "0 0 1 1 round-robin 0 0 0"}}), -EINVAL);
    EXPECT_FALSE(dm.exists("bad"));
}

TEST(FakeDeviceMapper, FailPathShowsInTheStatusWithAFailCount) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("m", "", twoPaths), 0);
    ASSERT_EQ(dm.message("m", 0, "fail_path 8:32"), 0);
    Map m = statusOf(dm, "m");
    EXPECT_EQ(m.groups[0].paths[0].dmState, DmPathState::Active);
    EXPECT_EQ(m.groups[0].paths[1].dmState, DmPathState::Failed);
    EXPECT_EQ(m.groups[0].paths[1].failCount, 1u);
    ASSERT_EQ(dm.message("m", 0, "reinstate_path 8:32"), 0);
    EXPECT_EQ(statusOf(dm, "m").groups[0].paths[1].dmState, DmPathState::Active);
}

TEST(FakeDeviceMapper, RejectsMessagesForUnknownPathsAndVerbs) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("m", "", twoPaths), 0);
    EXPECT_EQ(dm.message("m", 0, "fail_path 8:99"), -ENXIO);
    EXPECT_EQ(dm.message("m", 0, "explode"), -EINVAL);
    EXPECT_EQ(dm.message("m", 0, "switch_group 2"), -EINVAL);
}

TEST(FakeDeviceMapper, QueueIfNoPathMessageChangesTheTableFeatures) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("m", "", twoPaths), 0);
    ASSERT_EQ(dm.message("m", 0, "queue_if_no_path"), 0);
    EXPECT_EQ(dm.map("m")->features, std::vector<std::string>{"queue_if_no_path"});
    ASSERT_EQ(dm.message("m", 0, "fail_if_no_path"), 0);
    EXPECT_TRUE(dm.map("m")->features.empty());
}

TEST(FakeDeviceMapper, StatusOfAMapWithEveryPathFailedStillParses) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("m", "", twoPaths), 0);
    ASSERT_EQ(dm.message("m", 0, "queue_if_no_path"), 0);
    ASSERT_EQ(dm.message("m", 0, "fail_path 8:16"), 0);
    ASSERT_EQ(dm.message("m", 0, "fail_path 8:32"), 0);
    Map m = statusOf(dm, "m");
    EXPECT_EQ(m.groups[0].paths[0].dmState, DmPathState::Failed);
    EXPECT_EQ(m.groups[0].paths[1].dmState, DmPathState::Failed);
}

TEST(FakeDeviceMapper, ReloadReplacesTheTableAndBumpsTheEventNumber) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("m", "", twoPaths), 0);
    DmDevice before, after;
    ASSERT_EQ(dm.info("m", before), 0);
    ASSERT_EQ(dm.reload("m", {{0, 2048, "lmpath", "0 0 1 1 queue-length 0 1 1 8:48 1"}}), 0);
    ASSERT_EQ(dm.info("m", after), 0);
    EXPECT_EQ(after.eventNr, before.eventNr + 1);
    EXPECT_EQ(after.targetType, "lmpath");
    EXPECT_EQ(dm.map("m")->groups[0].selector, "queue-length");
}

TEST(FakeDeviceMapper, AFailedReloadKeepsTheLiveTable) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("m", "", twoPaths), 0);
    EXPECT_EQ(dm.reload("m", {{0, 2048, "multipath", "garbage"}}), -EINVAL);
    std::vector<DmTargetLine> t;
    ASSERT_EQ(dm.table("m", t), 0);
    EXPECT_EQ(t, twoPaths);
}

TEST(FakeDeviceMapper, InjectedFailuresHitOnlyTheNextCall) {
    FakeDeviceMapper dm;
    dm.failNext(FakeDeviceMapper::Op::Create, -ENOMEM);
    EXPECT_EQ(dm.create("m", "", twoPaths), -ENOMEM);
    EXPECT_FALSE(dm.exists("m"));
    EXPECT_EQ(dm.create("m", "", twoPaths), 0);
}

TEST(FakeDeviceMapper, RemovingAnOpenMapNeedsDeferredRemoval) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("m", "", twoPaths), 0);
    dm.setOpenCount("m", 1);
    EXPECT_EQ(dm.remove("m"), -EBUSY);
    EXPECT_EQ(dm.remove("m", true), 0);
    EXPECT_TRUE(dm.exists("m"));
    dm.setOpenCount("m", 0);
    EXPECT_FALSE(dm.exists("m"));
}

TEST(FakeDeviceMapper, RenameMovesTheDeviceAndRefusesATakenName) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("a", "mpath-1", twoPaths), 0);
    ASSERT_EQ(dm.create("b", "mpath-2", twoPaths), 0);
    EXPECT_EQ(dm.rename("a", "b"), -EEXIST);
    ASSERT_EQ(dm.rename("a", "c"), 0);
    DmDevice d;
    EXPECT_EQ(dm.info("a", d), -ENXIO);
    ASSERT_EQ(dm.info("c", d), 0);
    EXPECT_EQ(d.uuid, "mpath-1");
}

TEST(FakeDeviceMapper, RecordsChangesInOrder) {
    FakeDeviceMapper dm;
    ASSERT_EQ(dm.create("m", "", twoPaths), 0);
    ASSERT_EQ(dm.message("m", 0, "fail_path 8:16"), 0);
    ASSERT_EQ(dm.remove("m", true), 0);
    EXPECT_EQ(dm.calls(), (std::vector<std::string>{"create m", "message m fail_path 8:16",
                                                    "remove m deferred"}));
}

TEST(DeviceMapperLib, AnswersNotFoundForAMapThatDoesNotExist) {
    if (!DeviceMapperLib::available())
        GTEST_SKIP() << "no /dev/mapper/control here; this test runs in the VM lab "
                        "(tests/vm/libmpath-fixtures.sh)";
    DeviceMapperLib dm;
    DmDevice d;
    EXPECT_EQ(dm.info("mpath-test-no-such-map-" + std::to_string(getpid()), d), -ENXIO);
}
