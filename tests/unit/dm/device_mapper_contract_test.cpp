// One suite of what mpathd relies on from device-mapper, run against the
// fake (here, always) and against libdevmapper on a real kernel (in the
// VM lab, tests/vm/libmpath-dm-contract.sh, which gives it two paths of
// one LUN). The fake cannot drift from the kernel unnoticed.
#include "mpath/dm/status.h"
#include "mpath/dm/table.h"
#include "mpath/sys/device_mapper_lib.h"
#include "mpath/testing/fake_device_mapper.h"

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace mpath;
using model::DmPathState;
using model::Map;

namespace {

/// What the suite needs besides the DeviceMapper itself.
class Backend {
public:
    virtual ~Backend() = default;
    virtual dm::DeviceMapper &dm() = 0;
    /// Two paths of one LUN, "major:minor".
    virtual std::pair<std::string, std::string> paths() const = 0;
    /// Size in sectors of a map over them.
    virtual uint64_t size() const = 0;
    /// The target to build maps with.
    virtual std::string target() const = 0;
    /// Keeps map \a name open (as a mounted file system would) until
    /// release().
    virtual void holdOpen(const std::string &name) = 0;
    virtual void release(const std::string &name) = 0;
};

class FakeBackend final : public Backend {
public:
    dm::DeviceMapper &dm() override { return dm_; }
    std::pair<std::string, std::string> paths() const override { return {"8:16", "8:32"}; }
    uint64_t size() const override { return 2048; }
    std::string target() const override { return "multipath"; }
    void holdOpen(const std::string &name) override { dm_.setOpenCount(name, 1); }
    void release(const std::string &name) override { dm_.setOpenCount(name, 0); }

private:
    mpath::testing::FakeDeviceMapper dm_;
};

/// libdevmapper on this machine's kernel. MPATH_DM_CONTRACT_PATHS names
/// two block devices of one LUN ("8:16 8:32"), MPATH_DM_CONTRACT_SIZE
/// their size in sectors, MPATH_DM_CONTRACT_TARGET "multipath" or
/// "lmpath".
class KernelBackend final : public Backend {
public:
    static std::unique_ptr<KernelBackend> fromEnvironment(std::string &why) {
        const char *paths = std::getenv("MPATH_DM_CONTRACT_PATHS");
        const char *size = std::getenv("MPATH_DM_CONTRACT_SIZE");
        if (!paths || !size) {
            why = "MPATH_DM_CONTRACT_PATHS/SIZE are not set: this backend runs in the VM lab "
                  "(tests/vm/libmpath-dm-contract.sh) on real paths";
            return nullptr;
        }
        if (!sys::DeviceMapperLib::available()) {
            why = "/dev/mapper/control cannot be opened";
            return nullptr;
        }
        auto b = std::make_unique<KernelBackend>();
        std::istringstream in(paths);
        in >> b->paths_.first >> b->paths_.second;
        b->size_ = std::strtoull(size, nullptr, 10);
        const char *target = std::getenv("MPATH_DM_CONTRACT_TARGET");
        b->target_ = target ? target : "multipath";
        return b;
    }

    ~KernelBackend() override {
        for (auto &[name, fd] : open_)
            ::close(fd);
    }

    dm::DeviceMapper &dm() override { return dm_; }
    std::pair<std::string, std::string> paths() const override { return paths_; }
    uint64_t size() const override { return size_; }
    std::string target() const override { return target_; }
    void holdOpen(const std::string &name) override {
        int fd = ::open(("/dev/mapper/" + name).c_str(), O_RDONLY | O_CLOEXEC);
        ASSERT_GE(fd, 0) << "open /dev/mapper/" << name;
        open_.emplace_back(name, fd);
    }
    void release(const std::string &name) override {
        for (auto it = open_.begin(); it != open_.end(); ++it)
            if (it->first == name) {
                ::close(it->second);
                open_.erase(it);
                return;
            }
    }

private:
    sys::DeviceMapperLib dm_;
    std::pair<std::string, std::string> paths_;
    uint64_t size_{0};
    std::string target_;
    std::vector<std::pair<std::string, int>> open_;
};

/// Polls \a pred for up to 5 s: the kernel does some of its work in work
/// items and udev, after the call returns.
bool eventually(const std::function<bool()> &pred) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!pred()) {
        if (std::chrono::steady_clock::now() > end)
            return false;
        ::usleep(20000);
    }
    return true;
}

