#include "mpath/policy/table_settings.h"

#include "mpath/dm/selectors.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace mpath::policy {

using config::DmTarget;
using config::EffectiveSettings;
using config::NoPathRetry;
using config::Origin;
using config::QueueMode;
using config::RrWeight;
using model::Map;

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

/// rr_weight priorities with service-time: each path's relative throughput
/// (the kernel's per-path weight, 1..100) is its priority, a priority of 0
/// or less counting as 1 (multipath-tools weights only priorities above
/// 0); when a priority exceeds 100, all are scaled down alike so that their
/// ratios stay. Equal weights are no weights: the group keeps its
/// arguments (relative throughput 1), so that a table changes only when
/// the paths' shares do.
void weightByPriority(model::PathGroup &g, const std::string &repeat) {
    constexpr long kMaxThroughput = 100;
    long top = 1;
    for (const auto &p : g.paths)
        top = std::max<long>(top, p.priority);
    auto weight = [&](int priority) {
        const long w = std::max<long>(priority, 1);
        if (top <= kMaxThroughput)
            return w;
        return std::max<long>(1, (w * kMaxThroughput + top / 2) / top);
    };
    bool uniform = true;
    for (const auto &p : g.paths)
        uniform = uniform && weight(p.priority) == weight(g.paths.front().priority);
    if (uniform)
        return;
    for (auto &p : g.paths)
        p.pathArgs = {repeat, std::to_string(weight(p.priority))};
}

} // namespace

std::string_view targetName(DmTarget target) {
    return target == DmTarget::Multipath ? "multipath" : "lmpath";
}

void applyTableSettings(const EffectiveSettings &s, DmTarget target, Map &map,
                        std::vector<std::string> *notes) {
    map.target = targetName(target);

    // Settings that have their own keyword win over the same words in
    // "features", as in multipath-tools; the words stand when the keyword
    // is not set.
    const std::vector<std::string> &configured = s.features.value;
    auto featureValue = [&](const std::string &name) -> std::optional<unsigned> {
        for (size_t i = 0; i + 1 < configured.size(); ++i) {
            unsigned v = 0;
            const std::string &w = configured[i + 1];
            if (configured[i] == name &&
                std::from_chars(w.data(), w.data() + w.size(), v).ptr == w.data() + w.size())
                return v;
        }
        return std::nullopt;
    };
    const bool configuredQueueing =
        std::find(configured.begin(), configured.end(), "queue_if_no_path") != configured.end();
    const bool configuredRetain = std::find(configured.begin(), configured.end(),
                                            "retain_attached_hw_handler") != configured.end();
    std::vector<std::string> rest = configured;
    dropFeature(rest, "queue_if_no_path", 0);
    dropFeature(rest, "pg_init_retries", 1);
    dropFeature(rest, "pg_init_delay_msecs", 1);
    dropFeature(rest, "retain_attached_hw_handler", 0);
    dropFeature(rest, "queue_mode", 1);

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
    unsigned retries = s.pgInitRetries.value;
    if (s.pgInitRetries.origin == Origin::Builtin)
        retries = featureValue("pg_init_retries").value_or(retries);
    std::optional<unsigned> delay;
    if (!s.pgInitDelayMsecs.value.off)
        delay = s.pgInitDelayMsecs.value.value;
    else if (s.pgInitDelayMsecs.origin == Origin::Builtin)
        delay = featureValue("pg_init_delay_msecs");
    const bool bio = s.queueMode.value == QueueMode::Bio;

    // In the order the kernel prints them, so that the table reads back as
    // built; a bio-based map always keeps the attached handler and says so.
    std::vector<std::string> f;
    if (queueing)
        f.push_back("queue_if_no_path");
    if (retries > 0) {
        f.push_back("pg_init_retries");
        f.push_back(std::to_string(retries));
    }
    if (delay) {
        f.push_back("pg_init_delay_msecs");
        f.push_back(std::to_string(*delay));
    }
    if (configuredRetain || bio)
        f.push_back("retain_attached_hw_handler");
    if (bio) {
        f.push_back("queue_mode");
        f.push_back("bio");
    }
    f.insert(f.end(), rest.begin(), rest.end());
    map.features = std::move(f);

    map.hwHandler = s.hardwareHandler.value.name;
    map.hwHandlerArgs =
        map.hwHandler.empty() ? std::vector<std::string>{} : s.hardwareHandler.value.args;

    const unsigned repeat = bio ? s.rrMinIo.value : s.rrMinIoRq.value;
    const std::vector<std::string> pathArgs =
        dm::pathArgsAsPrinted(s.pathSelector.value.name, repeat);
    if (notes && pathArgs.size() >= 1 && pathArgs[0] != std::to_string(repeat) &&
        s.pathSelector.value.name != "historical-service-time")
        notes->push_back(std::string(bio ? "rr_min_io " : "rr_min_io_rq ") +
                         std::to_string(repeat) + " is written as " + pathArgs[0] +
                         ": the kernel's selectors keep no repeat count above 1");
    const bool weighted = s.rrWeight.value == RrWeight::Priorities;
    const bool weighs = s.pathSelector.value.name == "service-time";
    if (notes && weighted && !weighs)
        notes->push_back("rr_weight priorities has no effect with path_selector " +
                         s.pathSelector.value.name +
                         ": the kernel keeps a per-path weight only for service-time");
    for (auto &g : map.groups) {
        g.selector = s.pathSelector.value.name;
        g.selectorArgs = dm::selectorArgsAsPrinted(g.selector, s.pathSelector.value.args);
        g.pathArgs = pathArgs;
        for (auto &p : g.paths)
            p.pathArgs.clear();
        if (weighted && weighs)
            weightByPriority(g, pathArgs.front());
    }
    map.initialGroup = map.groups.empty() ? 0 : 1;
}

} // namespace mpath::policy
