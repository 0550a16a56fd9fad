#pragma once

// A daemon on a loop whose clock the test moves, over a generated sysfs
// tree, a fake udev (the test injects events) and a fake device-mapper,
// with checkers the test scripts.

#include "daemon.h"
#include "log.h"
#include "reconciler.h"
#include "temp_dir.h"
#include "test_file.h"

#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <mpath/dm/table.h>
#include <mpath/testing/fake_device_mapper.h>
#include <mpath/testing/fake_udev.h>
#include <mpath/testing/manual_loop.h>
#include <mpath/testing/scripted_checkers.h>
#include <mpath/testing/serialized_device_mapper.h>
#include <mpath/testing/sysfs_tree_builder.h>
#include <optional>
#include <string>
#include <sys/sysmacros.h>
#include <vector>

namespace mpathd_test {

using namespace std::chrono_literals;
using mpath::testing::SysfsTreeBuilder;

class DaemonHarness {
public:
    DaemonHarness()
        : fake_(std::make_shared<mpath::testing::FakeDeviceMapper>()),
          dm_(std::make_shared<mpath::testing::SerializedDeviceMapper>(fake_)),
          tree_(dir_.file("tree")) {
        mpathd::Log::setSink(
            [this](mpathd::Level l, const mpathd::Subject &s, const std::string &m) {
                std::string line = std::string(mpathd::toString(l)) + ": ";
                if (!s.map.empty())
                    line += "map " + s.map + ": ";
                if (!s.path.empty())
                    line += "path " + s.path + ": ";
                log_.push_back(line + m);
            });
        mpathd::Log::setup(mpathd::Level::Debug);
    }
    ~DaemonHarness() {
        daemon_.reset();
        checkers_.release();
        mpathd::Log::setSink({});
    }

    /// The configuration the daemon reads (mpathd.conf: our own keywords
    /// are accepted).
    void config(const std::string &text) {
        mpath_test::writeFile(dir_.path() / "root/etc/mpathd/mpathd.conf", text);
    }
    std::string root() const { return (dir_.path() / "root").string(); }

    /// A SCSI disk in the tree and in udev's device list. \a accessState
    /// gives it an ALUA state (prio sysfs reads it).
    void addDisk(const std::string &name, unsigned minor, unsigned host, const std::string &wwid,
                 const std::string &accessState = "", uint64_t sectors = 2048) {
        addDiskWith(name, minor, host, wwid, [&](SysfsTreeBuilder::ScsiDisk &d) {
            d.sizeSectors = sectors;
            d.accessState = accessState;
        });
    }

    /// A SCSI disk as addDisk() makes it, changed by \a edit first (its
    /// transport, its ALUA state, ...).
    template <typename Edit>
    void addDiskWith(const std::string &name, unsigned minor, unsigned host,
                     const std::string &wwid, Edit edit) {
        SysfsTreeBuilder::ScsiDisk d;
        d.name = name;
        d.major = 8 + minor / 256;
        d.minor = minor % 256;
        d.host = host;
        d.lun = nextLun_++; // a H:C:T:L of its own in the tree
        // A vendor no built-in device entry names: defaults apply.
        d.vendor = "ACME";
        d.model = "Array";
        d.udev = {{"ID_SERIAL", wwid}, {"DEVTYPE", "disk"}};
        edit(d);
        ASSERT_TRUE(tree_.addScsiDisk(d));
        udev_->addDevice(udevDevice(name, d.major, d.minor, wwid, ""));
    }

    /// The SCSI commands the daemon sends to devices (before start()); by
    /// default every one is refused with ENODEV.
    void answerScsi(decltype(mpath::prio::Context::scsiCommand) answer) {
        scsiCommand_ = std::move(answer);
    }

    /// How each direct read of I/O error sampling (marginal_path_*) of a
    /// device ends (before start()); each takes 1 ms of the loop's time.
    void answerSampleReads(std::function<mpath::Result<void>(const std::string &devnode)> answer) {
        sampleAnswer_ = std::move(answer);
    }
    /// The sampling reads of \a devnode so far.
    unsigned sampleReads(const std::string &devnode) const {
        auto it = sampleReads_.find(devnode);
        return it == sampleReads_.end() ? 0 : it->second;
    }