class DeviceMapperContract : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (GetParam() == "fake") {
            backend_ = std::make_unique<FakeBackend>();
        } else {
            std::string why;
            backend_ = KernelBackend::fromEnvironment(why);
            if (!backend_)
                GTEST_SKIP() << why;
        }
        prefix_ = "mpath-contract-" + std::to_string(::getpid()) + "-";
    }

    void TearDown() override {
        if (!backend_)
            return;
        for (const auto &n : made_) {
            backend_->release(n);
            (void)dm().remove(n);
        }
    }

    dm::DeviceMapper &dm() { return backend_->dm(); }
    std::string name(const std::string &n) {
        made_.push_back(prefix_ + n);
        return prefix_ + n;
    }
    /// A two-path, one-group round-robin table in the form the kernel
    /// prints back.
    std::vector<dm::TargetLine> table(const std::string &features = "0") {
        auto [a, b] = backend_->paths();
        return {{0, backend_->size(), backend_->target(),
                 features + " 0 1 1 round-robin 0 2 1 " + a + " 1 " + b + " 1"}};
    }
    /// The map as table and status describe it.
    Map live(const std::string &n) {
        auto t = dm().table(n);
        EXPECT_TRUE(t) << (t ? "" : t.error().message);
        if (!t || t->empty())
            return {};
        auto m = dm::parseTable(t->front().params);
        EXPECT_TRUE(m) << (m ? "" : m.error().message);
        auto s = dm().status(n);
        EXPECT_TRUE(s) << (s ? "" : s.error().message);
        if (!m || !s || s->empty())
            return {};
        auto st = dm::parseStatus(s->front().params, *m);
        EXPECT_TRUE(st) << (st ? "" : st.error().message);
        return *m;
    }

    std::unique_ptr<Backend> backend_;
    std::string prefix_;
    std::vector<std::string> made_;
};

} // namespace

namespace mpath::dm {
// Readable failures for table lines.
void PrintTo(const TargetLine &t, std::ostream *os) {
    *os << '"' << t.start << ' ' << t.length << ' ' << t.type << ' ' << t.params << '"';
}
} // namespace mpath::dm

TEST_P(DeviceMapperContract, ACreatedMapIsListedWithItsUuidAndTarget) {
    const std::string n = name("a");
    ASSERT_TRUE(dm().create(n, "mpath-" + n, table()));
    auto list = dm().listMultipath();
    ASSERT_TRUE(list) << list.error().message;
    bool found = false;
    for (const auto &d : *list)
        if (d.name == n) {
            found = true;
            EXPECT_EQ(d.uuid, "mpath-" + n);
            EXPECT_EQ(d.targetType, backend_->target());
            EXPECT_FALSE(d.suspended);
        }
    EXPECT_TRUE(found);
}

TEST_P(DeviceMapperContract, TheTableReadsBackAsCreated) {
    const std::string n = name("t");
    ASSERT_TRUE(dm().create(n, "", table()));
    auto t = dm().table(n);
    ASSERT_TRUE(t) << t.error().message;
    ASSERT_EQ(t->size(), 1u);
    EXPECT_EQ(t->front(), table().front());
}

