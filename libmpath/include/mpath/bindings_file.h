#pragma once

#include "mpath/bindings.h"

#include <string>
#include <string_view>
#include <vector>

namespace mpath {

/// The bindings file on disk (multipath-tools' /etc/multipath/bindings).
///
/// Changes are made under an exclusive lock shared with every other
/// process using this class, after re-reading the file, and land with an
/// atomic replace: two daemons, or a daemon and a CLI, never hand out the
/// same alias twice and a crash never leaves half a file.
class BindingsFile {
public:
    explicit BindingsFile(std::string path) : path_(std::move(path)) {}

    const std::string &path() const { return path_; }

    /// Read the bindings; a missing file reads as none.
    /// \param diagnostics receives problems with lines of the file, may be
    ///        null
    /// \return 0 on success or a negative error code
    [[nodiscard]] int load(Bindings &out, std::vector<Diagnostic> *diagnostics = nullptr) const;

    /// The alias bound to \a wwid; when there is none, bind the next free
    /// alias with \a prefix and write the file.
    /// \param reserved aliases not to hand out (configured for other maps)
    /// \return 0 on success, -EBADMSG when the WWID is not bound and the
    ///         file has errors (it is not rewritten, so an administrator's
    ///         mistake is not silently dropped), or another negative error
    ///         code
    [[nodiscard]] int bind(std::string_view wwid, std::string_view prefix, std::string &alias,
                           const std::vector<std::string> &reserved = {});

    /// Bind a chosen \a alias to \a wwid.
    /// \return 0 on success, -EEXIST when either is bound already,
    ///         -EBADMSG when the file has errors, or another negative error
    ///         code
    [[nodiscard]] int add(std::string_view alias, std::string_view wwid);

    /// Drop the binding of \a wwid.
    /// \return 0 on success, -ENOENT when it is not bound, -EBADMSG when
    ///         the file has errors, or another negative error code
    [[nodiscard]] int remove(std::string_view wwid);

private:
    std::string path_;
};

} // namespace mpath