    /// A uevent for a disk added with addDisk().
    void inject(const std::string &action, const std::string &name) {
        mpath::discovery::UdevDevice d;
        auto all = udev_->enumerate("block", "disk");
        for (const auto &e : all.value())
            if (e.sysname == name)
                d = e;
        if (d.sysname.empty()) {
            d.sysname = name;
            d.subsystem = "block";
            d.devtype = "disk";
        }
        d.action = action;
        udev_->inject(d);
    }

    /// Every block device udev knows.
    std::vector<mpath::discovery::UdevDevice> devices() {
        return udev_->enumerate("block", "disk").value();
    }

    /// The device udev knows by \a name (empty when it knows none).
    mpath::discovery::UdevDevice device(const std::string &name) {
        for (const auto &e : udev_->enumerate("block", "disk").value())
            if (e.sysname == name)
                return e;
        return {};
    }

    /// A uevent as given.
    void injectDevice(mpath::discovery::UdevDevice d) { udev_->inject(std::move(d)); }

    /// Like inject(), but the event is lost (the monitor's buffer was full).
    void lose(const std::string &action, const std::string &name) {
        mpath::discovery::UdevDevice d;
        for (const auto &e : udev_->enumerate("block", "disk").value())
            if (e.sysname == name)
                d = e;
        d.sysname = name;
        d.subsystem = "block";
        d.devtype = "disk";
        d.action = action;
        udev_->lose(d);
    }

    /// A device-mapper uevent: PATH_FAILED / PATH_REINSTATED, or "remove".
    void injectMap(const std::string &action, const std::string &wwid, const std::string &dmAction,
                   const std::string &devt = "") {
        mpath::discovery::UdevDevice d;
        d.sysname = "dm-0";
        d.subsystem = "block";
        d.devtype = "disk";
        d.action = action;
        d.properties = {{"DM_UUID", "mpath-" + wwid}, {"DM_NAME", "m"}};
        if (!dmAction.empty())
            d.properties["DM_ACTION"] = dmAction;
        if (!devt.empty())
            d.properties["DM_PATH"] = devt;
        udev_->inject(d);
    }

    /// Starts a daemon (again, after restart()).
    void start(bool lmpath = true) {
        start(lmpath ? mpathd::LmpathPresence::Own : mpathd::LmpathPresence::Absent);
    }
    void start(mpathd::LmpathPresence lmpath) {
        mpathd::Environment env;
        env.loop = &loop_;
        env.udev = udev_.get();
        env.dm = dm_;
        env.root = root();
        env.sysfsRoot = tree_.sysfsRoot();
        env.checkers = checkers_.factory();
        env.prio = mpath::prio::Context::noDevices();
        if (scsiCommand_)
            env.prio.scsiCommand = scsiCommand_;
        env.sampleReadGap = std::chrono::milliseconds(100); // fewer reads, the same verdicts
        if (sampleAnswer_)
            env.sampleRead = [this](const std::string &devnode, std::chrono::milliseconds,
                                    std::function<void(mpath::Result<void>)> done) {
                const uint64_t id = ++sampleReadIds_;
                sampleReadTimers_[id] =
                    loop_.addTimer(std::chrono::milliseconds(1), [this, id, devnode, done] {
                        ++sampleReads_[devnode];
                        done(sampleAnswer_(devnode));
                        sampleReadTimers_.erase(id);
                    });
            };
        env.notify = [this](const std::string &s) { notes_.push_back(s); };
        env.lmpathPresence = [lmpath] { return lmpath; };
        env.raiseOpenFiles =
            [this](
                std::optional<unsigned long> target) -> mpath::Result<mpath::sys::OpenFileLimit> {
            openFileTargets_.push_back(target);
            if (openFilesError_)
                return *openFilesError_;
            return mpath::sys::OpenFileLimit{target.value_or(1048576), 1048576, true};
        };
        env.dmLane = {4, 4, 4};
        env.ioLane = {4, 4};
        daemon_ = std::make_unique<mpathd::Daemon>(std::move(env));
        auto r = daemon_->start();
        ASSERT_TRUE(r) << r.error().message;
    }

