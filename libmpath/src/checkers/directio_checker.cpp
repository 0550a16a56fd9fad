#include "checkers/directio_checker.h"

#include "mpath/sys/device_io.h"

namespace mpath::checkers {

std::function<CheckOutcome()> DirectioChecker::job(std::chrono::milliseconds) const {
    return [devnode = devnode()]() -> CheckOutcome {
        auto r = sys::directRead(devnode);
        if (!r)
            return {model::CheckerState::Down, r.error().message};
        return {model::CheckerState::Up, "read the first block"};
    };
}

void DirectioChecker::start(CheckIo io, std::chrono::milliseconds timeout,
                            std::function<void(CheckOutcome)> done) const {
    if (!io.pathIo) {
        startCheckJob(io.executor, *this, timeout, std::move(done));
        return;
    }
    io.pathIo->directRead(devnode(), timeout,
                          [executor = &io.executor, node = devnode(), timeout,
                           done = std::move(done)](Result<std::chrono::nanoseconds> r) mutable {
                              if (r) {
                                  done({model::CheckerState::Up, "read the first block"});
                              } else if (r.code() == ENOSYS) {
                                  // No asynchronous I/O here: a worker reads.
                                  startCheckJob(*executor, DirectioChecker(node), timeout,
                                                std::move(done));
                              } else {
                                  done(outcomeOfError(r.error()));
                              }
                          });
}

} // namespace mpath::checkers
