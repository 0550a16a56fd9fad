#pragma once

#include "mpath/config/config.h"
#include "mpath/error.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// Files the multipath stack keeps state in, shared with multipath-tools:
/// the bindings of user-friendly names, and the WWIDs known to be
/// multipathed.
namespace mpath::state {

/// One "alias wwid" line of a bindings file.
struct Binding {
    std::string alias;
    std::string wwid;

    bool operator==(const Binding &) const = default;
};

struct BindingsParseResult;

/// The user-friendly-name bindings, in multipath-tools' bindings file
/// format: one "alias wwid" per line, '#' comments; the WWID is the rest
/// of the line, as old SCSI serials hold blanks. Each alias and each
/// WWID appears at most once. Aliases are a prefix and a letter sequence:
/// mpatha ... mpathz, mpathaa ... mpathaz, mpathba ...
///
/// A value type (copies share their entries until one changes);
/// BindingsFile reads and writes it safely.
class Bindings {
public:
    /// Parse the text of a bindings file. A malformed line, a second line
    /// for an alias already bound, or a second alias for a WWID is an
    /// error diagnostic and the line is ignored; the rest is kept.
    static BindingsParseResult parse(std::string_view text, const std::string &fileName);

    /// The file text: multipath-tools' header comments, then one line per
    /// binding in the order they were added.
    std::string serialize() const;

    const std::vector<Binding> &entries() const;

    std::optional<std::string> aliasFor(std::string_view wwid) const;
    std::optional<std::string> wwidFor(std::string_view alias) const;

    /// The lowest-numbered alias with \a prefix that is neither bound nor
    /// in \a reserved (aliases the configuration gives to other maps).
    std::string nextFreeAlias(std::string_view prefix,
                              const std::vector<std::string> &reserved = {}) const;

    /// Bind \a alias to \a wwid.
    /// \return ok, EEXIST when the alias or the WWID is already bound,
    ///         EINVAL when either cannot be written to the file (an empty
    ///         one, blanks in the alias or around the WWID, '#', a newline)
    Result<void> add(std::string alias, std::string wwid);

    /// Drop the binding of \a wwid. \return ok, ENOENT when it is not bound
    Result<void> remove(std::string_view wwid);

    /// The alias with \a prefix for a 0-based index: 0 -> "a", 25 -> "z",
    /// 26 -> "aa", 701 -> "zz", 702 -> "aaa".
    static std::string aliasName(std::string_view prefix, unsigned index);
    /// The inverse of aliasName(), nullopt when \a alias is not \a prefix
    /// followed by lowercase letters.
    static std::optional<unsigned> aliasIndex(std::string_view prefix, std::string_view alias);

    bool operator==(const Bindings &other) const { return entries() == other.entries(); }

private:
    /// The entries to change: copied first when another Bindings shares
    /// them.
    std::vector<Binding> &own();

    // Shared by copies until one changes: a plan is handed the bindings of
    // every map, and copying them would cost each event the number of maps.
    std::shared_ptr<std::vector<Binding>> entries_;
};

struct BindingsParseResult {
    Bindings bindings;
    std::vector<config::Diagnostic> diagnostics;
};

} // namespace mpath::state