    /// The daemon goes away, and with it what it holds; the fakes stay.
    void dropDaemon() { daemon_.reset(); }

    /// The daemon goes away (as with kill -9) and a new one starts over the
    /// same device-mapper, udev and files.
    void restart() {
        daemon_.reset();
        // A new process: a udev connection of its own, the same devices.
        auto devices = udev_->enumerate("", "");
        udev_ = std::make_unique<mpath::testing::FakeUdev>();
        for (auto &d : devices.value())
            udev_->addDevice(d);
        start();
    }

    /// Daemon::reconfigure(), its answer waited for (it reads the files off
    /// the loop).
    mpath::Result<void> reconfigure() {
        std::optional<mpath::Result<void>> r;
        daemon_->reconfigure([&](mpath::Result<void> x) { r = std::move(x); });
        for (int i = 0; i < 400 && !r; ++i) {
            drain();
            if (!r)
                loop_.advance(10ms);
        }
        return r ? *r : mpath::Result<void>(mpath::Error{ETIMEDOUT, "no answer"});
    }

    /// Moves the clock in small steps until \a pred holds, at most \a limit.
    bool advanceUntil(const std::function<bool()> &pred, std::chrono::milliseconds limit) {
        for (auto done = 0ms; done < limit; done += 100ms) {
            if (pred())
                return true;
            advance(100ms);
        }
        return pred();
    }
    bool logged(const std::string &text) const { return logText().find(text) != std::string::npos; }

    /// Runs the loop until nothing more happens without the clock moving:
    /// events handled, jobs answered, the coalescing delay over. Jobs that
    /// hang are not waited for.
    void settle(std::chrono::milliseconds step = 50ms, int rounds = 400) {
        for (int i = 0; i < rounds; ++i) {
            drain();
            if (daemon_->reconciler().settled())
                return;
            loop_.advance(step);
        }
    }

    /// Moves the clock by \a by in small steps, answering jobs as they end.
    void advance(std::chrono::milliseconds by) {
        const auto step = 100ms;
        for (auto done = 0ms; done < by; done += step) {
            loop_.advance(std::min<std::chrono::milliseconds>(step, by - done));
            drain();
        }
    }

    /// Dispatches until nothing answers within a few milliseconds. udev
    /// broadcasts the uevents of the maps' changes meanwhile, unless
    /// holdUdev() said not to.
    void drain() {
        for (;;) {
            while (loop_.dispatch(5ms)) {
            }
            if (udevHeld_ || !broadcastMapEvents())
                return;
        }
    }

    /// udev holds (true) or broadcasts again (false) the uevents of the
    /// maps' creates and reloads.
    void holdUdev(bool hold) { udevHeld_ = hold; }

    /// Broadcasts the uevents of the maps' changes so far. \return whether
    /// there were any
    bool broadcastMapEvents() {
        auto events = dm_->with([](mpath::dm::DeviceMapper &dm) {
            return static_cast<mpath::testing::FakeDeviceMapper &>(dm).takeUdevEvents();
        });
        for (const auto &e : events) {
            mpath::discovery::UdevDevice d;
            d.sysname = "dm-0";
            d.subsystem = "block";
            d.devtype = "disk";
            d.action = "change";
            d.properties = {
                {"DM_UUID", e.uuid}, {"DM_NAME", e.name}, {"DM_COOKIE", std::to_string(e.cookie)}};
            udev_->inject(d);
        }
        broadcast_.insert(broadcast_.end(), events.begin(), events.end());
        return !events.empty();
    }

    /// The udev flags (DM_SUBSYSTEM_UDEV_FLAG*) of each uevent of map
    /// \a name's creates and reloads broadcast so far, oldest first.
    std::vector<uint16_t> mapUeventFlags(const std::string &name) const {
        std::vector<uint16_t> flags;
        for (const auto &e : broadcast_)
            if (e.name == name)
                flags.push_back(static_cast<uint16_t>(e.cookie >> 16));
        return flags;
    }

