#pragma once

#include <map>
#include <mpath/config/config.h>
#include <mpath/error.h>
#include <set>
#include <string>

namespace mpathd {

/// Settings of single maps changed over D-Bus. A runtime one lasts until
/// the configuration is read again; a persistent one is written to a
/// drop-in file in the configuration's conf.d
/// ("zz-mpathd-<wwid>.conf", a multipaths {} entry), so the next read
/// finds it. Both are multipaths {} entries placed after every file's
/// own, so they win over them keyword by keyword.
class Overrides {
public:
    /// The keywords that can be changed: path_selector, no_path_retry,
    /// pg_init_retries, pg_init_delay_msecs.
    static bool known(const std::string &keyword);

    /// \a keyword set to \a value for map \a wwid, checked by the
    /// configuration parser.
    /// \return the entry, or EINVAL with the parser's reason ("invalid
    ///         value 'x' for path_selector; accepted: ...")
    static mpath::Result<mpath::config::MultipathEntry>
    parse(const std::string &wwid, const std::string &keyword, const std::string &value);

    /// Checks \a value of \a keyword as parse() does, for no map in
    /// particular: what a D-Bus call is checked with before anything else.
    /// \return nothing, or EINVAL with the parser's reason
    static mpath::Result<void> check(const std::string &keyword, const std::string &value);

    /// Holds \a entry (from parse()) until clear().
    void set(const mpath::config::MultipathEntry &entry, const std::string &keyword);
    /// Forgets \a keyword of \a wwid (it was made persistent, or ended).
    /// \return whether it was held
    bool drop(const std::string &wwid, const std::string &keyword);
    /// The configuration was read again: runtime settings end.
    void clear() { runtime_.clear(); }

    /// \a config with the runtime entries appended.
    mpath::config::Config apply(mpath::config::Config config) const;

    /// Keyword -> "runtime" or "persistent" for map \a wwid under
    /// \a config (the configuration as read, with the drop-ins in
    /// \a confd).
    std::map<std::string, std::string> describe(const mpath::config::Config &config,
                                                const std::string &confd,
                                                const std::string &wwid) const;

    /// Writes \a keyword \a value into map \a wwid's drop-in in \a confd,
    /// keeping what the file set before.
    static mpath::Result<void> persist(const std::string &confd, const std::string &wwid,
                                       const std::string &keyword, const std::string &value);

    /// The drop-in file of map \a wwid in \a confd.
    static std::string dropIn(const std::string &confd, const std::string &wwid);

private:
    struct Entry {
        mpath::config::MultipathEntry entry; ///< the settings merged
        std::set<std::string> keywords;
    };
    std::map<std::string, Entry> runtime_; ///< by WWID
};

} // namespace mpathd
