#pragma once

#include "mpath/config.h"

#include <string>
#include <string_view>
#include <vector>

namespace mpath {

/// The file of WWIDs known to be multipathed (multipath-tools'
/// /etc/multipath/wwids): one "/wwid/" per line under a comment header.
/// find_multipaths strict/on consult it.
///
/// Changes are made under an exclusive lock, after re-reading the file,
/// and land with an atomic replace, like BindingsFile.
class WwidsFile {
public:
    explicit WwidsFile(std::string path) : path_(std::move(path)) {}

    const std::string &path() const { return path_; }

    /// The WWIDs of a file's text, in file order without duplicates.
    /// Lines that are not "/wwid/" give a warning and are skipped.
    static std::vector<std::string> parse(std::string_view text, const std::string &fileName,
                                          std::vector<Diagnostic> *diagnostics = nullptr);
    /// multipath-tools' header, then one "/wwid/" line per WWID.
    static std::string serialize(const std::vector<std::string> &wwids);

    /// Read the WWIDs; a missing file reads as none.
    /// \return 0 on success or a negative error code
    [[nodiscard]] int load(std::vector<std::string> &out,
                           std::vector<Diagnostic> *diagnostics = nullptr) const;

    /// \return 1 when \a wwid is listed, 0 when not, or a negative error
    ///         code
    [[nodiscard]] int contains(std::string_view wwid) const;

    /// List \a wwid.
    /// \return 1 when added, 0 when it was listed already, -EINVAL for an
    ///         empty WWID or one with '/', a newline or blanks around it, or
    ///         another negative error code
    [[nodiscard]] int add(std::string_view wwid);

    /// Unlist \a wwid.
    /// \return 1 when removed, 0 when it was not listed, or a negative
    ///         error code
    [[nodiscard]] int remove(std::string_view wwid);

private:
    std::string path_;
};

} // namespace mpath
