#include "mpath/bindings_file.h"

#include "names_state_file.h"

#include <cerrno>
#include <functional>

namespace mpath {

namespace {

// Reads \a file into \a out; a missing file is empty.
int readBindings(const NamesStateFile &file, BindingsParseResult &out) {
    std::string text;
    int r = file.read(text);
    if (r == -ENOENT) {
        out = {};
        return 0;
    }
    if (r < 0)
        return r;
    out = Bindings::parse(text, file.path());
    return 0;
}

// Under the lock: re-read, let \a change edit the bindings, write them
// back when it asks to.
// \a change returns <0 to fail, 0 for nothing to write, 1 to write.
int update(const std::string &path, const std::function<int(BindingsParseResult &)> &change) {
    NamesStateFile file(path);
    int r = file.lock();
    if (r < 0)
        return r;
    BindingsParseResult current;
    r = readBindings(file, current);
    if (r < 0)
        return r;
    r = change(current);
    if (r <= 0)
        return r;
    return file.replace(current.bindings.serialize());
}

} // namespace

int BindingsFile::load(Bindings &out, std::vector<Diagnostic> *diagnostics) const {
    NamesStateFile file(path_);
    BindingsParseResult result;
    int r = readBindings(file, result);
    if (r < 0)
        return r;
    out = std::move(result.bindings);
    if (diagnostics)
        diagnostics->insert(diagnostics->end(), result.diagnostics.begin(),
                            result.diagnostics.end());
    return 0;
}

int BindingsFile::bind(std::string_view wwid, std::string_view prefix, std::string &alias,
                       const std::vector<std::string> &reserved) {
    // Most calls find an existing binding: answer those without the lock.
    Bindings known;
    if (load(known) == 0) {
        if (auto a = known.aliasFor(wwid)) {
            alias = *a;
            return 0;
        }
    }
    return update(path_, [&](BindingsParseResult &cur) {
        if (auto a = cur.bindings.aliasFor(wwid)) {
            alias = *a;
            return 0;
        }
        if (!cur.diagnostics.empty())
            return -EBADMSG;
        std::string fresh = cur.bindings.nextFreeAlias(prefix, reserved);
        int r = cur.bindings.add(fresh, std::string(wwid));
        if (r < 0)
            return r;
        alias = fresh;
        return 1;
    });
}

int BindingsFile::add(std::string_view alias, std::string_view wwid) {
    return update(path_, [&](BindingsParseResult &cur) {
        if (!cur.diagnostics.empty())
            return -EBADMSG;
        int r = cur.bindings.add(std::string(alias), std::string(wwid));
        return r < 0 ? r : 1;
    });
}

int BindingsFile::remove(std::string_view wwid) {
    return update(path_, [&](BindingsParseResult &cur) {
        if (!cur.diagnostics.empty())
            return -EBADMSG;
        int r = cur.bindings.remove(wwid);
        return r < 0 ? r : 1;
    });
}

} // namespace mpath
