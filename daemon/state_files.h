#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mpath/error.h>
#include <mpath/state/bindings.h>
#include <mpath/sys/event_loop.h>
#include <mpath/sys/executor.h>
#include <set>
#include <string>
#include <vector>

namespace mpathd {

class Daemon;

/// The wwids and bindings files, as the plans need them. They may live on
/// a multipath device that queues its I/O (the root file system): every
/// read and write of them runs in a lane of its own, never on the loop.
/// They are read at start, again when inotify says one changed (another
/// tool wrote it), and after the daemon's own writes; a plan takes them
/// from memory.
class StateFiles {
public:
    explicit StateFiles(Daemon &daemon);
    ~StateFiles();
    StateFiles(const StateFiles &) = delete;
    StateFiles &operator=(const StateFiles &) = delete;

    /// Reads both files (and watches their folders); \a ready is called
    /// on the loop once they are read, whether they could be or not.
    void load(std::function<void()> ready = {});
    /// Both files have been read once.
    bool loaded() const { return loaded_; }
    /// Jobs (reads, writes) not answered yet.
    bool busy() const { return pending_ > 0; }

    /// The WWIDs of the wwids file, as last read and with what the daemon
    /// added since.
    const std::set<std::string> &knownWwids() const { return wwids_; }
    /// The bindings file, as last read and with what the daemon bound since.
    const mpath::state::Bindings &bindings() const { return bindings_; }

    /// Lists \a wwid in the wwids file (a warning naming map \a name when
    /// it cannot be).
    void addWwid(const std::string &wwid, const std::string &name);

    /// Binds \a alias to \a wwid in the bindings file (or only drops
    /// \a wwid's binding when \a alias is empty); \a done gets the outcome
    /// on the loop.
    void bind(const std::string &wwid, const std::string &alias,
              std::function<void(mpath::Result<void>)> done);

    /// Runs \a work (file I/O that may block) in the files' lane; \a done
    /// gets its result on the loop, or the lane's error.
    template <typename T>
    void run(std::function<mpath::Result<T>()> work, std::function<void(mpath::Result<T>)> done);

    /// How long a file's lock is waited for by a write (another tool
    /// changing the file).
    static constexpr std::chrono::milliseconds kLockWait{2000};
    /// How long a read or write of the files is waited for.
    static constexpr std::chrono::milliseconds kJobBound{10000};

private:
    struct Read;
    /// No job is left: the reconciler may be settled.
    void idle();
    void reread();
    void onWatch();
    /// Writes the WWIDs asked for since the last write, in one change.
    void writeWwids();
    /// Writes the bindings asked for since the last write, in one change.
    void writeBindings();

    struct BindRequest {
        std::string wwid;
        std::string alias;
        std::function<void(mpath::Result<void>)> done;
    };

    Daemon &daemon_;
    std::unique_ptr<mpath::sys::Executor> lane_;
    bool loaded_{false};
    unsigned pending_{0};
    bool reading_{false};
    bool readAgain_{false};
    std::vector<std::function<void()>> readyCallbacks_;
    std::set<std::string> wwids_;
    std::vector<std::pair<std::string, std::string>> wwidsToAdd_; ///< wwid, map name
    bool addingWwids_{false};
    std::vector<BindRequest> binds_; ///< waiting for the write under way
    bool binding_{false};
    mpath::state::Bindings bindings_;
    int watchFd_{-1};
    std::string watched_; ///< the files whose folders watchFd_ watches
    mpath::sys::EventLoop::SourcePtr watch_;
    mpath::sys::EventLoop::SourcePtr retry_; ///< a first read that failed, again
};

template <typename T>
void StateFiles::run(std::function<mpath::Result<T>()> work,
                     std::function<void(mpath::Result<T>)> done) {
    // A file on a device that queues can take as long as the outage:
    // its answer is given up after kJobBound (the job itself runs on).
    ++pending_;
    lane_->run<T>("", mpath::sys::Executor::Limits{kJobBound, kJobBound}, std::move(work),
                  [this, done = std::move(done)](mpath::Result<T> r) {
                      done(std::move(r));
                      if (--pending_ == 0)
                          idle();
                  });
}

} // namespace mpathd
