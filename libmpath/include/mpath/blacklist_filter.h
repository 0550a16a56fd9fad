#pragma once

#include "mpath/config.h"
#include "mpath/path.h"
#include "mpath/udev_properties.h"

#include <memory>
#include <string>
#include <string_view>

namespace mpath {

/// The outcome of checking a path against blacklist {} and
/// blacklist_exceptions {}.
struct BlacklistVerdict {
    enum class Rule {
        None,            ///< nothing matched
        Devnode,         ///< kernel name
        Device,          ///< vendor + product
        Protocol,        ///< Path::protocol
        Property,        ///< a udev property name
        PropertyMissing, ///< no udev property matched blacklist_exceptions property
        Wwid,            ///< WWID
    };

    bool blacklisted{false};
    Rule rule{Rule::None}; ///< the rule that decided, for excepted paths too
    bool excepted{false};  ///< an exception of that rule kept the path
    std::string pattern;   ///< the regular expression (or vendor:product) that decided
    SourceLocation where;  ///< where that entry was written

    /// "blacklisted by devnode \"^sda$\"", "excepted by wwid \"...\"", "not blacklisted".
    std::string toString() const;

    bool operator==(const BlacklistVerdict &) const = default;
};

/// Applies blacklist {} / blacklist_exceptions {} the way multipath-tools
/// does: the rules are checked in the order property, devnode, device,
/// protocol, wwid; in each, an exception match keeps the path for that
/// rule only, a blacklist match drops it. Patterns starting with '!'
/// match what the rest does not match; every pattern is compiled once,
/// when the filter is built. The property rule is inverted:
/// when blacklist_exceptions has property entries, a path whose uid
/// attribute is present but which has no property matching them is
/// blacklisted (PropertyMissing).
class BlacklistFilter {
public:
    BlacklistFilter();
    BlacklistFilter(Blacklist blacklist, Blacklist exceptions);
    /// The configuration's sections on top of the built-in devnode rules
    /// (builtinDevnodeRules()).
    static BlacklistFilter fromConfig(const Config &config);

    /// multipath-tools' built-in blacklist: devnode
    /// "!^(sd[a-z]|dasd[a-z]|nvme[0-9])" and
    /// "^(ram|zram|raw|loop|fd|md|dm-|sr|scd|st|dcssblk)[0-9]".
    static Blacklist builtinDevnodeRules();

    /// Only the devnode rule: usable before anything else is known.
    BlacklistVerdict checkDevnode(std::string_view kernelName) const;

    /// Every rule. \a properties may be null (no udev data: the property
    /// rule does not apply); \a uidAttribute is the property the WWID is
    /// read from ("" when WWIDs do not come from udev).
    BlacklistVerdict check(const Path &path, const UdevPropertyMap *properties,
                           std::string_view uidAttribute) const;

    const Blacklist &blacklist() const { return blacklist_; }
    const Blacklist &exceptions() const { return exceptions_; }

private:
    BlacklistVerdict checkProperty(const UdevPropertyMap &properties,
                                   std::string_view uidAttribute) const;
    BlacklistVerdict checkDevice(const Path &path) const;

    struct Compiled;

    Blacklist blacklist_;
    Blacklist exceptions_;
    /// Both sections as they are matched; copies share it.
    std::shared_ptr<const Compiled> compiled_;
};

const char *toString(BlacklistVerdict::Rule r);

} // namespace mpath