    /// The calls of the fake device-mapper that changed something.
    std::vector<std::string> calls() {
        return dm_->with([](mpath::dm::DeviceMapper &dm) {
            return static_cast<mpath::testing::FakeDeviceMapper &>(dm).calls();
        });
    }
    void clearCalls() {
        dm_->with([](mpath::dm::DeviceMapper &dm) {
            static_cast<mpath::testing::FakeDeviceMapper &>(dm).clearCalls();
            return 0;
        });
    }
    unsigned count(const std::string &prefix) {
        unsigned n = 0;
        for (const auto &c : calls())
            n += c.rfind(prefix, 0) == 0;
        return n;
    }
    bool called(const std::string &call) {
        for (const auto &c : calls())
            if (c == call)
                return true;
        return false;
    }
    /// The live table parameters of map \a name.
    std::string table(const std::string &name) {
        return dm_->with([&](mpath::dm::DeviceMapper &dm) -> std::string {
            auto t = dm.table(name);
            return t && !t->empty() ? t->front().params : std::string();
        });
    }
    std::vector<std::string> liveMaps() {
        return dm_->with([](mpath::dm::DeviceMapper &dm) {
            std::vector<std::string> out;
            if (auto l = dm.listMultipath())
                for (const auto &d : *l)
                    out.push_back(d.name);
            return out;
        });
    }

    mpathd::Daemon &daemon() { return *daemon_; }
    mpath::testing::ManualLoop &loop() { return loop_; }
    mpath::testing::ScriptedCheckers &checkers() { return checkers_; }
    mpath::testing::SerializedDeviceMapper &dm() { return *dm_; }
    SysfsTreeBuilder &tree() { return tree_; }
    const std::vector<std::string> &notes() const { return notes_; }
    /// What the daemon asked of the open file limit, in order (nullopt:
    /// the system's limit); and the error the next asks get, if any.
    const std::vector<std::optional<unsigned long>> &openFileTargets() const {
        return openFileTargets_;
    }
    void failOpenFiles(mpath::Error e) { openFilesError_ = std::move(e); }
    const std::vector<std::string> &log() const { return log_; }
    std::string logText() const {
        std::string out;
        for (const auto &l : log_)
            out += l + "\n";
        return out;
    }
    mpath_test::TempDir &dir() { return dir_; }

private:
    static mpath::discovery::UdevDevice udevDevice(const std::string &name, unsigned major,
                                                   unsigned minor, const std::string &wwid,
                                                   const std::string &action) {
        mpath::discovery::UdevDevice d;
        d.action = action;
        d.sysname = name;
        d.syspath = "/sys/block/" + name;
        d.subsystem = "block";
        d.devtype = "disk";
        d.devnode = "/dev/" + name;
        d.devnum = makedev(major, minor);
        d.properties = {{"ID_SERIAL", wwid}, {"DEVTYPE", "disk"}, {"DEVNAME", "/dev/" + name}};
        return d;
    }
    bool pendingCoalesce() const { return false; }

    unsigned nextLun_{0};
    bool udevHeld_{false};
    std::vector<mpath::testing::FakeDeviceMapper::UdevEvent> broadcast_;
    mpath_test::TempDir dir_{"mpathd-test"};
    mpath::testing::ManualLoop loop_;
    std::unique_ptr<mpath::testing::FakeUdev> udev_{std::make_unique<mpath::testing::FakeUdev>()};
    std::shared_ptr<mpath::testing::FakeDeviceMapper> fake_;
    std::shared_ptr<mpath::testing::SerializedDeviceMapper> dm_;
    SysfsTreeBuilder tree_;
    mpath::testing::ScriptedCheckers checkers_;
    decltype(mpath::prio::Context::scsiCommand) scsiCommand_;
    std::function<mpath::Result<void>(const std::string &)> sampleAnswer_;
    std::map<uint64_t, mpath::sys::EventLoop::SourcePtr> sampleReadTimers_;
    uint64_t sampleReadIds_{0};
    std::map<std::string, unsigned> sampleReads_;
    std::vector<std::string> notes_;
    std::vector<std::optional<unsigned long>> openFileTargets_;
    std::optional<mpath::Error> openFilesError_;
    std::vector<std::string> log_;
    std::unique_ptr<mpathd::Daemon> daemon_;
};

} // namespace mpathd_test
