#include "mpath/policy/gatherer.h"

#include "mpath/discovery/discovery.h"
#include "mpath/sys/sd_event_loop.h"

#include <optional>

namespace mpath::policy {

/// One gathering in progress: the input being filled and the jobs still
/// out. Only the loop's thread touches it.
struct Gatherer::Run {
    PlanInput input;
    std::vector<sys::Executor::JobId> jobs; ///< every priority job started
    size_t outstanding{0};                  ///< jobs whose answer has not come
    sys::Executor *executor{nullptr};
    std::function<void(PlanInput)> done;

    void finish() {
        auto callback = std::move(done);
        done = nullptr;
        if (callback)
            callback(std::move(input));
    }
};

Gatherer::Gatherer(config::Config config, discovery::Sysfs sysfs, Options options)
    : config_(std::move(config)), sysfs_(std::move(sysfs)), options_(std::move(options)) {}

Gatherer::~Gatherer() {
    if (run_ && run_->executor && run_->done)
        for (auto id : run_->jobs)
            run_->executor->cancel(id);
}

void Gatherer::start(sys::Executor &executor, const discovery::UdevProperties &udev,
                     std::function<void(PlanInput)> done) {
    auto run = std::make_shared<Run>();
    run->executor = &executor;
    run->done = std::move(done);
    run_ = run;

    discovery::Options dopts;
    dopts.uidAttribute = [this](const model::Path &p) {
        return config_.effective(p).uidAttribute.value;
    };
    discovery::Discovery discovery(sysfs_, dopts);
    run->input.paths = discovery.discoverAll(udev, &run->input.issues);

    const BlacklistFilter filter = BlacklistFilter::fromConfig(config_);
    for (size_t i = 0; i < run->input.paths.size(); ++i) {
        model::Path &p = run->input.paths[i];
        auto props = udev.properties(p.kernelName);
        if (props)
            run->input.udevProperties.emplace(p.kernelName, *props);
        const config::EffectiveSettings eff = config_.effective(p);
        if (excluded(filter, eff, p, props ? &*props : nullptr))
            continue; // no commands to devices that are left alone
        const PathPolicy policy = choosePathPolicy(eff, p);
        auto prioritizer =
            prio::Prioritizer::create(policy.prio, policy.prioArgs, policy.fallbackPrio,
                                      policy.fallbackPrioArgs, options_.prio);
        if (!prioritizer) {
            run->input.priorityNotes[p.kernelName] =
                "prioritizer " + policy.prio + " not used: " + prioritizer.error().message;
            continue;
        }
        const std::string name = policy.prio;
        auto record = [run, i, name](Result<int> r) {
            model::Path &path = run->input.paths[i];
            if (r)
                path.priority = *r;
            else if (name == "alua" && r.code() == EOPNOTSUPP)
                run->input.priorityNotes[path.kernelName] =
                    "prioritizer alua: the device reports no ALUA support";
            else
                run->input.priorityNotes[path.kernelName] =
                    "prioritizer " + name + ": " + r.error().message;
        };
        if (!(*prioritizer)->needsIo()) {
            record((*prioritizer)->job(p)());
            continue;
        }
        auto id = prio::startPriority(executor, **prioritizer, p, options_.priorityDeadline,
                                      [run, record](Result<int> r) {
                                          record(std::move(r));
                                          if (--run->outstanding == 0)
                                              run->finish();
                                      });
        // The executor calls back only from the loop, after this returns.
        run->jobs.push_back(id);
        ++run->outstanding;
    }
    if (run->outstanding == 0) {
        // Nothing on the executor: answer on the loop all the same, never
        // from inside start().
        auto id = executor.submit(
            "", options_.priorityDeadline, [] {}, [run](Result<void>) { run->finish(); });
        (void)id;
    }
}

PlanInput gatherNow(const config::Config &config, const discovery::Sysfs &sysfs,
                    const discovery::UdevProperties &udev, Gatherer::Options options) {
    PlanInput out;
    auto loop = sys::SdEventLoop::create();
    if (!loop) {
        out.issues.push_back({"", loop.error()});
        return out;
    }
    std::optional<PlanInput> gathered;
    {
        sys::Executor executor(**loop);
        Gatherer gatherer(config, sysfs, std::move(options));
        gatherer.start(executor, udev, [&](PlanInput in) { gathered = std::move(in); });
        while (!gathered)
            if (auto r = (*loop)->runOnce(std::chrono::seconds(1)); !r) {
                out.issues.push_back({"", r.error()});
                return out;
            }
    }
    return std::move(*gathered);
}

} // namespace mpath::policy
