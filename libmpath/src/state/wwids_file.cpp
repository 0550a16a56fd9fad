#include "mpath/state/wwids_file.h"

#include "state/locked_file.h"
#include "state/wwid_text.h"

#include <algorithm>
#include <cerrno>
#include <set>

namespace mpath::state {

std::vector<std::string> WwidsFile::parse(std::string_view text, const std::string &fileName,
                                          std::vector<config::Diagnostic> *diagnostics) {
    std::vector<std::string> wwids;
    forEachLine(text, [&](std::string_view line, unsigned no) {
        line = trim(line);
        if (line.empty() || line[0] == '#')
            return;
        std::string_view inner = line.size() >= 2 && line.front() == '/' && line.back() == '/'
                                     ? line.substr(1, line.size() - 2)
                                     : std::string_view{};
        if (!validWwid(inner, '/')) {
            if (diagnostics)
                diagnostics->push_back({fileName, no, config::Diagnostic::Severity::Warning,
                                        "malformed line; expected '/wwid/'; ignored"});
            return;
        }
        if (std::find(wwids.begin(), wwids.end(), inner) == wwids.end())
            wwids.emplace_back(inner);
    });
    return wwids;
}

std::string WwidsFile::serialize(const std::vector<std::string> &wwids) {
    // The header multipath-tools writes, so its tools accept our file.
    std::string s = "# Multipath wwids, Version : 1.0\n"
                    "# NOTE: This file is automatically maintained by multipath and multipathd.\n"
                    "# You should not need to edit this file in normal circumstances.\n"
                    "#\n"
                    "# Valid WWIDs:\n";
    for (const auto &w : wwids)
        s += "/" + w + "/\n";
    return s;
}

Result<std::vector<std::string>>
WwidsFile::load(std::vector<config::Diagnostic> *diagnostics) const {
    auto text = LockedFile(path_).read();
    if (!text && text.code() == ENOENT)
        return std::vector<std::string>{};
    if (!text)
        return text.error();
    return parse(*text, path_, diagnostics);
}

Result<bool> WwidsFile::contains(std::string_view wwid) const {
    auto wwids = load();
    if (!wwids)
        return wwids.error();
    return std::find(wwids->begin(), wwids->end(), wwid) != wwids->end();
}

Result<bool> WwidsFile::edit(const std::function<bool(std::vector<std::string> &wwids)> &change,
                             std::chrono::milliseconds wait) {
    bool changed = false;
    auto r = LockedFile(path_).update(
        [&](std::string &text) -> Result<bool> {
            std::vector<std::string> wwids = parse(text, path_);
            if (!change(wwids))
                return false;
            text = serialize(wwids);
            changed = true;
            return true;
        },
        wait);
    if (!r)
        return r.error();
    return changed;
}

Result<bool> WwidsFile::add(std::string_view wwid, std::chrono::milliseconds wait) {
    if (!validWwid(wwid, '/'))
        return Error{EINVAL, "'" + std::string(wwid) + "' cannot be a WWID in a wwids file"};
    return edit(
        [&](std::vector<std::string> &wwids) {
            if (std::find(wwids.begin(), wwids.end(), wwid) != wwids.end())
                return false;
            wwids.emplace_back(wwid);
            return true;
        },
        wait);
}

Result<std::vector<std::string>> WwidsFile::addAll(const std::vector<std::string> &wwids,
                                                   std::chrono::milliseconds wait) {
    std::vector<std::string> refused;
    std::vector<std::string> wanted;
    for (const auto &wwid : wwids)
        (validWwid(wwid, '/') ? wanted : refused).push_back(wwid);
    if (wanted.empty())
        return refused;
    auto r = edit(
        [&](std::vector<std::string> &listed) {
            std::set<std::string> have(listed.begin(), listed.end());
            const size_t before = listed.size();
            for (const auto &wwid : wanted)
                if (have.insert(wwid).second)
                    listed.push_back(wwid);
            return listed.size() != before;
        },
        wait);
    if (!r)
        return r.error();
    return refused;
}

Result<bool> WwidsFile::remove(std::string_view wwid, std::chrono::milliseconds wait) {
    return edit(
        [&](std::vector<std::string> &wwids) {
            auto it = std::find(wwids.begin(), wwids.end(), wwid);
            if (it == wwids.end())
                return false;
            wwids.erase(it);
            return true;
        },
        wait);
}

} // namespace mpath::state
