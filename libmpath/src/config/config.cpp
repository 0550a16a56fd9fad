#include "mpath/config/config.h"

#include "config/keywords.h"
#include "mpath/config/hwtable.h"
#include "mpath/model/path.h"

#include <algorithm>

namespace mpath::config {

// ---------------------------------------------------------------------------
// Names of values
// ---------------------------------------------------------------------------

const char *toString(FindMultipaths v) {
    switch (v) {
    case FindMultipaths::Strict:
        return "strict";
    case FindMultipaths::Off:
        return "off";
    case FindMultipaths::On:
        return "on";
    case FindMultipaths::Greedy:
        return "greedy";
    case FindMultipaths::Smart:
        return "smart";
    }
    return "unknown";
}

const char *toString(GroupingPolicy v) {
    switch (v) {
    case GroupingPolicy::Failover:
        return "failover";
    case GroupingPolicy::Multibus:
        return "multibus";
    case GroupingPolicy::GroupBySerial:
        return "group_by_serial";
    case GroupingPolicy::GroupByPrio:
        return "group_by_prio";
    case GroupingPolicy::GroupByNodeName:
        return "group_by_node_name";
    case GroupingPolicy::GroupByTpg:
        return "group_by_tpg";
    }
    return "unknown";
}

const char *toString(RrWeight v) {
    return v == RrWeight::Priorities ? "priorities" : "uniform";
}

const char *toString(QueueMode v) {
    switch (v) {
    case QueueMode::Bio:
        return "bio";
    case QueueMode::Rq:
        return "rq";
    case QueueMode::Mq:
        return "mq";
    }
    return "unknown";
}

const char *toString(MarginalPathgroups v) {
    switch (v) {
    case MarginalPathgroups::Off:
        return "off";
    case MarginalPathgroups::On:
        return "on";
    case MarginalPathgroups::Fpin:
        return "fpin";
    }
    return "unknown";
}

const char *toString(DmTarget v) {
    return v == DmTarget::Multipath ? "multipath" : "lmpath";
}

const char *toString(Origin v) {
    switch (v) {
    case Origin::Builtin:
        return "built-in";
    case Origin::Defaults:
        return "defaults";
    case Origin::Hwtable:
        return "hwtable";
    case Origin::Devices:
        return "devices";
    case Origin::Multipaths:
        return "multipaths";
    case Origin::Overrides:
        return "overrides";
    }
    return "unknown";
}

const char *toString(Diagnostic::Severity v) {
    return v == Diagnostic::Severity::Error ? "error" : "warning";
}

std::string toString(const Failback &v) {
    switch (v.kind) {
    case Failback::Kind::Immediate:
        return "immediate";
    case Failback::Kind::Manual:
        return "manual";
    case Failback::Kind::Followover:
        return "followover";
    case Failback::Kind::Seconds:
        return std::to_string(v.seconds);
    }
    return "unknown";
}

std::string toString(const NoPathRetry &v) {
    switch (v.kind) {
    case NoPathRetry::Kind::Fail:
        return "fail";
    case NoPathRetry::Kind::Queue:
        return "queue";
    case NoPathRetry::Kind::Retries:
        return std::to_string(v.retries);
    }
    return "unknown";
}

std::string toString(const OffOrNumber &v) {
    return v.off ? "off" : std::to_string(v.value);
}

std::string toString(const DevLossTmo &v) {
    return v.infinity ? "infinity" : std::to_string(v.seconds);
}

static std::string countedWords(const std::string &head, const std::vector<std::string> &words) {
    std::string s = head;
    if (!s.empty())
        s += ' ';
    s += std::to_string(words.size());
    for (const auto &w : words)
        s += ' ' + w;
    return s;
}

std::string toString(const PathSelector &v) {
    return countedWords(v.name, v.args);
}

std::string toString(const HardwareHandler &v) {
    if (v.name.empty())
        return "0";
    std::vector<std::string> words{v.name};
    words.insert(words.end(), v.args.begin(), v.args.end());
    return countedWords("", words);
}

std::string featuresToString(const std::vector<std::string> &words) {
    return countedWords("", words);
}

std::string Diagnostic::toString() const {
    if (line == 0)
        return file + ": " + message;
    return file + ":" + std::to_string(line) + ": " + message;
}

bool ConfigResult::hasErrors() const {
    return std::any_of(diagnostics.begin(), diagnostics.end(), [](const Diagnostic &d) {
        return d.severity == Diagnostic::Severity::Error;
    });
}

bool DeviceEntry::matches(std::string_view vendorText, std::string_view productText,
                          std::string_view revisionText) const {
    return vendor.matches(vendorText) && product.matches(productText) &&
           revision.matches(revisionText);
}

// ---------------------------------------------------------------------------
// Values as written in a file
// ---------------------------------------------------------------------------

namespace detail {

std::string formatValue(const std::string &v) {
    return v;
}
std::string formatValue(bool v) {
    return v ? "yes" : "no";
}
std::string formatValue(unsigned v) {
    return std::to_string(v);
}
std::string formatValue(int v) {
    return std::to_string(v);
}
std::string formatValue(GroupingPolicy v) {
    return toString(v);
}
std::string formatValue(FindMultipaths v) {
    return toString(v);
}
std::string formatValue(RrWeight v) {
    return toString(v);
}
std::string formatValue(QueueMode v) {
    return toString(v);
}
std::string formatValue(MarginalPathgroups v) {
    return toString(v);
}
std::string formatValue(DmTarget v) {
    return toString(v);
}
std::string formatValue(const Failback &v) {
    return toString(v);
}
std::string formatValue(const NoPathRetry &v) {
    return toString(v);
}
std::string formatValue(const OffOrNumber &v) {
    return toString(v);
}
std::string formatValue(const DevLossTmo &v) {
    return toString(v);
}
std::string formatValue(const PathSelector &v) {
    return toString(v);
}
std::string formatValue(const HardwareHandler &v) {
    return toString(v);
}
std::string formatValue(const std::vector<std::string> &features) {
    return featuresToString(features);
}

// The defaults multipath-tools ships, so that a configuration written for
// it behaves the same here.
EffectiveSettings builtinSettings() {
    EffectiveSettings e;
    e.alias.value = "";
    e.pathGroupingPolicy.value = GroupingPolicy::Failover;
    e.pathSelector.value = PathSelector{"service-time", {}};
    e.pathChecker.value = "tur";
    e.prio.value = "const";
    e.prioArgs.value = "";
    e.failback.value = Failback::manual();
    e.noPathRetry.value = NoPathRetry::fail();
    e.features.value = {};
    e.hardwareHandler.value = HardwareHandler{};
    e.rrWeight.value = RrWeight::Uniform;
    e.rrMinIo.value = 1000;
    e.rrMinIoRq.value = 1;
    e.userFriendlyNames.value = false;
    e.aliasPrefix.value = "mpath";
    e.uidAttribute.value = "ID_SERIAL";
    e.getuid.value = "";
    e.fastIoFailTmo.value = OffOrNumber::number(5);
    e.devLossTmo.value = DevLossTmo::after(600);
    e.retainAttachedHwHandler.value = true;
    e.detectPrio.value = true;
    e.detectChecker.value = true;
    e.pgInitRetries.value = 0;
    e.pgInitDelayMsecs.value = OffOrNumber::disabled();
    e.queueMode.value = QueueMode::Rq;
    e.flushOnLastDel.value = false;
    e.skipKpartx.value = false;
    e.deferredRemove.value = false;
    e.allTgPt.value = false;
    e.maxSectorsKb.value = OffOrNumber::disabled();
    e.ghostDelay.value = OffOrNumber::disabled();
    e.marginalPathErrSampleTime.value = OffOrNumber::disabled();
    e.marginalPathErrRateThreshold.value = OffOrNumber::disabled();
    e.marginalPathErrRecheckGapTime.value = OffOrNumber::disabled();
    e.marginalPathDoubleFailedTime.value = OffOrNumber::disabled();
    return e;
}

EffectiveGlobals builtinGlobals() {
    EffectiveGlobals g;
    g.verbosity.value = 2;
    g.findMultipaths.value = FindMultipaths::Strict;
    g.findMultipathsTimeout.value = -10;
    g.pollingInterval.value = 5;
    g.maxPollingInterval.value = 20;
    g.checkerTimeout.value = 0;
    g.bindingsFile.value = "/etc/multipath/bindings";
    g.wwidsFile.value = "/etc/multipath/wwids";
    g.configDir.value = "/etc/multipath/conf.d";
    g.queueWithoutDaemon.value = false;
    g.marginalPathgroups.value = MarginalPathgroups::Off;
    g.dmTarget.value = DmTarget::Lmpath;
    return g;
}

} // namespace detail

// ---------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------

namespace {

// Lays every field \a layer sets over \a e, recording where it came from.
void apply(EffectiveSettings &e, const Settings &layer, Origin origin,
           const SourceLocation &where) {
    detail::forEachSetting([&](const char *, unsigned, auto field, auto effective) {
        const auto &v = layer.*field;
        if (!v)
            return;
        auto &r = e.*effective;
        r.value = *v;
        r.origin = origin;
        r.where = where;
    });
}

// True when an entry before \a mp gives its alias to another WWID: the
// first one keeps the name (ConfigParser::checkConsistency reports it).
bool aliasTakenBefore(const std::vector<MultipathEntry> &all, const MultipathEntry &mp) {
    for (const auto &other : all) {
        if (&other == &mp)
            return false;
        if (other.alias == mp.alias && other.wwid != mp.wwid)
            return true;
    }
    return false;
}

} // namespace

EffectiveSettings Config::effective(std::string_view vendor, std::string_view product,
                                    std::string_view revision, std::string_view wwid) const {
    EffectiveSettings e = detail::builtinSettings();
    apply(e, defaults, Origin::Defaults, {});
    for (const DeviceEntry *hw : Hwtable::builtin().matching(vendor, product, revision))
        apply(e, hw->settings, Origin::Hwtable, {});
    for (const auto &dev : devices)
        if (dev.matches(vendor, product, revision))
            apply(e, dev.settings, Origin::Devices, dev.where);
    for (const auto &mp : multipaths) {
        if (wwid.empty() || mp.wwid != wwid)
            continue;
        apply(e, mp.settings, Origin::Multipaths, mp.where);
        if (!mp.alias.empty() && !aliasTakenBefore(multipaths, mp))
            e.alias = {mp.alias, Origin::Multipaths, mp.where};
    }
    apply(e, overrides, Origin::Overrides, {});
    return e;
}

EffectiveSettings Config::effective(const model::Path &path) const {
    return effective(path.vendor, path.product, path.revision, path.wwid);
}

EffectiveGlobals Config::effectiveGlobals() const {
    EffectiveGlobals g = detail::builtinGlobals();
    if (ownFile)
        g.configDir.value = "/etc/mpathd/conf.d";
    detail::forEachGlobal([&](const char *, auto field, auto effective) {
        const auto &v = globals.*field;
        if (!v)
            return;
        auto &r = g.*effective;
        r.value = *v;
        r.origin = Origin::Defaults;
    });
    // multipath-tools: max_polling_interval defaults to 4 * polling_interval.
    if (!globals.maxPollingInterval && globals.pollingInterval)
        g.maxPollingInterval.value = 4 * *globals.pollingInterval;
    return g;
}

const MultipathEntry *Config::multipathFor(std::string_view wwid) const {
    const MultipathEntry *found = nullptr;
    for (const auto &mp : multipaths)
        if (mp.wwid == wwid)
            found = &mp;
    return found;
}

std::vector<EffectiveEntry> EffectiveSettings::entries() const {
    std::vector<EffectiveEntry> out;
    out.push_back({"alias", alias.value, alias.origin, alias.where});
    detail::forEachSetting([&](const char *keyword, unsigned, auto, auto effective) {
        const auto &r = this->*effective;
        out.push_back({keyword, detail::formatValue(r.value), r.origin, r.where});
    });
    return out;
}

std::vector<EffectiveEntry> EffectiveGlobals::entries() const {
    std::vector<EffectiveEntry> out;
    detail::forEachGlobal([&](const char *keyword, auto, auto effective) {
        const auto &r = this->*effective;
        out.push_back({keyword, detail::formatValue(r.value), r.origin, r.where});
    });
    return out;
}

} // namespace mpath::config
