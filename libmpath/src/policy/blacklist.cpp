#include "mpath/policy/blacklist.h"

#include "mpath/config/hwtable.h"
#include "mpath/config/resolve.h"

#include <algorithm>
#include <array>

namespace mpath::policy {

using config::Blacklist;
using config::BlacklistDevice;
using config::BlacklistPattern;
using config::Config;
using config::DeviceEntry;
using config::Regex;
using discovery::UdevPropertyMap;
using model::Path;

namespace {

// A configured pattern as it is matched: multipath-tools' leading '!'
// ("does not match") is taken off and the rest compiled once, when the
// filter is built, rather than on every check.
class Matcher {
public:
    explicit Matcher(const Regex &configured) {
        const std::string &p = configured.pattern();
        if (!p.empty() && p.front() == '!') {
            inverted_ = true;
            auto rest = Regex::compile(std::string_view(p).substr(1));
            if (rest)
                regex_ = std::move(*rest);
            else
                valid_ = false;
        } else {
            regex_ = configured;
        }
    }

    // A pattern that does not compile matches nothing, inverted or not.
    bool matches(std::string_view text) const {
        return valid_ && regex_.matches(text) != inverted_;
    }

private:
    Regex regex_;
    bool inverted_{false};
    bool valid_{true};
};

// A devnode, wwid, property or protocol entry and its matcher.
struct PatternRule {
    BlacklistPattern entry;
    Matcher matcher;

    explicit PatternRule(const BlacklistPattern &e) : entry(e), matcher(e.regex) {}
    bool matches(std::string_view text) const { return matcher.matches(text); }
};

// A device entry and its matchers; an empty vendor or product matches any.
struct DeviceRule {
    BlacklistDevice entry;
    Matcher vendor;
    Matcher product;

    explicit DeviceRule(const BlacklistDevice &d)
        : entry(d), vendor(d.vendor), product(d.product) {}
    bool matches(const Path &p) const {
        return vendor.matches(p.vendor) && product.matches(p.product);
    }
};

// One section's entries, in the section's order.
struct Rules {
    std::vector<PatternRule> devnodes;
    std::vector<PatternRule> wwids;
    std::vector<PatternRule> properties;
    std::vector<PatternRule> protocols;
    std::vector<DeviceRule> devices;

    explicit Rules(const Blacklist &b)
        : devnodes(b.devnodes.begin(), b.devnodes.end()), wwids(b.wwids.begin(), b.wwids.end()),
          properties(b.properties.begin(), b.properties.end()),
          protocols(b.protocols.begin(), b.protocols.end()),
          devices(b.devices.begin(), b.devices.end()) {}
};

template <typename R, typename Subject>
const R *firstMatch(const std::vector<R> &rules, const Subject &subject) {
    for (const R &r : rules)
        if (r.matches(subject))
            return &r;
    return nullptr;
}

using Rule = BlacklistVerdict::Rule;

// Exceptions first, then the blacklist, for one rule.
BlacklistVerdict checkList(Rule rule, const std::vector<PatternRule> &blacklist,
                           const std::vector<PatternRule> &exceptions, std::string_view text) {
    BlacklistVerdict v;
    if (const PatternRule *e = firstMatch(exceptions, text)) {
        v.rule = rule;
        v.excepted = true;
        v.pattern = e->entry.regex.pattern();
        v.where = e->entry.where;
    } else if (const PatternRule *b = firstMatch(blacklist, text)) {
        v.rule = rule;
        v.blacklisted = true;
        v.pattern = b->entry.regex.pattern();
        v.where = b->entry.where;
    }
    return v;
}

BlacklistPattern builtin(std::string_view pattern) {
    BlacklistPattern p;
    p.regex = Regex::builtin(pattern);
    return p;
}

} // namespace

struct BlacklistFilter::Compiled {
    Rules blacklist;
    Rules exceptions;
    std::vector<DeviceRule> productBlacklists;
};

BlacklistFilter::BlacklistFilter() : BlacklistFilter(Blacklist{}, Blacklist{}) {}

BlacklistFilter::BlacklistFilter(Blacklist blacklist, Blacklist exceptions,
                                 std::vector<BlacklistDevice> productBlacklists)
    : blacklist_(std::move(blacklist)), exceptions_(std::move(exceptions)),
      productBlacklists_(std::move(productBlacklists)),
      compiled_(std::make_shared<const Compiled>(Compiled{
          Rules(blacklist_), Rules(exceptions_),
          std::vector<DeviceRule>(productBlacklists_.begin(), productBlacklists_.end())})) {}

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
    return BlacklistFilter(std::move(b), config.blacklistExceptions, productBlacklistRules(config));
}

