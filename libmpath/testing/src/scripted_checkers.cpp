#include "mpath/testing/scripted_checkers.h"

#include <condition_variable>

namespace mpath::testing {

struct ScriptedCheckers::Script {
    sys::Mutex mutex; ///< protects everything below
    std::condition_variable_any released;
    std::map<std::string, checkers::CheckOutcome> answers MPATH_GUARDED_BY(mutex);
    std::map<std::string, bool> hung MPATH_GUARDED_BY(mutex);
    std::map<std::string, bool> hungInKernel MPATH_GUARDED_BY(mutex);
    std::map<std::string, bool> inKernel MPATH_GUARDED_BY(mutex); ///< a check's I/O is there
    /// Timers of the checks that hang in the kernel; the loop's thread only.
    std::vector<sys::EventLoop::SourcePtr> timers;
    std::map<std::string, unsigned> counts MPATH_GUARDED_BY(mutex);
    uint64_t generation MPATH_GUARDED_BY(mutex) = 0;

    checkers::CheckOutcome answer(const std::string &devnode) {
        sys::MutexLock lock(mutex);
        ++counts[devnode];
        const uint64_t gen = generation;
        while (hung[devnode] && generation == gen)
            released.wait(mutex.native());
        auto it = answers.find(devnode);
        if (it == answers.end())
            return {model::CheckerState::Up, "scripted up"};
        return it->second;
    }
};

namespace {

class ScriptedChecker final : public checkers::Checker {
public:
    ScriptedChecker(std::string name, std::string devnode,
                    std::shared_ptr<ScriptedCheckers::Script> script)
        : Checker(std::move(devnode)), name_(std::move(name)), script_(std::move(script)) {}
    std::string_view name() const override { return name_; }
    std::function<checkers::CheckOutcome()> job(std::chrono::milliseconds) const override {
        return [script = script_, devnode = devnode()] { return script->answer(devnode); };
    }
    void start(checkers::CheckIo io, std::chrono::milliseconds timeout,
               std::function<void(checkers::CheckOutcome)> done) const override {
        bool inKernel = false, stillThere = false;
        {
            sys::MutexLock lock(script_->mutex);
            inKernel = script_->hungInKernel[devnode()];
            if (inKernel) {
                ++script_->counts[devnode()];
                stillThere = script_->inKernel[devnode()];
                script_->inKernel[devnode()] = true;
            }
        }
        if (!inKernel) {
            checkers::startCheckJob(io.executor, *this, timeout, std::move(done));
            return;
        }
        using model::CheckerState;
        checkers::CheckOutcome o =
            stillThere ? checkers::CheckOutcome{CheckerState::Timeout,
                                                "the previous check is still in the kernel"}
                       : checkers::CheckOutcome{CheckerState::Timeout,
                                                "no answer within " +
                                                    std::to_string(timeout.count()) + " ms"};
        script_->timers.push_back(
            io.loop.addTimer(stillThere ? std::chrono::milliseconds(0) : timeout,
                             [o, done = std::move(done)] { done(o); }));
    }

private:
    std::string name_;
    std::shared_ptr<ScriptedCheckers::Script> script_;
};

} // namespace

ScriptedCheckers::ScriptedCheckers() : script_(std::make_shared<Script>()) {}

ScriptedCheckers::~ScriptedCheckers() {
    release();
}

void ScriptedCheckers::set(const std::string &devnode, model::CheckerState state,
                           std::string message) {
    sys::MutexLock lock(script_->mutex);
    script_->answers[devnode] = {state, message.empty() ? "scripted" : std::move(message)};
}

void ScriptedCheckers::hang(const std::string &devnode) {
    sys::MutexLock lock(script_->mutex);
    script_->hung[devnode] = true;
}

void ScriptedCheckers::hangInKernel(const std::string &devnode) {
    sys::MutexLock lock(script_->mutex);
    script_->hungInKernel[devnode] = true;
}

void ScriptedCheckers::release() {
    sys::MutexLock lock(script_->mutex);
    script_->hung.clear();
    script_->hungInKernel.clear();
    script_->inKernel.clear();
    ++script_->generation;
    script_->released.notify_all();
}

unsigned ScriptedCheckers::checks(const std::string &devnode) const {
    sys::MutexLock lock(script_->mutex);
    auto it = script_->counts.find(devnode);
    return it == script_->counts.end() ? 0 : it->second;
}

std::function<Result<std::unique_ptr<checkers::Checker>>(std::string_view, std::string)>
ScriptedCheckers::factory() {
    auto script = script_;
    return [script](std::string_view name,
                    std::string devnode) -> Result<std::unique_ptr<checkers::Checker>> {
        return std::unique_ptr<checkers::Checker>(
            std::make_unique<ScriptedChecker>(std::string(name), std::move(devnode), script));
    };
}

} // namespace mpath::testing
