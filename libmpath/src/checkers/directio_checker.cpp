#include "checkers/directio_checker.h"

#include "checkers/tur_checker.h"
#include "mpath/sys/device_io.h"

#include <fstream>

namespace mpath::checkers {

namespace {

/// Whether the kernel's ALUA handler refuses reads through \a devnode's
/// port without sending them (access_state standby, unavailable or
/// offline): a failed read then says nothing of the target.
bool portRefusesIo(const std::string &devnode) {
    const std::string name = devnode.substr(devnode.rfind('/') + 1);
    std::ifstream in("/sys/class/block/" + name + "/device/access_state");
    std::string state;
    if (!(in >> state))
        return false;
    return state == "standby" || state == "unavailable" || state == "offline";
}

} // namespace

std::function<CheckOutcome()> DirectioChecker::job(std::chrono::milliseconds timeout) const {
    return [devnode = devnode(), timeout]() -> CheckOutcome {
        auto r = sys::directRead(devnode);
        if (r)
            return {model::CheckerState::Up, "read the first block"};
        if (r.code() == EIO && portRefusesIo(devnode))
            return TurChecker(devnode).job(timeout)();
        return {model::CheckerState::Down, r.error().message};
    };
}

void DirectioChecker::start(CheckIo io, std::chrono::milliseconds timeout,
                            std::function<void(CheckOutcome)> done) const {
    if (!io.pathIo) {
        startCheckJob(io.executor, *this, timeout, std::move(done));
        return;
    }
    io.pathIo->directRead(devnode(), timeout,
                          [io, node = devnode(), timeout,
                           done = std::move(done)](Result<std::chrono::nanoseconds> r) mutable {
                              if (r) {
                                  done({model::CheckerState::Up, "read the first block"});
                              } else if (r.code() == ENOSYS) {
                                  // No asynchronous I/O here: a worker reads.
                                  startCheckJob(io.executor, DirectioChecker(node), timeout,
                                                std::move(done));
                              } else if (r.code() == EIO && portRefusesIo(node)) {
                                  // scsi_dh_alua refused the read: nothing reached the target,
                                  // which would otherwise never tell that the port group is
                                  // back (its unit attention waits for a command). A TUR goes
                                  // through: standby is Ghost, and a unit attention makes the
                                  // kernel read the port groups' states again.
                                  TurChecker(node).start(io, timeout, std::move(done));
                              } else {
                                  done(outcomeOfError(r.error()));
                              }
                          });
}

} // namespace mpath::checkers