TEST_P(DeviceMapperContract, AMapThatIsNotThereIsEnxioAndNamed) {
    const std::string n = prefix_ + "missing";
    auto i = dm().info(n);
    ASSERT_FALSE(i);
    EXPECT_EQ(i.code(), ENXIO);
    EXPECT_EQ(i.error().message, "info " + n + ": No such device or address");
    EXPECT_EQ(dm().table(n).code(), ENXIO);
    EXPECT_EQ(dm().status(n).code(), ENXIO);
    EXPECT_EQ(dm().remove(n).code(), ENXIO);
    EXPECT_EQ(dm().message(n, 0, "queue_if_no_path").code(), ENXIO);
}

TEST_P(DeviceMapperContract, ADuplicateNameOrUuidIsEexistAndChangesNothing) {
    const std::string a = name("dup");
    ASSERT_TRUE(dm().create(a, "mpath-" + a, table()));
    auto sameName = dm().create(a, "mpath-other-" + a, table());
    EXPECT_EQ(sameName.code(), EEXIST);
    EXPECT_EQ(sameName.error().message, "create " + a + ": a device of that name exists");
    const std::string b = name("dup2");
    auto sameUuid = dm().create(b, "mpath-" + a, table());
    EXPECT_EQ(sameUuid.code(), EEXIST);
    EXPECT_EQ(sameUuid.error().message,
              "create " + b + ": a device with uuid mpath-" + a + " exists");
    EXPECT_EQ(dm().info(b).code(), ENXIO);
}

TEST_P(DeviceMapperContract, ATableTheTargetRejectsIsEinvalAndCreatesNothing) {
    const std::string n = name("bad");
    auto [a, b] = backend_->paths();
    auto r = dm().create(n, "",
                         {{0, backend_->size(), backend_->target(), "0 0 1 1 round-robin 0 0 0"}});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.code(), EINVAL) << r.error().message;
    EXPECT_EQ(dm().info(n).code(), ENXIO);
}

TEST_P(DeviceMapperContract, FailAndReinstateShowInTheStatusWithAFailCount) {
    const std::string n = name("f");
    ASSERT_TRUE(dm().create(n, "", table()));
    auto [a, b] = backend_->paths();
    auto before = dm().info(n);
    ASSERT_TRUE(before);
    ASSERT_TRUE(dm().message(n, 0, "fail_path " + b));
    // The target raises a table event (from a work item in the kernel).
    EXPECT_TRUE(eventually([&] {
        auto now = dm().info(n);
        return now && now->eventNr > before->eventNr;
    })) << "no table event after fail_path";
    Map m = live(n);
    ASSERT_EQ(m.groups.size(), 1u);
    ASSERT_EQ(m.groups[0].paths.size(), 2u);
    EXPECT_EQ(m.groups[0].paths[0].dmState, DmPathState::Active);
    EXPECT_EQ(m.groups[0].paths[1].dmState, DmPathState::Failed);
    EXPECT_EQ(m.groups[0].paths[1].failCount, 1u);
    ASSERT_TRUE(dm().message(n, 0, "reinstate_path " + b));
    m = live(n);
    EXPECT_EQ(m.groups[0].paths[1].dmState, DmPathState::Active);
    EXPECT_EQ(m.groups[0].paths[1].failCount, 1u) << "the count stays";
}

TEST_P(DeviceMapperContract, MessagesForUnknownPathsAndVerbsAreRefused) {
    const std::string n = name("m");
    ASSERT_TRUE(dm().create(n, "", table()));
    auto unknownVerb = dm().message(n, 0, "explode");
    ASSERT_FALSE(unknownVerb);
    EXPECT_EQ(unknownVerb.code(), EINVAL);
    EXPECT_NE(unknownVerb.error().message.find(n), std::string::npos);
    auto badGroup = dm().message(n, 0, "switch_group 7");
    ASSERT_FALSE(badGroup);
    EXPECT_EQ(badGroup.code(), EINVAL);
}

TEST_P(DeviceMapperContract, QueueingMessagesShowInTheTableFeatures) {
    const std::string n = name("q");
    ASSERT_TRUE(dm().create(n, "", table()));
    ASSERT_TRUE(dm().message(n, 0, "queue_if_no_path"));
    EXPECT_EQ(live(n).features, std::vector<std::string>{"queue_if_no_path"});
    ASSERT_TRUE(dm().message(n, 0, "fail_if_no_path"));
    EXPECT_TRUE(live(n).features.empty());
}

