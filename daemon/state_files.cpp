#include "state_files.h"

#include "daemon.h"
#include "log.h"
#include "reconciler.h"

#include <mpath/state/bindings_file.h>
#include <mpath/state/wwids_file.h>
#include <mpath/sys/file.h>
#include <mpath/sys/unique_fd.h>
#include <sys/inotify.h>
#include <unistd.h>

namespace mpathd {

using mpath::Error;
using mpath::Result;

/// What one read of the files found, on the lane's thread.
struct StateFiles::Read {
    Result<std::vector<std::string>> wwids{std::vector<std::string>{}};
    Result<mpath::state::Bindings> bindings{mpath::state::Bindings{}};
    std::vector<mpath::config::Diagnostic> diagnostics;
    std::shared_ptr<mpath::sys::UniqueFd> watch; ///< a new inotify descriptor, when asked
};

StateFiles::StateFiles(Daemon &daemon)
    : daemon_(daemon),
      // One worker: the files are read and written one job after the
      // other; two more may replace it while it waits on a device.
      lane_(std::make_unique<mpath::sys::Executor>(daemon.loop(),
                                                   mpath::sys::Executor::Options{1, 2, 0})) {}

StateFiles::~StateFiles() {
    retry_.reset();
    watch_.reset();
    if (watchFd_ >= 0)
        ::close(watchFd_);
}

void StateFiles::load(std::function<void()> ready) {
    if (ready)
        readyCallbacks_.push_back(std::move(ready));
    reread();
}

void StateFiles::reread() {
    if (reading_) {
        readAgain_ = true;
        return;
    }
    reading_ = true;
    const std::string wwidsPath = daemon_.wwidsFile();
    const std::string bindingsPath = daemon_.bindingsFile();
    const bool wantWatch = watchFd_ < 0 || watched_ != wwidsPath + "\n" + bindingsPath;
    run<std::shared_ptr<Read>>(
        [wwidsPath, bindingsPath, wantWatch]() -> Result<std::shared_ptr<Read>> {
            auto read = std::make_shared<Read>();
            read->wwids = mpath::state::WwidsFile(wwidsPath).load(&read->diagnostics);
            read->bindings = mpath::state::BindingsFile(bindingsPath).load(&read->diagnostics);
            if (!wantWatch)
                return read;
            // Their folders, so that a file replaced or made later is seen.
            auto fd =
                std::make_shared<mpath::sys::UniqueFd>(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
            if (!*fd)
                return read;
            constexpr uint32_t kMask =
                IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE;
            bool any = false;
            for (const auto &path : {wwidsPath, bindingsPath}) {
                const std::string dir = mpath::sys::directoryOf(path);
                (void)mpath::sys::makeDirectories(dir);
                any = ::inotify_add_watch(fd->get(), dir.c_str(), kMask) >= 0 || any;
            }
            if (any)
                read->watch = std::move(fd);
            return read;
        },
        [this, wwidsPath, bindingsPath](Result<std::shared_ptr<Read>> r) {
            reading_ = false;
            bool changed = false;
            if (!r && !loaded_) {
                // Names and known WWIDs come from them: plans wait.
                logError({}, "cannot read the wwids and bindings files: " + r.error().message +
                                 "; new maps wait, trying again in 5 s");
                retry_ = daemon_.loop().addTimer(std::chrono::seconds(5), [this] {
                    retry_.reset();
                    reread();
                });
                return;
            }
            if (!r) {
                logWarning({}, "cannot read the wwids and bindings files: " + r.error().message);
            } else {
                Read &read = **r;
                if (read.wwids) {
                    std::set<std::string> next(read.wwids->begin(), read.wwids->end());
                    changed = changed || next != wwids_;
                    wwids_ = std::move(next);
                } else {
                    logWarning({}, read.wwids.error().message);
                }
                if (read.bindings) {
                    changed = changed || !(*read.bindings == bindings_);
                    bindings_ = std::move(*read.bindings);
                } else {
                    logWarning({}, read.bindings.error().message);
                }
                for (const auto &d : read.diagnostics)
                    logWarning({}, d.toString());
                if (read.watch) {
                    watch_.reset();
                    if (watchFd_ >= 0)
                        ::close(watchFd_);
                    watchFd_ = read.watch->release();
                    watched_ = wwidsPath + "\n" + bindingsPath;
                    watch_ = daemon_.loop().addReadable(watchFd_, [this] { onWatch(); });
                }
            }
            const bool first = !loaded_;
            loaded_ = true;
            auto ready = std::move(readyCallbacks_);
            readyCallbacks_.clear();
            for (auto &f : ready)
                f();
            if (changed && !first)
                daemon_.reconciler().schedule(); // another tool changed them
            if (readAgain_) {
                readAgain_ = false;
                reread();
            }
        });
}

void StateFiles::idle() {
    daemon_.reconciler().stateFilesIdle();
}

void StateFiles::onWatch() {
    // Drain the events (no disk I/O): any of them means "read again".
    alignas(inotify_event) char buf[4096];
    while (::read(watchFd_, buf, sizeof(buf)) > 0) {
    }
    reread();
}

void StateFiles::addWwid(const std::string &wwid, const std::string &name) {
    // The file as last read (it is read again whenever it changes) or as
    // this daemon wrote it has it already: nothing to do, and no read of
    // the whole file (every map made or adopted asks).
    if (wwids_.count(wwid))
        return;
    wwids_.insert(wwid); // the next plan knows it already
    const std::string path = daemon_.wwidsFile();
    run<bool>(
        [path, wwid]() -> Result<bool> {
            return mpath::state::WwidsFile(path).add(wwid, kLockWait);
        },
        [this, name, wwid](Result<bool> r) {
            // Tools that keep off path devices (LVM, systemd, UDisks) read
            // this file: say so when it could not be changed, and try again
            // at the map's next read.
            if (!r) {
                logWarning(aboutMap(name, wwid), r.error().message);
                wwids_.erase(wwid);
            }
        });
}

void StateFiles::bind(const std::string &wwid, const std::string &alias,
                      std::function<void(Result<void>)> done) {
    const std::string path = daemon_.bindingsFile();
    run<bool>(
        [path, wwid, alias]() -> Result<bool> {
            auto r = mpath::state::BindingsFile(path).update(
                [&](mpath::state::Bindings &b) -> Result<bool> {
                    if (auto bound = b.aliasFor(wwid); bound && *bound == alias)
                        return false;
                    (void)b.remove(wwid); // a binding the configuration took from it
                    if (!alias.empty())
                        if (auto added = b.add(alias, wwid); !added)
                            return added.error();
                    return true;
                },
                kLockWait);
            if (!r)
                return r.error();
            return true;
        },
        [this, wwid, alias, done = std::move(done)](Result<bool> r) {
            if (r) {
                (void)bindings_.remove(wwid);
                if (!alias.empty())
                    (void)bindings_.add(alias, wwid);
                done(mpath::ok());
                return;
            }
            done(r.error());
        });
}

} // namespace mpathd
