#include "mpath/dm/status.h"
#include "mpath/dm/table.h"
#include "mpath/testing/fake_device_mapper.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace mpath::dm;
using mpath::model::DmPathState;
using mpath::model::Map;
using mpath::testing::FakeDeviceMapper;
using ::testing::HasSubstr;

namespace {

const std::vector<TargetLine> twoPaths{
    {0, 2048, "multipath", "0 0 1 1 round-robin 0 2 1 8:16 1 8:32 1"}};

/// Success, or a failure that shows the error's message.
template <typename T>
::testing::AssertionResult succeeded(const mpath::Result<T> &r) {
    if (r)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << r.error().message;
}

Map statusOf(FakeDeviceMapper &dm, const std::string &name) {
    auto t = dm.table(name);
    auto s = dm.status(name);
    EXPECT_TRUE(succeeded(t));
    EXPECT_TRUE(succeeded(s));
    if (!t || !s)
        return {};
    auto m = parseTable(t->at(0).params);
    EXPECT_TRUE(succeeded(m));
    if (!m)
        return {};
    EXPECT_TRUE(succeeded(parseStatus(s->at(0).params, *m)));
    return *m;
}

} // namespace

TEST(FakeDeviceMapper, CreatedMapsAreListedWithTheirUuid) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("mpatha", "mpath-3600a", twoPaths)));
    ASSERT_TRUE(succeeded(dm.create("lin", "", {{0, 8, "linear", "8:0 0"}})));
    auto list = dm.listMultipath();
    ASSERT_TRUE(succeeded(list));
    ASSERT_EQ(list->size(), 1u);
    EXPECT_EQ((*list)[0].name, "mpatha");
    EXPECT_EQ((*list)[0].uuid, "mpath-3600a");
    EXPECT_EQ((*list)[0].targetType, "multipath");
}

TEST(FakeDeviceMapper, RefusesADuplicateNameOrUuid) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("mpatha", "mpath-1", twoPaths)));
    EXPECT_EQ(dm.create("mpatha", "mpath-2", twoPaths).code(), EEXIST);
    EXPECT_EQ(dm.create("mpathb", "mpath-1", twoPaths).code(), EEXIST);
}

TEST(FakeDeviceMapper, RefusesATableTheKernelWouldReject) {
    FakeDeviceMapper dm;
    EXPECT_EQ(dm.create("bad", "", {{0, 8, "multipath", "0 0 1 1 round-robin 0 0 0"}}).code(),
              EINVAL);
    EXPECT_FALSE(dm.exists("bad"));
}

TEST(FakeDeviceMapper, FailPathShowsInTheStatusWithAFailCount) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("m", "", twoPaths)));
    ASSERT_TRUE(succeeded(dm.message("m", 0, "fail_path 8:32")));
    Map m = statusOf(dm, "m");
    ASSERT_EQ(m.groups.size(), 1u);
    EXPECT_EQ(m.groups[0].paths[0].dmState, DmPathState::Active);
    EXPECT_EQ(m.groups[0].paths[1].dmState, DmPathState::Failed);
    EXPECT_EQ(m.groups[0].paths[1].failCount, 1u);
    ASSERT_TRUE(succeeded(dm.message("m", 0, "reinstate_path 8:32")));
    Map after = statusOf(dm, "m");
    ASSERT_EQ(after.groups.size(), 1u);
    EXPECT_EQ(after.groups[0].paths[1].dmState, DmPathState::Active);
}

TEST(FakeDeviceMapper, RejectsMessagesForUnknownPathsAndVerbs) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("m", "", twoPaths)));
    EXPECT_EQ(dm.message("m", 0, "fail_path 8:99").code(), ENXIO);
    EXPECT_EQ(dm.message("m", 0, "explode").code(), EINVAL);
    EXPECT_EQ(dm.message("m", 0, "switch_group 2").code(), EINVAL);
}

TEST(FakeDeviceMapper, QueueIfNoPathMessageChangesTheTableFeatures) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("m", "", twoPaths)));
    ASSERT_TRUE(succeeded(dm.message("m", 0, "queue_if_no_path")));
    ASSERT_NE(dm.map("m"), nullptr);
    EXPECT_EQ(dm.map("m")->features, std::vector<std::string>{"queue_if_no_path"});
    ASSERT_TRUE(succeeded(dm.message("m", 0, "fail_if_no_path")));
    EXPECT_TRUE(dm.map("m")->features.empty());
}

