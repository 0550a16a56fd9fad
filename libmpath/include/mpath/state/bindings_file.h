#pragma once

#include "mpath/error.h"
#include "mpath/state/bindings.h"

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mpath::state {

/// The bindings file on disk (multipath-tools' /etc/multipath/bindings).
///
/// Changes are made under an exclusive lock shared with every other
/// process using this class, after re-reading the file, and land with an
/// atomic replace: two daemons, or a daemon and a CLI, never hand out the
/// same alias twice and a crash never leaves half a file. Waiting for the
/// lock is bounded by the caller: the daemon waits not at all and tries
/// again later.
class BindingsFile {
public:
    explicit BindingsFile(std::string path) : path_(std::move(path)) {}

    const std::string &path() const { return path_; }

    /// The bindings; a missing file reads as none.
    /// \param diagnostics receives problems with lines of the file, may be
    ///        null
    Result<Bindings> load(std::vector<config::Diagnostic> *diagnostics = nullptr) const;

    /// Under the lock, lets \a change edit the bindings as they are now and
    /// writes them back when it returns true.
    /// \return ok, EBADMSG when the file has errors (it is not rewritten,
    ///         so an administrator's mistake is not silently dropped),
    ///         EWOULDBLOCK when another process held the lock for all of
    ///         \a wait, or the error of \a change or of the file
    Result<void> update(const std::function<Result<bool>(Bindings &)> &change,
                        std::chrono::milliseconds wait = {});

    /// The alias bound to \a wwid; when there is none, binds the next free
    /// alias with \a prefix that is not in \a reserved (aliases the
    /// configuration gives to other maps).
    Result<std::string> bind(std::string_view wwid, std::string_view prefix,
                             const std::vector<std::string> &reserved = {},
                             std::chrono::milliseconds wait = {});

    /// Binds a chosen \a alias to \a wwid. EEXIST when either is bound.
    Result<void> add(std::string_view alias, std::string_view wwid,
                     std::chrono::milliseconds wait = {});

    /// Drops the binding of \a wwid. ENOENT when it is not bound.
    Result<void> remove(std::string_view wwid, std::chrono::milliseconds wait = {});

private:
    std::string path_;
};

} // namespace mpath::state
