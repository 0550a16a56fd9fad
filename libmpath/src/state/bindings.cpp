#include "mpath/state/bindings.h"

#include "state/wwid_text.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <set>

namespace mpath::state {

namespace {

bool hasBlank(std::string_view s) {
    return std::any_of(s.begin(), s.end(), isBlank) || s.find('\n') != std::string_view::npos;
}

} // namespace

BindingsParseResult Bindings::parse(std::string_view text, const std::string &fileName) {
    BindingsParseResult r;
    forEachLine(text, [&](std::string_view line, unsigned no) {
        size_t hash = line.find('#');
        if (hash != std::string_view::npos)
            line = line.substr(0, hash);
        line = trim(line);
        if (line.empty())
            return;
        auto err = [&](std::string msg) {
            r.diagnostics.push_back(
                {fileName, no, config::Diagnostic::Severity::Error, std::move(msg)});
        };
        size_t gap = 0;
        while (gap < line.size() && !isBlank(line[gap]))
            ++gap;
        std::string_view aliasText = line.substr(0, gap);
        std::string_view wwidText = trim(line.substr(gap));
        if (wwidText.empty())
            return err("malformed binding; expected 'alias wwid'; line ignored");
        std::string alias(aliasText), wwid(wwidText);
        if (auto other = r.bindings.wwidFor(alias))
            return err("alias '" + alias + "' is already bound to " + *other + "; line ignored");
        if (auto other = r.bindings.aliasFor(wwid))
            return err("wwid " + wwid + " is already bound to '" + *other + "'; line ignored");
        r.bindings.own().push_back({std::move(alias), std::move(wwid)});
    });
    return r;
}

std::string Bindings::serialize() const {
    // The header multipath-tools writes, so its tools accept our file.
    std::string s = "# Multipath bindings, Version : 1.0\n"
                    "# NOTE: this file is automatically maintained by the multipath program.\n"
                    "# You should not need to edit this file in normal circumstances.\n"
                    "#\n"
                    "# Format:\n"
                    "# alias wwid\n"
                    "#\n";
    for (const auto &b : entries())
        s += b.alias + " " + b.wwid + "\n";
    return s;
}

std::optional<std::string> Bindings::aliasFor(std::string_view wwid) const {
    for (const auto &b : entries())
        if (b.wwid == wwid)
            return b.alias;
    return std::nullopt;
}

std::optional<std::string> Bindings::wwidFor(std::string_view alias) const {
    for (const auto &b : entries())
        if (b.alias == alias)
            return b.wwid;
    return std::nullopt;
}

std::string Bindings::aliasName(std::string_view prefix, unsigned index) {
    // Bijective base 26: a..z, aa..zz, aaa...
    std::string letters;
    unsigned long long n = static_cast<unsigned long long>(index) + 1;
    while (n > 0) {
        --n;
        letters.insert(letters.begin(), static_cast<char>('a' + n % 26));
        n /= 26;
    }
    return std::string(prefix) + letters;
}

std::optional<unsigned> Bindings::aliasIndex(std::string_view prefix, std::string_view alias) {
    if (alias.size() <= prefix.size() || alias.substr(0, prefix.size()) != prefix)
        return std::nullopt;
    std::string_view letters = alias.substr(prefix.size());
    unsigned long long n = 0;
    for (char c : letters) {
        if (c < 'a' || c > 'z')
            return std::nullopt;
        n = n * 26 + static_cast<unsigned>(c - 'a' + 1);
        if (n > UINT_MAX)
            return std::nullopt;
    }
    return static_cast<unsigned>(n - 1);
}

std::string Bindings::nextFreeAlias(std::string_view prefix,
                                    const std::vector<std::string> &reserved) const {
    std::set<unsigned> used;
    for (const auto &b : entries())
        if (auto i = aliasIndex(prefix, b.alias))
            used.insert(*i);
    for (const auto &a : reserved)
        if (auto i = aliasIndex(prefix, a))
            used.insert(*i);
    unsigned next = 0;
    for (unsigned i : used) {
        if (i != next)
            break;
        ++next;
    }
    return aliasName(prefix, next);
}

Result<void> Bindings::add(std::string alias, std::string wwid) {
    if (alias.empty() || hasBlank(alias) || alias.find('#') != std::string::npos)
        return Error{EINVAL, "'" + alias + "' cannot be an alias in a bindings file"};
    if (!validWwid(wwid, '#'))
        return Error{EINVAL, "'" + wwid + "' cannot be a WWID in a bindings file"};
    if (auto other = wwidFor(alias))
        return Error{EEXIST, "alias '" + alias + "' is bound to " + *other};
    if (auto other = aliasFor(wwid))
        return Error{EEXIST, "wwid " + wwid + " is bound to '" + *other + "'"};
    own().push_back({std::move(alias), std::move(wwid)});
    return ok();
}

Result<void> Bindings::remove(std::string_view wwid) {
    const auto &all = entries();
    auto at =
        std::find_if(all.begin(), all.end(), [&](const Binding &b) { return b.wwid == wwid; });
    if (at == all.end())
        return Error{ENOENT, "wwid " + std::string(wwid) + " is not bound"};
    const auto index = at - all.begin();
    auto &mine = own();
    mine.erase(mine.begin() + index);
    return ok();
}

const std::vector<Binding> &Bindings::entries() const {
    static const std::vector<Binding> none;
    return entries_ ? *entries_ : none;
}

std::vector<Binding> &Bindings::own() {
    if (!entries_)
        entries_ = std::make_shared<std::vector<Binding>>();
    else if (entries_.use_count() > 1)
        entries_ = std::make_shared<std::vector<Binding>>(*entries_);
    return *entries_;
}

} // namespace mpath::state
