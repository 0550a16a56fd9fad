#include "mpath/config/resolve.h"

#include "config/keyword_table.h"

#include <algorithm>

namespace mpath::config {

namespace {

// One layer of the configuration as the resolver walks it.
struct Layer {
    const Settings *settings;
    Origin origin;
    unsigned section;     ///< the keyword table's bit for the layer's section
    SourceLocation entry; ///< the entry's line, when a keyword has none

    SourceLocation where(std::string_view keyword) const {
        if (origin == Origin::Hwtable)
            return {};
        auto it = settings->where.find(keyword);
        return it == settings->where.end() ? entry : it->second;
    }
    bool isDevice() const { return origin == Origin::Devices || origin == Origin::Hwtable; }
};

// The layers that count for \a device, most specific first.
std::vector<Layer> layersFor(const Config &config, const DeviceIdentity &device,
                             const Hwtable &table) {
    std::vector<Layer> layers;
    if (!device.wwid.empty())
        for (auto it = config.multipaths.rbegin(); it != config.multipaths.rend(); ++it)
            if (it->wwid == device.wwid)
                layers.push_back(
                    {&it->settings, Origin::Multipaths, detail::InMultipath, it->where});
    layers.push_back({&config.overrides, Origin::Overrides, detail::InOverrides, {}});
    for (auto it = config.devices.rbegin(); it != config.devices.rend(); ++it)
        if (it->matches(device.vendor, device.product, device.revision))
            layers.push_back({&it->settings, Origin::Devices, detail::InDevice, it->where});
    const auto &builtin = table.entries();
    for (auto it = builtin.rbegin(); it != builtin.rend(); ++it)
        if (it->matches(device.vendor, device.product, device.revision))
            layers.push_back({&it->settings, Origin::Hwtable, detail::InDevice, {}});
    layers.push_back({&config.defaults, Origin::Defaults, detail::InDefaults, {}});
    return layers;
}

// The first layer whose section takes \a k and that sets it decides it.
// \return the index of that layer, -1 for the built-in default
template <typename K>
int resolveKeyword(const K &k, const std::vector<Layer> &layers, EffectiveSettings &e) {
    auto &r = e.*k.effective;
    for (size_t i = 0; i < layers.size(); ++i) {
        const Layer &l = layers[i];
        const auto &v = l.settings->*k.field;
        if (!(k.sections & l.section) || !v)
            continue;
        r = {*v, l.origin, l.where(k.name)};
        return static_cast<int>(i);
    }
    r = {k.builtin, Origin::Builtin, {}};
    return -1;
}

// multipath-tools takes prio_args from the layer that gave prio; among the
// device entries, from the first one that sets it, whichever gave prio.
void resolvePrioArgs(int prioLayer, const std::vector<Layer> &layers, EffectiveSettings &e) {
    if (prioLayer < 0) {
        e.prioArgs = {"", Origin::Builtin, {}};
        return;
    }
    const Layer &given = layers[static_cast<size_t>(prioLayer)];
    if (given.isDevice()) {
        for (const Layer &l : layers)
            if (l.isDevice() && l.settings->prioArgs) {
                e.prioArgs = {*l.settings->prioArgs, l.origin, l.where("prio_args")};
                return;
            }
    } else if (given.settings->prioArgs) {
        e.prioArgs = {*given.settings->prioArgs, given.origin, given.where("prio_args")};
        return;
    }
    e.prioArgs = {"", e.prio.origin, e.prio.where};
}

// features "queue_if_no_path" is how old configurations asked for
// queueing: it stands for no_path_retry queue when nothing sets
// no_path_retry, and leaves the features either way (multipath-tools'
// reconcile_features_with_options).
void translateQueueIfNoPath(EffectiveSettings &e) {
    auto &words = e.features.value;
    if (std::find(words.begin(), words.end(), "queue_if_no_path") == words.end())
        return;
    words.erase(std::remove(words.begin(), words.end(), "queue_if_no_path"), words.end());
    if (e.noPathRetry.origin == Origin::Builtin)
        e.noPathRetry = {NoPathRetry::queue(), e.features.origin, e.features.where};
}

// True when an entry before \a mp gives its alias to another WWID: the
// first one keeps the name (checkConsistency() reports it).
bool aliasTakenBefore(const std::vector<MultipathEntry> &all, const MultipathEntry &mp) {
    for (const auto &other : all) {
        if (&other == &mp)
            return false;
        if (other.alias == mp.alias && other.wwid != mp.wwid)
            return true;
    }
    return false;
}

void resolveAlias(const Config &config, std::string_view wwid, EffectiveSettings &e) {
    e.alias = {"", Origin::Builtin, {}};
    if (wwid.empty())
        return;
    for (const auto &mp : config.multipaths) {
        if (mp.wwid != wwid || mp.alias.empty() || aliasTakenBefore(config.multipaths, mp))
            continue;
        auto line = mp.settings.where.find("alias");
        e.alias = {mp.alias, Origin::Multipaths,
                   line == mp.settings.where.end() ? mp.where : line->second};
    }
}

} // namespace

EffectiveSettings builtinSettings() {
    EffectiveSettings e;
    e.alias = {"", Origin::Builtin, {}};
    detail::forEachSetting([&](const auto &k) {
        e.*k.effective = {k.builtin, Origin::Builtin, {}};
    });
    return e;
}

EffectiveGlobals builtinGlobals() {
    EffectiveGlobals g;
    detail::forEachGlobal([&](const auto &k) {
        g.*k.effective = {k.builtin, Origin::Builtin, {}};
    });
    return g;
}

EffectiveSettings resolve(const Config &config, const DeviceIdentity &device,
                          const Hwtable &table) {
    const std::vector<Layer> layers = layersFor(config, device, table);
    EffectiveSettings e;
    int prioLayer = -1;
    detail::forEachSetting([&](const auto &k) {
        if (k.name == "prio_args")
            return resolvePrioArgs(prioLayer, layers, e);
        int layer = resolveKeyword(k, layers, e);
        if (k.name == "prio")
            prioLayer = layer;
    });
    translateQueueIfNoPath(e);
    resolveAlias(config, device.wwid, e);
    return e;
}

Config mergedConfig(const Config &config, const Hwtable &table) {
    Config out = config;
    const EffectiveGlobals g = resolveGlobals(config);
    detail::forEachGlobal([&](const auto &k) {
        if (k.name == "dm_target" && !config.ownFile)
            return; // a multipath.conf cannot name it
        const auto &r = g.*k.effective;
        out.globals.*k.field = r.value;
        if (!r.where.empty())
            out.globals.where[std::string(k.name)] = r.where;
    });
    // The defaults layer as written (features included: how its words
    // combine with no_path_retry depends on the layers above), every
    // keyword it leaves unset at its built-in value.
    detail::forEachSetting([&](const auto &k) {
        if (!(k.sections & detail::InDefaults) || (k.unsetByDefault && !(config.defaults.*k.field)))
            return;
        if (!(config.defaults.*k.field))
            out.defaults.*k.field = k.builtin;
    });
    out.devices = table.mergedWith(config.devices);
    return out;
}

EffectiveGlobals resolveGlobals(const Config &config) {
    EffectiveGlobals g = builtinGlobals();
    if (config.ownFile)
        g.configDir.value = "/etc/mpathd/conf.d";
    detail::forEachGlobal([&](const auto &k) {
        const auto &v = config.globals.*k.field;
        if (!v)
            return;
        auto line = config.globals.where.find(k.name);
        g.*k.effective = {*v, Origin::Defaults,
                          line == config.globals.where.end() ? SourceLocation{} : line->second};
    });
    // multipath-tools fills in whichever of polling_interval and
    // max_polling_interval is missing from the other, and keeps polling
    // at or below the maximum.
    const auto &polling = config.globals.pollingInterval;
    const auto &max = config.globals.maxPollingInterval;
    if (polling && !max) {
        g.maxPollingInterval = g.pollingInterval;
        g.maxPollingInterval.value = 4 * *polling;
    } else if (!polling && max) {
        g.pollingInterval = g.maxPollingInterval;
        g.pollingInterval.value = *max >= 4 ? *max / 4 : 1;
    } else if (polling && max && *polling > *max) {
        g.pollingInterval = g.maxPollingInterval;
    }
    return g;
}

} // namespace mpath::config
