#pragma once

#include "mpath/config/config.h"
#include "mpath/error.h"

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mpath::state {

/// The file of WWIDs known to be multipathed (multipath-tools'
/// /etc/multipath/wwids): one "/wwid/" per line under a comment header.
/// find_multipaths strict/on consult it, and so do LVM and others that
/// keep off path devices.
///
/// Changes are made under an exclusive lock, after re-reading the file,
/// and land with an atomic replace, like BindingsFile.
class WwidsFile {
public:
    explicit WwidsFile(std::string path) : path_(std::move(path)) {}

    const std::string &path() const { return path_; }

    /// The WWIDs of a file's text, in file order without duplicates. Lines
    /// that are not "/wwid/" give a warning and are skipped.
    static std::vector<std::string> parse(std::string_view text, const std::string &fileName,
                                          std::vector<config::Diagnostic> *diagnostics = nullptr);
    /// multipath-tools' header, then one "/wwid/" line per WWID.
    static std::string serialize(const std::vector<std::string> &wwids);

    /// The WWIDs; a missing file reads as none.
    Result<std::vector<std::string>>
    load(std::vector<config::Diagnostic> *diagnostics = nullptr) const;

    /// Whether \a wwid is listed.
    Result<bool> contains(std::string_view wwid) const;

    /// Lists \a wwid. \return true when added, false when it was listed
    ///         already; EINVAL for an empty WWID or one with '/', a newline or
    ///         blanks around it
    Result<bool> add(std::string_view wwid, std::chrono::milliseconds wait = {});

    /// Lists each of \a wwids that is not listed yet, with one change of
    /// the file. \return the WWIDs refused as add() would refuse them
    ///         (they are left out; the others are listed), or the file's
    ///         error (nothing is listed)
    Result<std::vector<std::string>> addAll(const std::vector<std::string> &wwids,
                                            std::chrono::milliseconds wait = {});

    /// Unlists \a wwid. \return true when removed, false when it was not
    ///         listed
    Result<bool> remove(std::string_view wwid, std::chrono::milliseconds wait = {});

private:
    /// Under the lock: \a change edits the list and says whether it did.
    Result<bool> edit(const std::function<bool(std::vector<std::string> &wwids)> &change,
                      std::chrono::milliseconds wait);

    std::string path_;
};

} // namespace mpath::state