TEST(FakeDeviceMapper, StatusOfAMapWithEveryPathFailedStillParses) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("m", "", twoPaths)));
    ASSERT_TRUE(succeeded(dm.message("m", 0, "queue_if_no_path")));
    ASSERT_TRUE(succeeded(dm.message("m", 0, "fail_path 8:16")));
    ASSERT_TRUE(succeeded(dm.message("m", 0, "fail_path 8:32")));
    Map m = statusOf(dm, "m");
    ASSERT_EQ(m.groups.size(), 1u);
    EXPECT_EQ(m.groups[0].paths[0].dmState, DmPathState::Failed);
    EXPECT_EQ(m.groups[0].paths[1].dmState, DmPathState::Failed);
}

TEST(FakeDeviceMapper, ReloadReplacesTheTableButRaisesNoEvent) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("m", "", twoPaths)));
    auto before = dm.info("m");
    ASSERT_TRUE(succeeded(before));
    ASSERT_TRUE(
        succeeded(dm.reload("m", {{0, 2048, "multipath", "0 0 1 1 queue-length 0 1 1 8:48 1"}})));
    auto after = dm.info("m");
    ASSERT_TRUE(succeeded(after));
    EXPECT_EQ(after->eventNr, before->eventNr) << "the kernel counts target events, not loads";
    ASSERT_NE(dm.map("m"), nullptr);
    EXPECT_EQ(dm.map("m")->groups[0].selector, "queue-length");
}

TEST(FakeDeviceMapper, AReloadIntoAnotherTargetTypeIsRefusedAsTheKernelDoes) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("m", "", twoPaths)));
    auto r = dm.reload("m", {{0, 2048, "lmpath", "0 0 1 1 queue-length 0 1 1 8:48 1"}});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.code(), EINVAL);
    EXPECT_NE(r.error().message.find("can't replace immutable target type multipath"),
              std::string::npos)
        << r.error().message;
    EXPECT_EQ(dm.info("m")->targetType, "multipath");
}

TEST(FakeDeviceMapper, AFailedReloadKeepsTheLiveTable) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("m", "", twoPaths)));
    EXPECT_EQ(dm.reload("m", {{0, 2048, "multipath", "garbage"}}).code(), EINVAL);
    auto t = dm.table("m");
    ASSERT_TRUE(succeeded(t));
    EXPECT_EQ(*t, twoPaths);
}

TEST(FakeDeviceMapper, InjectedFailuresHitOnlyTheNextCall) {
    FakeDeviceMapper dm;
    dm.failNext(FakeDeviceMapper::Op::Create, ENOMEM);
    EXPECT_EQ(dm.create("m", "", twoPaths).code(), ENOMEM);
    EXPECT_FALSE(dm.exists("m"));
    EXPECT_TRUE(succeeded(dm.create("m", "", twoPaths)));
}

TEST(FakeDeviceMapper, RemovingAnOpenMapNeedsDeferredRemoval) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("m", "", twoPaths)));
    dm.setOpenCount("m", 1);
    EXPECT_EQ(dm.remove("m").code(), EBUSY);
    EXPECT_TRUE(succeeded(dm.remove("m", true)));
    EXPECT_TRUE(dm.exists("m"));
    dm.setOpenCount("m", 0);
    EXPECT_FALSE(dm.exists("m"));
}

TEST(FakeDeviceMapper, RenameMovesTheDeviceAndRefusesATakenName) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("a", "mpath-1", twoPaths)));
    ASSERT_TRUE(succeeded(dm.create("b", "mpath-2", twoPaths)));
    EXPECT_EQ(dm.rename("a", "b").code(), EEXIST);
    ASSERT_TRUE(succeeded(dm.rename("a", "c")));
    EXPECT_EQ(dm.info("a").code(), ENXIO);
    auto d = dm.info("c");
    ASSERT_TRUE(succeeded(d));
    EXPECT_EQ(d->uuid, "mpath-1");
}

TEST(FakeDeviceMapper, RecordsChangesInOrder) {
    FakeDeviceMapper dm;
    ASSERT_TRUE(succeeded(dm.create("m", "", twoPaths)));
    ASSERT_TRUE(succeeded(dm.message("m", 0, "fail_path 8:16")));
    ASSERT_TRUE(succeeded(dm.remove("m", true)));
    EXPECT_EQ(dm.calls(), (std::vector<std::string>{"create m", "message m fail_path 8:16",
                                                    "remove m deferred"}));
}