TEST_P(DeviceMapperContract, AReloadReplacesTheTableAndLeavesTheMapRunning) {
    const std::string n = name("r");
    ASSERT_TRUE(dm().create(n, "", table()));
    ASSERT_TRUE(dm().reload(n, table("1 queue_if_no_path")));
    auto t = dm().table(n);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->front(), table("1 queue_if_no_path").front());
    auto after = dm().info(n);
    ASSERT_TRUE(after);
    EXPECT_FALSE(after->suspended);
}

TEST_P(DeviceMapperContract, AReloadIntoAnotherTargetTypeIsRefusedAndKeepsTheLiveTable) {
    const std::string n = name("tt");
    ASSERT_TRUE(dm().create(n, "", table()));
    const std::string other = backend_->target() == "multipath" ? "lmpath" : "multipath";
    auto t0 = table();
    auto r = dm().reload(n, {{0, backend_->size(), other, t0.front().params}});
    ASSERT_FALSE(r) << "a map's target type cannot change";
    EXPECT_EQ(r.code(), EINVAL) << r.error().message;
    auto t = dm().table(n);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->front(), t0.front());
}

TEST_P(DeviceMapperContract, AsyncCreateAndReloadHandBackTheirUdevCookieAndLeaveTheMapRunning) {
    const std::string n = name("ac");
    auto c = dm().createAsync(n, "", table(), {});
    ASSERT_TRUE(c) << c.error().message;
    ASSERT_TRUE(dm().releaseCookie(*c, false));
    auto r = dm().reloadAsync(n, table("1 queue_if_no_path"), {});
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_TRUE(dm().releaseCookie(*r, false));
    auto t = dm().table(n);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->front(), table("1 queue_if_no_path").front());
    auto st = dm().deviceStatus(n);
    ASSERT_TRUE(st) << st.error().message;
    EXPECT_FALSE(st->first.suspended) << "the resume that swapped the tables left it running";
    EXPECT_NE(st->first.devt, dev_t(0));
    auto s = dm().status(n);
    ASSERT_TRUE(s);
    EXPECT_EQ(st->second, *s);
}

TEST_P(DeviceMapperContract, AnAsyncCreateOfATakenNameIsEexist) {
    const std::string n = name("dup");
    ASSERT_TRUE(dm().create(n, "", table()));
    auto c = dm().createAsync(n, "", table(), {});
    ASSERT_FALSE(c);
    EXPECT_EQ(c.code(), EEXIST) << c.error().message;
}

TEST_P(DeviceMapperContract, AFailedReloadKeepsTheLiveTableAndTheMapRunning) {
    const std::string n = name("fr");
    ASSERT_TRUE(dm().create(n, "", table()));
    auto r = dm().reload(n, {{0, backend_->size(), backend_->target(), "0 0 1 1 bogus 0 0 0"}});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.code(), EINVAL);
    auto t = dm().table(n);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->front(), table().front());
    auto i = dm().info(n);
    ASSERT_TRUE(i);
    EXPECT_FALSE(i->suspended);
}

TEST_P(DeviceMapperContract, ASuspendedMapSaysSoUntilResumedAndAnAbsentOneIsEnxio) {
    const std::string n = name("s");
    ASSERT_TRUE(dm().create(n, "", table()));
    ASSERT_TRUE(dm().suspend(n));
    auto i = dm().info(n);
    ASSERT_TRUE(i);
    EXPECT_TRUE(i->suspended);
    // A suspended map takes no message: the kernel answers EBUSY.
    auto m = dm().message(n, 0, "queue_if_no_path");
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, EBUSY);
    ASSERT_TRUE(dm().resume(n));
    i = dm().info(n);
    ASSERT_TRUE(i);
    EXPECT_FALSE(i->suspended);
    auto r = dm().suspend(name("absent"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.code(), ENXIO);
}

