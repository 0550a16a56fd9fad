#include "mpath/table_settings.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace mpath {

namespace {

/// Removes \p name and the \p values words after it from \p features.
void dropFeature(std::vector<std::string> &features, const std::string &name, size_t values) {
    for (size_t i = 0; i < features.size();) {
        if (features[i] == name)
            features.erase(features.begin() + static_cast<std::ptrdiff_t>(i),
                           features.begin() + static_cast<std::ptrdiff_t>(
                                                  std::min(features.size(), i + 1 + values)));
        else
            ++i;
    }
}

/// rr_weight priorities: a path repeats \p repeat times its priority, as
/// many as the kernel reads into an unsigned int at most.
unsigned weightedRepeat(unsigned repeat, int priority) {
    const uint64_t r = uint64_t{repeat} * static_cast<uint64_t>(priority);
    return static_cast<unsigned>(std::min<uint64_t>(r, std::numeric_limits<unsigned>::max()));
}

} // namespace

const char *TableSettings::targetName(DmTarget target) {
    return target == DmTarget::Multipath ? "multipath" : "lmpath";
}

void TableSettings::apply(const EffectiveSettings &s, DmTarget target, Map &map) {
    map.target = targetName(target);

    std::vector<std::string> f = s.features.value;
    // Settings that have their own keyword win over the same words in
    // "features", as in multipath-tools.
    dropFeature(f, "queue_if_no_path", 0);
    dropFeature(f, "pg_init_retries", 1);
    dropFeature(f, "pg_init_delay_msecs", 1);
    dropFeature(f, "queue_mode", 1);
    const bool configuredQueueing = std::find(s.features.value.begin(), s.features.value.end(),
                                              "queue_if_no_path") != s.features.value.end();
    bool queueing = false;
    switch (s.noPathRetry.value.kind) {
    case NoPathRetry::Kind::Queue:
    case NoPathRetry::Kind::Retries:
        queueing = true;
        break;
    case NoPathRetry::Kind::Fail:
        // An explicit no_path_retry fail overrides features; the built-in
        // default leaves a configured queue_if_no_path alone.
        queueing = configuredQueueing && s.noPathRetry.origin == Origin::Builtin;
        break;
    }
    if (queueing)
        f.insert(f.begin(), "queue_if_no_path");
    if (s.pgInitRetries.value > 0) {
        f.push_back("pg_init_retries");
        f.push_back(std::to_string(s.pgInitRetries.value));
    }
    if (!s.pgInitDelayMsecs.value.off) {
        f.push_back("pg_init_delay_msecs");
        f.push_back(std::to_string(s.pgInitDelayMsecs.value.value));
    }
    const bool bio = s.queueMode.value == QueueMode::Bio;
    if (bio) {
        f.push_back("queue_mode");
        f.push_back("bio");
    }
    map.features = std::move(f);

    map.hwHandler = s.hardwareHandler.value.name;
    map.hwHandlerArgs =
        map.hwHandler.empty() ? std::vector<std::string>{} : s.hardwareHandler.value.args;

    const unsigned repeat = bio ? s.rrMinIo.value : s.rrMinIoRq.value;
    const bool weighted = s.rrWeight.value == RrWeight::Priorities;
    for (auto &g : map.groups) {
        g.selector = s.pathSelector.value.name;
        g.selectorArgs = s.pathSelector.value.args;
        g.pathArgs = {std::to_string(repeat)};
        for (auto &p : g.paths) {
            p.pathArgs.clear();
            if (!weighted || p.priority <= 0)
                continue;
            // A count equal to the group's stays implicit, the form
            // Table::parse() gives a table read back.
            if (const unsigned own = weightedRepeat(repeat, p.priority); own != repeat)
                p.pathArgs = {std::to_string(own)};
        }
    }
    map.initialGroup = map.groups.empty() ? 0 : 1;
}

} // namespace mpath
