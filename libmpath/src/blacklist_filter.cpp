#include "mpath/blacklist_filter.h"

namespace mpath {

namespace {

// A pattern with multipath-tools' leading '!' meaning "does not match".
bool patternMatches(const ConfigRegex &regex, std::string_view text) {
    const std::string &p = regex.pattern();
    if (!p.empty() && p.front() == '!') {
        ConfigRegex rest = ConfigRegex::compile(std::string_view(p).substr(1));
        return rest.valid() && !rest.matches(text);
    }
    return regex.valid() && regex.matches(text);
}

const BlacklistPattern *firstMatch(const std::vector<BlacklistPattern> &list,
                                   std::string_view text) {
    for (const BlacklistPattern &e : list)
        if (patternMatches(e.regex, text))
            return &e;
    return nullptr;
}

using Rule = BlacklistVerdict::Rule;

// Exceptions first, then the blacklist, for one rule.
BlacklistVerdict checkList(Rule rule, const std::vector<BlacklistPattern> &blacklist,
                           const std::vector<BlacklistPattern> &exceptions, std::string_view text) {
    BlacklistVerdict v;
    if (const BlacklistPattern *e = firstMatch(exceptions, text)) {
        v.rule = rule;
        v.excepted = true;
        v.pattern = e->regex.pattern();
        v.where = e->where;
    } else if (const BlacklistPattern *b = firstMatch(blacklist, text)) {
        v.rule = rule;
        v.blacklisted = true;
        v.pattern = b->regex.pattern();
        v.where = b->where;
    }
    return v;
}

const BlacklistDevice *firstDevice(const std::vector<BlacklistDevice> &list, const Path &p) {
    for (const BlacklistDevice &d : list) {
        bool vendor = d.vendor.empty() || patternMatches(d.vendor, p.vendor);
        bool product = d.product.empty() || patternMatches(d.product, p.product);
        if (vendor && product)
            return &d;
    }
    return nullptr;
}

BlacklistPattern builtin(std::string_view pattern) {
    BlacklistPattern p;
    p.regex = ConfigRegex::compile(pattern);
    return p;
}

} // namespace

BlacklistFilter::BlacklistFilter(Blacklist blacklist, Blacklist exceptions)
    : blacklist_(std::move(blacklist)), exceptions_(std::move(exceptions)) {}

Blacklist BlacklistFilter::builtinDevnodeRules() {
    Blacklist b;
    b.devnodes.push_back(builtin("!^(sd[a-z]|dasd[a-z]|nvme[0-9])"));
    b.devnodes.push_back(builtin("^(ram|zram|raw|loop|fd|md|dm-|sr|scd|st|dcssblk)[0-9]"));
    return b;
}

BlacklistFilter BlacklistFilter::fromConfig(const Config &config) {
    Blacklist b = builtinDevnodeRules();
    const Blacklist &c = config.blacklist;
    b.devnodes.insert(b.devnodes.end(), c.devnodes.begin(), c.devnodes.end());
    b.wwids = c.wwids;
    b.properties = c.properties;
    b.protocols = c.protocols;
    b.devices = c.devices;
    return BlacklistFilter(std::move(b), config.blacklistExceptions);
}

BlacklistVerdict BlacklistFilter::checkDevnode(std::string_view kernelName) const {
    return checkList(Rule::Devnode, blacklist_.devnodes, exceptions_.devnodes, kernelName);
}

BlacklistVerdict BlacklistFilter::checkProperty(const UdevPropertyMap &properties,
                                                std::string_view uidAttribute) const {
    BlacklistVerdict v;
    bool uidSeen = false;
    for (const auto &[name, value] : properties) {
        (void)value;
        uidSeen = uidSeen || (!uidAttribute.empty() && name == uidAttribute);
        BlacklistVerdict one =
            checkList(Rule::Property, blacklist_.properties, exceptions_.properties, name);
        if (one.rule != Rule::None)
            return one;
    }
    // Without the uid attribute udev has most likely not finished with the
    // device; missing properties must not blacklist it then.
    if (!exceptions_.properties.empty() && !uidAttribute.empty() && uidSeen) {
        v.rule = Rule::PropertyMissing;
        v.blacklisted = true;
        v.pattern = exceptions_.properties.front().regex.pattern();
        v.where = exceptions_.properties.front().where;
    }
    return v;
}

BlacklistVerdict BlacklistFilter::checkDevice(const Path &path) const {
    BlacklistVerdict v;
    auto fill = [&](const BlacklistDevice &d) {
        v.rule = Rule::Device;
        v.pattern = d.vendor.pattern() + ":" + d.product.pattern();
        v.where = d.where;
    };
    if (const BlacklistDevice *e = firstDevice(exceptions_.devices, path)) {
        fill(*e);
        v.excepted = true;
    } else if (const BlacklistDevice *b = firstDevice(blacklist_.devices, path)) {
        fill(*b);
        v.blacklisted = true;
    }
    return v;
}

BlacklistVerdict BlacklistFilter::check(const Path &path, const UdevPropertyMap *properties,
                                        std::string_view uidAttribute) const {
    BlacklistVerdict decided;
    auto consider = [&](BlacklistVerdict v) {
        if (v.blacklisted) {
            decided = std::move(v);
            return true;
        }
        if (v.excepted && decided.rule == Rule::None)
            decided = std::move(v);
        return false;
    };
    if (properties && consider(checkProperty(*properties, uidAttribute)))
        return decided;
    if (consider(checkDevnode(path.kernelName)))
        return decided;
    if (consider(checkDevice(path)))
        return decided;
    if (consider(
            checkList(Rule::Protocol, blacklist_.protocols, exceptions_.protocols, path.protocol)))
        return decided;
    if (!path.wwid.empty() &&
        consider(checkList(Rule::Wwid, blacklist_.wwids, exceptions_.wwids, path.wwid)))
        return decided;
    return decided;
}

const char *toString(BlacklistVerdict::Rule r) {
    switch (r) {
    case Rule::None:
        return "none";
    case Rule::Devnode:
        return "devnode";
    case Rule::Device:
        return "device";
    case Rule::Protocol:
        return "protocol";
    case Rule::Property:
        return "property";
    case Rule::PropertyMissing:
        return "missing property";
    case Rule::Wwid:
        return "wwid";
    }
    return "unknown";
}

std::string BlacklistVerdict::toString() const {
    if (!blacklisted && !excepted)
        return "not blacklisted";
    std::string out = blacklisted ? "blacklisted by " : "excepted by ";
    out += mpath::toString(rule);
    out += " \"" + pattern + "\"";
    if (!where.file.empty())
        out += " (" + where.file + ":" + std::to_string(where.line) + ")";
    return out;
}

} // namespace mpath