TEST_P(DeviceMapperContract, AnOpenMapIsRemovedOnlyDeferredAtItsLastClose) {
    const std::string n = name("open");
    ASSERT_TRUE(dm().create(n, "", table()));
    backend_->holdOpen(n);
    auto busy = dm().remove(n);
    ASSERT_FALSE(busy);
    EXPECT_EQ(busy.code(), EBUSY);
    ASSERT_TRUE(dm().info(n));
    ASSERT_TRUE(dm().remove(n, true));
    ASSERT_TRUE(dm().info(n)) << "still there while open";
    backend_->release(n);
    // udev may look at the device once more when it closes.
    EXPECT_TRUE(eventually([&] { return dm().info(n).code() == ENXIO; }))
        << "gone at the last close";
}

TEST_P(DeviceMapperContract, ARenameMovesTheMapAndRefusesATakenName) {
    const std::string a = name("ren-a");
    const std::string b = name("ren-b");
    const std::string c = name("ren-c");
    ASSERT_TRUE(dm().create(a, "mpath-" + a, table()));
    ASSERT_TRUE(dm().create(c, "", table()));
    ASSERT_TRUE(dm().rename(a, b));
    EXPECT_EQ(dm().info(a).code(), ENXIO);
    auto moved = dm().info(b);
    ASSERT_TRUE(moved);
    EXPECT_EQ(moved->uuid, "mpath-" + a);
    auto taken = dm().rename(b, c);
    EXPECT_EQ(taken.code(), EEXIST);
    EXPECT_NE(taken.error().message.find(c), std::string::npos) << taken.error().message;
}

// mpathd calls device-mapper from several executor workers at once, for
// different maps. libdevmapper keeps process-wide state (the device nodes
// it still has to check after udev, among others): concurrent creates,
// renames, removes and udev waits must neither crash nor lose a call.
TEST_P(DeviceMapperContract, CallsForDifferentMapsFromManyThreadsAtOnceAllSucceed) {
    if (GetParam() == "fake")
        GTEST_SKIP() << "the fake is single-threaded: mpathd's tests serialize it "
                        "(SerializedDeviceMapper)";
    constexpr int kThreads = 8;
    constexpr int kRounds = 5;
    std::vector<std::string> failures[kThreads];
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        const std::string a = name("mt" + std::to_string(t) + "a");
        const std::string b = name("mt" + std::to_string(t) + "b");
        threads.emplace_back([this, t, a, b, &failures] {
            auto note = [&](const char *what, const Error &e) {
                failures[t].push_back(std::string(what) + ": " + e.message);
            };
            for (int r = 0; r < kRounds; ++r) {
                if (auto c = dm().create(a, "mpath-" + a, table()); !c)
                    note("create", c.error());
                if (auto s = dm().status(a); !s)
                    note("status", s.error());
                if (auto l = dm().reload(a, table("1 queue_if_no_path")); !l)
                    note("reload", l.error());
                if (auto m = dm().rename(a, b); !m)
                    note("rename", m.error());
                if (auto x = dm().remove(b); !x)
                    note("remove", x.error());
            }
        });
    }
    for (auto &th : threads)
        th.join();
    for (int t = 0; t < kThreads; ++t)
        EXPECT_TRUE(failures[t].empty()) << "thread " << t << ": " << failures[t].size()
                                         << " failed calls, first: " << failures[t].front();
    auto left = dm().listMultipath();
    ASSERT_TRUE(left);
    for (const auto &d : *left)
        EXPECT_EQ(d.name.rfind(prefix_ + "mt", 0), std::string::npos) << d.name << " was left";
}

INSTANTIATE_TEST_SUITE_P(Backends, DeviceMapperContract,
                         ::testing::Values(std::string("fake"), std::string("libdevmapper")),
                         [](const auto &info) { return info.param; });
