#include "mpath/state/bindings_file.h"

#include "state/locked_file.h"

namespace mpath::state {

Result<Bindings> BindingsFile::load(std::vector<config::Diagnostic> *diagnostics) const {
    auto text = LockedFile(path_).read();
    if (!text && text.code() == ENOENT)
        return Bindings{};
    if (!text)
        return text.error();
    BindingsParseResult parsed = Bindings::parse(*text, path_);
    if (diagnostics)
        diagnostics->insert(diagnostics->end(), parsed.diagnostics.begin(),
                            parsed.diagnostics.end());
    return std::move(parsed.bindings);
}

Result<void> BindingsFile::update(const std::function<Result<bool>(Bindings &)> &change,
                                  std::chrono::milliseconds wait) {
    return LockedFile(path_).update(
        [&](std::string &text) -> Result<bool> {
            BindingsParseResult current = Bindings::parse(text, path_);
            if (!current.diagnostics.empty())
                return Error{EBADMSG, path_ + " has errors, fix it first: " +
                                          current.diagnostics.front().toString()};
            auto write = change(current.bindings);
            if (write && *write)
                text = current.bindings.serialize();
            return write;
        },
        wait);
}

Result<std::string> BindingsFile::bind(std::string_view wwid, std::string_view prefix,
                                       const std::vector<std::string> &reserved,
                                       std::chrono::milliseconds wait) {
    // Most calls find an existing binding: answer those without the lock.
    if (auto known = load(); known) {
        if (auto a = known->aliasFor(wwid))
            return *a;
    }
    std::string alias;
    auto r = update(
        [&](Bindings &b) -> Result<bool> {
            if (auto a = b.aliasFor(wwid)) {
                alias = *a;
                return false;
            }
            alias = b.nextFreeAlias(prefix, reserved);
            if (auto added = b.add(alias, std::string(wwid)); !added)
                return added.error();
            return true;
        },
        wait);
    if (!r)
        return r.error();
    return alias;
}

Result<void> BindingsFile::add(std::string_view alias, std::string_view wwid,
                               std::chrono::milliseconds wait) {
    return update(
        [&](Bindings &b) -> Result<bool> {
            if (auto r = b.add(std::string(alias), std::string(wwid)); !r)
                return r.error();
            return true;
        },
        wait);
}

Result<void> BindingsFile::remove(std::string_view wwid, std::chrono::milliseconds wait) {
    return update(
        [&](Bindings &b) -> Result<bool> {
            if (auto r = b.remove(wwid); !r)
                return r.error();
            return true;
        },
        wait);
}

} // namespace mpath::state
