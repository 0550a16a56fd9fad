#include "mpath/wwids_file.h"

#include "names_state_file.h"

#include <algorithm>
#include <cerrno>

namespace mpath {

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

int readWwids(const NamesStateFile &file, std::vector<std::string> &out,
              std::vector<Diagnostic> *diagnostics) {
    std::string text;
    int r = file.read(text);
    if (r == -ENOENT) {
        out.clear();
        return 0;
    }
    if (r < 0)
        return r;
    out = WwidsFile::parse(text, file.path(), diagnostics);
    return 0;
}

} // namespace

std::vector<std::string> WwidsFile::parse(std::string_view text, const std::string &fileName,
                                          std::vector<Diagnostic> *diagnostics) {
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
                diagnostics->push_back({fileName, no, Diagnostic::Severity::Warning,
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

int WwidsFile::load(std::vector<std::string> &out, std::vector<Diagnostic> *diagnostics) const {
    NamesStateFile file(path_);
    return readWwids(file, out, diagnostics);
}

int WwidsFile::contains(std::string_view wwid) const {
    std::vector<std::string> wwids;
    int r = load(wwids);
    if (r < 0)
        return r;
    return std::find(wwids.begin(), wwids.end(), wwid) != wwids.end() ? 1 : 0;
}

int WwidsFile::add(std::string_view wwid) {
    if (!validWwid(wwid))
        return -EINVAL;
    NamesStateFile file(path_);
    int r = file.lock();
    if (r < 0)
        return r;
    std::vector<std::string> wwids;
    r = readWwids(file, wwids, nullptr);
    if (r < 0)
        return r;
    if (std::find(wwids.begin(), wwids.end(), wwid) != wwids.end())
        return 0;
    wwids.emplace_back(wwid);
    r = file.replace(serialize(wwids));
    return r < 0 ? r : 1;
}

int WwidsFile::remove(std::string_view wwid) {
    NamesStateFile file(path_);
    int r = file.lock();
    if (r < 0)
        return r;
    std::vector<std::string> wwids;
    r = readWwids(file, wwids, nullptr);
    if (r < 0)
        return r;
    auto it = std::find(wwids.begin(), wwids.end(), wwid);
    if (it == wwids.end())
        return 0;
    wwids.erase(it);
    r = file.replace(serialize(wwids));
    return r < 0 ? r : 1;
}

} // namespace mpath
