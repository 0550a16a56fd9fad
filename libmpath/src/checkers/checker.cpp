#include "mpath/checkers/checker.h"

#include "checkers/directio_checker.h"
#include "checkers/readsector0_checker.h"
#include "checkers/tur_checker.h"
#include "mpath/sys/sd_event_loop.h"

#include <optional>

namespace mpath::checkers {

namespace {

/// "none": every path is up, no I/O.
class NoneChecker final : public Checker {
public:
    explicit NoneChecker(std::string devnode) : Checker(std::move(devnode)) {}
    std::string_view name() const override { return "none"; }
    std::function<CheckOutcome()> job(std::chrono::milliseconds) const override {
        return [] { return CheckOutcome{model::CheckerState::Up, "not checked"}; };
    }
};

} // namespace

Result<std::unique_ptr<Checker>> Checker::create(std::string_view name, std::string devnode) {
    if (name == "tur")
        return std::unique_ptr<Checker>(std::make_unique<TurChecker>(std::move(devnode)));
    if (name == "directio")
        return std::unique_ptr<Checker>(std::make_unique<DirectioChecker>(std::move(devnode)));
    if (name == "readsector0")
        return std::unique_ptr<Checker>(std::make_unique<Readsector0Checker>(std::move(devnode)));
    if (name == "none")
        return std::unique_ptr<Checker>(std::make_unique<NoneChecker>(std::move(devnode)));
    return Error{EINVAL, "unknown path checker '" + std::string(name) +
                             "'; known: tur, directio, readsector0, none"};
}

std::vector<std::string> Checker::names() {
    return {"tur", "directio", "readsector0", "none"};
}

CheckOutcome outcomeOfError(const Error &error) {
    using model::CheckerState;
    switch (error.code) {
    case ETIMEDOUT:
        return {CheckerState::Timeout, error.message};
    case EBUSY:
        return {CheckerState::Timeout, "the previous check is still in the kernel"};
    case EAGAIN:
        return {CheckerState::Unchecked, "not checked: " + error.message};
    default:
        return {CheckerState::Down, error.message};
    }
}

std::optional<CheckOutcome> outcomeOfDeviceState(model::Transport transport,
                                                 std::string_view state) {
    using model::CheckerState;
    if (state.empty())
        return std::nullopt;
    const std::string said = "the kernel says the device is " + std::string(state);
    if (transport == model::Transport::Nvme) {
        if (state == "live")
            return std::nullopt;
        if (state == "new" || state.starts_with("deleting"))
            return CheckOutcome{CheckerState::Unchecked, said};
        return CheckOutcome{CheckerState::Down, said};
    }
    if (state == "offline" || state == "transport-offline")
        return CheckOutcome{CheckerState::Down, said};
    return std::nullopt;
}

void Checker::start(CheckIo io, std::chrono::milliseconds timeout,
                    std::function<void(CheckOutcome)> done) const {
    startCheckJob(io.executor, *this, timeout, std::move(done));
}

void startCheckJob(sys::Executor &executor, const Checker &checker,
                   std::chrono::milliseconds timeout, std::function<void(CheckOutcome)> done) {
    auto job = checker.job(timeout);
    executor.run<CheckOutcome>(
        checker.devnode(), timeout,
        [job = std::move(job)]() -> Result<CheckOutcome> { return job(); },
        [done = std::move(done), timeout](Result<CheckOutcome> r) {
            if (r) {
                done(std::move(*r));
                return;
            }
            using model::CheckerState;
            const std::string ms = std::to_string(timeout.count()) + " ms";
            switch (r.error().code) {
            case ETIMEDOUT:
                done({CheckerState::Timeout, "no answer within " + ms});
                break;
            case EBUSY:
                done({CheckerState::Timeout, "the previous check is still in the kernel"});
                break;
            case EAGAIN:
                done({CheckerState::Unchecked,
                      "not checked: every checker worker is busy with hung devices"});
                break;
            default:
                done({CheckerState::Down, r.error().message});
                break;
            }
        });
}

void startCheck(CheckIo io, const Checker &checker, std::chrono::milliseconds timeout,
                std::function<void(CheckOutcome)> done) {
    checker.start(io, timeout, std::move(done));
}

CheckOutcome checkNow(const Checker &checker, std::chrono::milliseconds timeout) {
    auto loop = sys::SdEventLoop::create();
    if (!loop)
        return {model::CheckerState::Down, loop.error().message};
    std::optional<CheckOutcome> outcome;
    {
        // One worker, no stuck spares: a hung check is left behind when
        // this returns.
        sys::Executor executor(**loop, {1, 0});
        startCheck({**loop, executor, nullptr}, checker, timeout,
                   [&](CheckOutcome o) { outcome = std::move(o); });
        while (!outcome)
            if (auto r = (*loop)->runOnce(std::chrono::seconds(1)); !r)
                return {model::CheckerState::Down, r.error().message};
    }
    return *outcome;
}

} // namespace mpath::checkers
