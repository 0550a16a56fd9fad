#pragma once

#include "mpath/config/config.h"
#include "mpath/discovery/sysfs.h"
#include "mpath/discovery/udev_properties.h"
#include "mpath/policy/planner.h"
#include "mpath/prio/prioritizer.h"
#include "mpath/sys/executor.h"

#include <chrono>
#include <functional>
#include <memory>

namespace mpath::policy {

/// Fills a PlanInput from the system (or a fixture tree): discovers every
/// block device from sysfs and udev, then computes the priority of each
/// path that may be multipathed. Prioritizers that only read what
/// discovery found run at once; those that send commands to the device
/// run on the Executor, all at once, each within a deadline, so a hung
/// device costs one deadline, not one per path. The wwids and bindings
/// files are the caller's to read.
class Gatherer {
public:
    struct Options {
        /// How prioritizers reach devices.
        prio::Context prio = prio::Context::system();
        /// How long one path's priority may take; a path still without an
        /// answer ranks -1 with a note.
        std::chrono::milliseconds priorityDeadline{std::chrono::seconds(5)};
    };

    Gatherer(config::Config config, discovery::Sysfs sysfs, Options options);
    ~Gatherer();
    Gatherer(const Gatherer &) = delete;
    Gatherer &operator=(const Gatherer &) = delete;

    /// Discovers (in this call: sysfs attributes, answered by the kernel at
    /// once), then starts the priority jobs on \a executor and returns.
    /// \a done gets the input on the loop's thread once every priority is
    /// in or past its deadline. Destroying the Gatherer first cancels it.
    void start(sys::Executor &executor, const discovery::UdevProperties &udev,
               std::function<void(PlanInput)> done);

private:
    struct Run;
    config::Config config_;
    discovery::Sysfs sysfs_;
    Options options_;
    std::shared_ptr<Run> run_;
};

/// Gathers on an event loop and executor of its own and returns the input:
/// for tools. Takes about the priority deadline at most, whatever the
/// devices do.
PlanInput gatherNow(const config::Config &config, const discovery::Sysfs &sysfs,
                    const discovery::UdevProperties &udev, Gatherer::Options options);

} // namespace mpath::policy
