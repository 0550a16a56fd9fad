#include "state_files.h"

#include "daemon.h"
#include "log.h"
#include "reconciler.h"

#include <algorithm>
#include <mpath/state/bindings_file.h>
#include <mpath/state/wwids_file.h>
#include <mpath/sys/file.h>
#include <mpath/sys/unique_fd.h>
#include <optional>
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
    wwidsToAdd_.emplace_back(wwid, name);
    if (!addingWwids_)
        writeWwids();
}

void StateFiles::writeWwids() {
    // Every WWID asked for while the last write ran goes in one write:
    // a burst of new maps rewrites the file a few times, not once each.
    addingWwids_ = true;
    ++daemon_.mutableCounters().wwidsWrites;
    auto batch = std::make_shared<std::vector<std::pair<std::string, std::string>>>(
        std::exchange(wwidsToAdd_, {}));
    std::vector<std::string> wwids;
    for (const auto &[wwid, name] : *batch)
        wwids.push_back(wwid);
    const std::string path = daemon_.wwidsFile();
    run<std::vector<std::string>>(
        [path, wwids = std::move(wwids)]() -> Result<std::vector<std::string>> {
            return mpath::state::WwidsFile(path).addAll(wwids, kLockWait);
        },
        [this, batch](Result<std::vector<std::string>> r) {
            // Tools that keep off path devices (LVM, systemd, UDisks) read
            // this file: say so when it could not be changed, and try again
            // at the map's next read.
            for (const auto &[wwid, name] : *batch) {
                if (r && std::find(r->begin(), r->end(), wwid) == r->end())
                    continue;
                logWarning(aboutMap(name, wwid),
                           r ? "'" + wwid + "' cannot be a WWID in " + daemon_.wwidsFile()
                             : r.error().message);
                wwids_.erase(wwid);
            }
            addingWwids_ = false;
            if (!wwidsToAdd_.empty())
                writeWwids();
        });
}

void StateFiles::bind(const std::string &wwid, const std::string &alias,
                      std::function<void(Result<void>)> done) {
    binds_.push_back({wwid, alias, std::move(done)});
    if (!binding_)
        writeBindings();
}

void StateFiles::writeBindings() {
    // As for the wwids file: the bindings asked for while the last write
    // ran go in one write. Each keeps its own outcome.
    binding_ = true;
    ++daemon_.mutableCounters().bindingsWrites;
    auto batch = std::make_shared<std::vector<BindRequest>>(std::exchange(binds_, {}));
    std::vector<std::pair<std::string, std::string>> wanted; // wwid, alias
    for (const auto &b : *batch)
        wanted.emplace_back(b.wwid, b.alias);
    const std::string path = daemon_.bindingsFile();
    using Outcomes = std::vector<std::optional<Error>>;
    run<Outcomes>(
        [path, wanted = std::move(wanted)]() -> Result<Outcomes> {
            Outcomes outcomes(wanted.size());
            auto r = mpath::state::BindingsFile(path).update(
                [&](mpath::state::Bindings &b) -> Result<bool> {
                    bool changed = false;
                    for (size_t i = 0; i < wanted.size(); ++i) {
                        const auto &[wwid, alias] = wanted[i];
                        const auto bound = b.aliasFor(wwid);
                        if (bound && *bound == alias)
                            continue;
                        (void)b.remove(wwid); // a binding the configuration took from it
                        if (!alias.empty())
                            if (auto added = b.add(alias, wwid); !added) {
                                outcomes[i] = added.error();
                                if (bound)
                                    (void)b.add(*bound, wwid); // as it was
                                continue;
                            }
                        changed = true;
                    }
                    return changed;
                },
                kLockWait);
            if (!r)
                return r.error();
            return outcomes;
        },
        [this, batch](Result<Outcomes> r) {
            for (size_t i = 0; i < batch->size(); ++i) {
                BindRequest &b = (*batch)[i];
                if (!r) {
                    b.done(r.error());
                    continue;
                }
                if ((*r)[i]) {
                    b.done(*(*r)[i]);
                    continue;
                }
                (void)bindings_.remove(b.wwid);
                if (!b.alias.empty())
                    (void)bindings_.add(b.alias, b.wwid);
                b.done(mpath::ok());
            }
            binding_ = false;
            if (!binds_.empty())
                writeBindings();
        });
}

} // namespace mpathd
