#include "overrides.h"

#include <mpath/config/hwtable.h>
#include <mpath/config/parser.h>
#include <mpath/config/writer.h>
#include <mpath/sys/file.h>
#include <sys/stat.h>

namespace mpathd {

using mpath::Error;
using mpath::Result;
using mpath::config::MultipathEntry;

namespace {

constexpr const char *kKeywords[] = {"path_selector", "no_path_retry", "pg_init_retries",
                                     "pg_init_delay_msecs"};

std::string entryText(const MultipathEntry &entry) {
    mpath::config::Config c;
    c.multipaths.push_back(entry);
    return mpath::config::write(c);
}

} // namespace

bool Overrides::known(const std::string &keyword) {
    for (const char *k : kKeywords)
        if (keyword == k)
            return true;
    return false;
}

Result<MultipathEntry> Overrides::parse(const std::string &wwid, const std::string &keyword,
                                        const std::string &value) {
    if (!known(keyword))
        return Error{EINVAL, "'" + keyword + "' cannot be changed at runtime"};
    if (value.find_first_of("\n\r") != std::string::npos)
        return Error{EINVAL, "invalid value for " + keyword + ": it has a line break"};
    if (wwid.find_first_of("\n\r\"") != std::string::npos)
        return Error{EINVAL, "the WWID has characters a configuration cannot hold"};
    const std::string text = "multipaths {\n\tmultipath {\n\t\twwid " + mpath::config::quote(wwid) +
                             "\n\t\t" + keyword + " " + mpath::config::quote(value) + "\n\t}\n}\n";
    auto r = mpath::config::parseString(text, "<" + keyword + ">", true);
    for (const auto &d : r.diagnostics)
        if (d.severity != mpath::config::Diagnostic::Severity::Info)
            return Error{EINVAL, d.message};
    if (r.config.multipaths.size() != 1 ||
        mpath::config::settingValues(r.config.multipaths[0].settings).empty())
        return Error{EINVAL, "invalid value '" + value + "' for " + keyword};
    MultipathEntry e = r.config.multipaths[0];
    e.where = {};
    e.settings.where.clear();
    return e;
}

Result<void> Overrides::check(const std::string &keyword, const std::string &value) {
    // Any WWID will do: the value is read alone.
    if (auto e = parse("0", keyword, value); !e)
        return e.error();
    return mpath::ok();
}

void Overrides::set(const MultipathEntry &entry, const std::string &keyword) {
    Entry &e = runtime_[entry.wwid];
    e.entry.wwid = entry.wwid;
    mpath::config::mergeSettings(e.entry.settings, entry.settings);
    e.keywords.insert(keyword);
}

bool Overrides::drop(const std::string &wwid, const std::string &keyword) {
    auto it = runtime_.find(wwid);
    if (it == runtime_.end() || !it->second.keywords.erase(keyword))
        return false;
    // Rebuilt from what is left: Settings has no per-keyword reset.
    MultipathEntry left;
    left.wwid = wwid;
    for (const auto &[k, v] : mpath::config::settingValues(it->second.entry.settings))
        if (it->second.keywords.count(k))
            if (auto e = parse(wwid, k, v))
                mpath::config::mergeSettings(left.settings, e->settings);
    if (it->second.keywords.empty())
        runtime_.erase(it);
    else
        it->second.entry = std::move(left);
    return true;
}

mpath::config::Config Overrides::apply(mpath::config::Config config) const {
    for (const auto &[wwid, e] : runtime_)
        config.multipaths.push_back(e.entry);
    return config;
}

std::map<std::string, std::string> Overrides::describe(const mpath::config::Config &config,
                                                       const std::string &confd,
                                                       const std::string &wwid) const {
    std::map<std::string, std::string> out;
    const std::string file = dropIn(confd, wwid);
    for (const auto &mp : config.multipaths)
        if (mp.wwid == wwid && mp.where.file == file)
            for (const auto &[k, v] : mpath::config::settingValues(mp.settings))
                out[k] = "persistent";
    if (auto it = runtime_.find(wwid); it != runtime_.end())
        for (const auto &k : it->second.keywords)
            out[k] = "runtime";
    return out;
}

std::string Overrides::dropIn(const std::string &confd, const std::string &wwid) {
    // Hex for every other byte, so that no two WWIDs share a file.
    std::string safe;
    for (unsigned char c : wwid) {
        if (isalnum(c) || c == '.' || c == '-') {
            safe += static_cast<char>(c);
        } else {
            static constexpr char kHex[] = "0123456789abcdef";
            safe += '_';
            safe += kHex[c >> 4];
            safe += kHex[c & 15];
        }
    }
    return confd + "/zz-mpathd-" + safe + ".conf";
}

Result<void> Overrides::persist(const std::string &confd, const std::string &wwid,
                                const std::string &keyword, const std::string &value) {
    auto add = parse(wwid, keyword, value);
    if (!add)
        return add.error();
    const std::string file = dropIn(confd, wwid);
    MultipathEntry entry;
    entry.wwid = wwid;
    if (auto old = mpath::sys::readFile(file)) {
        auto r = mpath::config::parseString(*old, file, true);
        for (const auto &mp : r.config.multipaths)
            if (mp.wwid == wwid)
                mpath::config::mergeSettings(entry.settings, mp.settings);
    } else if (old.error().code != ENOENT) {
        return old.error();
    }
    mpath::config::mergeSettings(entry.settings, add->settings);
    entry.settings.where.clear();
    if (auto r = mpath::sys::makeDirectories(confd); !r)
        return r.error();
    return mpath::sys::replaceFile(file,
                                   "# Written by mpathd: settings of map " + wwid +
                                       " changed with persist.\n" + entryText(entry),
                                   0644);
}

} // namespace mpathd
