#pragma once

#include "mpath/config/config.h"
#include "mpath/discovery/udev_properties.h"
#include "mpath/model/path.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

/// Policy: which devices become maps, how their paths are grouped and
/// named, and what table each map gets. Pure functions of what discovery
/// found and the configuration: no I/O.
namespace mpath::policy {

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
    Rule rule{Rule::None};        ///< the rule that decided, for excepted paths too
    bool excepted{false};         ///< an exception of that rule kept the path
    std::string pattern;          ///< the regular expression (or vendor:product) that decided
    config::SourceLocation where; ///< where that entry was written
    /// The device rule that decided is a device entry's product_blacklist;
    /// where is that device entry's location, empty for the built-in table.
    bool productBlacklist{false};

    /// "blacklisted by devnode \"^sda$\"", "excepted by wwid \"...\"",
    /// "blacklisted by device \"^DGC:LUNZ\" (product_blacklist of the built-in
    /// device table)", "not blacklisted".
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
/// blacklisted (PropertyMissing). Device entries with a product_blacklist
/// add device rules to the blacklist, checked after its own device
/// entries; blacklist_exceptions can take their devices back.
class BlacklistFilter {
public:
    BlacklistFilter();
    /// \param productBlacklists device rules implied by product_blacklist
    ///        (see productBlacklistRules())
    BlacklistFilter(config::Blacklist blacklist, config::Blacklist exceptions,
                    std::vector<config::BlacklistDevice> productBlacklists = {});
    /// The configuration's sections on top of the built-in devnode rules
    /// (builtinDevnodeRules()), with the product_blacklist rules of the
    /// built-in device table and of its devices {} entries
    /// (productBlacklistRules()).
    static BlacklistFilter fromConfig(const config::Config &config);

    /// multipath-tools' built-in blacklist: devnode
    /// "!^(sd[a-z]|dasd[a-z]|nvme[0-9])" and
    /// "^(ram|zram|raw|loop|fd|md|dm-|sr|scd|st|dcssblk)[0-9]".
    static config::Blacklist builtinDevnodeRules();

    /// The whole configuration as mpathd applies it, as `mpathctl config
    /// show`, multipath -t and multipathd's "show config" show it:
    /// config::mergedConfig() (the built-in device table and the files'
    /// devices {} entries; with \a local, the files' entries only, as
    /// "show config local"), with the built-in devnode rules after the
    /// files' blacklist.
    static config::Config shownConfig(const config::Config &config, bool local = false);

    /// multipath-tools' reading of product_blacklist: every entry of the
    /// built-in device table, then of \a config's devices {}, that has one
    /// blacklists device { vendor <the entry's vendor> product <its
    /// product_blacklist> }, whatever the entry's own product. Each rule's
    /// where is the device entry's location (empty for the built-in
    /// table); a vendor and product_blacklist pair already listed is not
    /// repeated.
    static std::vector<config::BlacklistDevice> productBlacklistRules(const config::Config &config);

    /// Only the devnode rule: usable before anything else is known.
    BlacklistVerdict checkDevnode(std::string_view kernelName) const;

    /// Every rule. \a properties may be null (no udev data: the property
    /// rule does not apply); \a uidAttribute is the property the WWID is
    /// read from ("" when WWIDs do not come from udev).
    BlacklistVerdict check(const model::Path &path, const discovery::UdevPropertyMap *properties,
                           std::string_view uidAttribute) const;

    const config::Blacklist &blacklist() const { return blacklist_; }
    const config::Blacklist &exceptions() const { return exceptions_; }
    const std::vector<config::BlacklistDevice> &productBlacklists() const {
        return productBlacklists_;
    }

private:
    BlacklistVerdict checkProperty(const discovery::UdevPropertyMap &properties,
                                   std::string_view uidAttribute) const;
    BlacklistVerdict checkDevice(const model::Path &path) const;

    struct Compiled;

    config::Blacklist blacklist_;
    config::Blacklist exceptions_;
    std::vector<config::BlacklistDevice> productBlacklists_;
    /// All three as they are matched; copies share it.
    std::shared_ptr<const Compiled> compiled_;
};

std::string_view toString(BlacklistVerdict::Rule r);

} // namespace mpath::policy