std::vector<BlacklistDevice> BlacklistFilter::productBlacklistRules(const Config &config) {
    std::vector<BlacklistDevice> out;
    auto add = [&out](const DeviceEntry &e) {
        if (e.productBlacklist.empty())
            return;
        const bool listed = std::any_of(out.begin(), out.end(), [&e](const BlacklistDevice &d) {
            return d.vendor == e.vendor && d.product == e.productBlacklist;
        });
        if (!listed)
            out.push_back({e.vendor, e.productBlacklist, e.where});
    };
    for (const DeviceEntry &e : config::Hwtable::builtin().entries())
        add(e);
    for (const DeviceEntry &e : config.devices)
        add(e);
    return out;
}

BlacklistVerdict BlacklistFilter::checkDevnode(std::string_view kernelName) const {
    return checkList(Rule::Devnode, compiled_->blacklist.devnodes, compiled_->exceptions.devnodes,
                     kernelName);
}

BlacklistVerdict BlacklistFilter::checkProperty(const UdevPropertyMap &properties,
                                                std::string_view uidAttribute) const {
    BlacklistVerdict v;
    bool uidSeen = false;
    for (const auto &[name, value] : properties) {
        (void)value;
        uidSeen = uidSeen || (!uidAttribute.empty() && name == uidAttribute);
        BlacklistVerdict one = checkList(Rule::Property, compiled_->blacklist.properties,
                                         compiled_->exceptions.properties, name);
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
    if (const DeviceRule *e = firstMatch(compiled_->exceptions.devices, path)) {
        fill(e->entry);
        v.excepted = true;
    } else if (const DeviceRule *b = firstMatch(compiled_->blacklist.devices, path)) {
        fill(b->entry);
        v.blacklisted = true;
    } else if (const DeviceRule *implied = firstMatch(compiled_->productBlacklists, path)) {
        fill(implied->entry);
        v.blacklisted = true;
        v.productBlacklist = true;
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
    const Compiled &c = *compiled_;
    if (consider(checkList(Rule::Protocol, c.blacklist.protocols, c.exceptions.protocols,
                           path.protocol)))
        return decided;
    if (!path.wwid.empty() &&
        consider(checkList(Rule::Wwid, c.blacklist.wwids, c.exceptions.wwids, path.wwid)))
        return decided;
    return decided;
}

std::string_view toString(BlacklistVerdict::Rule r) {
    static constexpr std::array<EnumName<Rule>, 7> names{{
        {Rule::None, "none"},
        {Rule::Devnode, "devnode"},
        {Rule::Device, "device"},
        {Rule::Protocol, "protocol"},
        {Rule::Property, "property"},
        {Rule::PropertyMissing, "missing property"},
        {Rule::Wwid, "wwid"},
    }};
    return nameOf(names, r);
}

std::string BlacklistVerdict::toString() const {
    if (!blacklisted && !excepted)
        return "not blacklisted";
    std::string out = blacklisted ? "blacklisted by " : "excepted by ";
    out += policy::toString(rule);
    out += " \"" + pattern + "\"";
    const std::string location =
        where.file.empty() ? "" : where.file + ":" + std::to_string(where.line);
    if (productBlacklist)
        out += location.empty() ? " (product_blacklist of the built-in device table)"
                                : " (product_blacklist of the device entry at " + location + ")";
    else if (!location.empty())
        out += " (" + location + ")";
    return out;
}

config::Config BlacklistFilter::shownConfig(const config::Config &config, bool local) {
    config::Config merged =
        local ? config::mergedConfig(config, config::Hwtable({})) : config::mergedConfig(config);
    const Blacklist builtin = builtinDevnodeRules();
    merged.blacklist.devnodes.insert(merged.blacklist.devnodes.end(), builtin.devnodes.begin(),
                                     builtin.devnodes.end());
    return merged;
}

} // namespace mpath::policy
