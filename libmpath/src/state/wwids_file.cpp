#include "mpath/state/wwids_file.h"

#include "state/locked_file.h"

#include <algorithm>
#include <cerrno>

namespace mpath::state {

namespace {

bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && isBlank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isBlank(s.back()))
        s.remove_suffix(1);
    return s;
}

// Inner blanks are allowed (old SCSI serials have them); '/' would end
// the entry early.
bool validWwid(std::string_view wwid) {
    return !wwid.empty() && trim(wwid) == wwid && wwid.find('/') == std::string_view::npos &&
           wwid.find('\n') == std::string_view::npos;
}

} // namespace

std::vector<std::string> WwidsFile::parse(std::string_view text, const std::string &fileName,
                                          std::vector<config::Diagnostic> *diagnostics) {
    std::vector<std::string> wwids;
    unsigned no = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = trim(text.substr(pos, end - pos));
        pos = end + 1;
        ++no;
        if (line.empty() || line[0] == '#')
            continue;
        std::string_view inner = line.size() >= 2 && line.front() == '/' && line.back() == '/'
                                     ? line.substr(1, line.size() - 2)
                                     : std::string_view{};
        if (!validWwid(inner)) {
            if (diagnostics)
                diagnostics->push_back({fileName, no, config::Diagnostic::Severity::Warning,
                                        "malformed line; expected '/wwid/'; ignored"});
            continue;
        }
        if (std::find(wwids.begin(), wwids.end(), inner) == wwids.end())
            wwids.emplace_back(inner);
    }
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

Result<bool> WwidsFile::add(std::string_view wwid, std::chrono::milliseconds wait) {
    if (!validWwid(wwid))
        return Error{EINVAL, "'" + std::string(wwid) + "' cannot be a WWID in a wwids file"};
    bool added = false;
    auto r = LockedFile(path_).update(
        [&](std::string &text) -> Result<bool> {
            std::vector<std::string> wwids = parse(text, path_);
            if (std::find(wwids.begin(), wwids.end(), wwid) != wwids.end())
                return false;
            wwids.emplace_back(wwid);
            text = serialize(wwids);
            added = true;
            return true;
        },
        wait);
    if (!r)
        return r.error();
    return added;
}

Result<bool> WwidsFile::remove(std::string_view wwid, std::chrono::milliseconds wait) {
    bool removed = false;
    auto r = LockedFile(path_).update(
        [&](std::string &text) -> Result<bool> {
            std::vector<std::string> wwids = parse(text, path_);
            auto it = std::find(wwids.begin(), wwids.end(), wwid);
            if (it == wwids.end())
                return false;
            wwids.erase(it);
            text = serialize(wwids);
            removed = true;
            return true;
        },
        wait);
    if (!r)
        return r.error();
    return removed;
}

} // namespace mpath::state
