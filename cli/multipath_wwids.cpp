#include "multipath_wwids.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mpath/config/loader.h>
#include <mpath/discovery/discovery.h>
#include <mpath/policy/blacklist.h>
#include <mpath/state/bindings_file.h>
#include <mpath/state/wwids_file.h>
#include <mpath/sys/udev_lib.h>
#include <optional>
#include <vector>

namespace mpathcompat {

namespace {

namespace fs = std::filesystem;

std::string root() {
    const char *r = std::getenv("MPATH_CONFIG_ROOT");
    return r && *r ? r : "/";
}

std::string below(const std::string &path) {
    return (fs::path(root()) / fs::path(path).relative_path()).string();
}

std::string firstLine(const fs::path &file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

/// The multipath maps present: name and WWID (dm uuid "mpath-WWID"), from
/// sysfs.
std::vector<std::pair<std::string, std::string>> maps() {
    std::vector<std::pair<std::string, std::string>> out;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(below("/sys/block"), ec)) {
        if (!e.path().filename().string().starts_with("dm-"))
            continue;
        const std::string uuid = firstLine(e.path() / "dm" / "uuid");
        if (uuid.starts_with("mpath-") && uuid.size() > 6)
            out.emplace_back(firstLine(e.path() / "dm" / "name"), uuid.substr(6));
    }
    return out;
}

bool load(mpath::config::ConfigResult &result, const char *program) {
    result = mpath::config::Loader(root()).load();
    for (const auto &d : result.diagnostics)
        if (d.severity == mpath::config::Diagnostic::Severity::Error)
            std::fprintf(stderr, "%s: %s\n", program, d.toString().c_str());
    return !result.hasErrors();
}

/// The WWID \a device stands for, as multipath-tools' get_refwwid finds it;
/// nothing (said on stderr) when a path has none or is blacklisted.
std::optional<std::string> refWwid(const std::string &device, bool add,
                                   const mpath::config::Config &conf, const char *program) {
    unsigned ma = 0, mi = 0;
    char end = 0;
    std::string node;
    if (std::sscanf(device.c_str(), "%u:%u%c", &ma, &mi, &end) == 2) {
        std::error_code ec;
        node = fs::read_symlink(below("/sys/dev/block/" + device), ec).filename().string();
        if (node.empty()) {
            std::fprintf(stderr, "%s: %s: no such block device\n", program, device.c_str());
            return std::nullopt;
        }
    } else if (device.starts_with("/dev/")) {
        std::error_code ec;
        const fs::path real = fs::canonical(device, ec);
        node = (ec ? fs::path(device) : real).filename().string();
    }
    std::string word = device;
    if (node.starts_with("dm-")) {
        // A map's node (/dev/dm-N, /dev/mapper/NAME): as its name.
        word = firstLine(below("/sys/block/" + node + "/dm/name"));
        node.clear();
    }
    if (node.empty()) {
        // A map's name, an alias, or the WWID itself.
        for (const auto &[name, wwid] : maps())
            if (name == word)
                return wwid;
        const auto globals = conf.effectiveGlobals();
        if (auto bindings = mpath::state::BindingsFile(below(globals.bindingsFile.value)).load())
            if (auto wwid = bindings->wwidFor(word))
                return *wwid;
        for (const auto &m : conf.multipaths)
            if (!m.alias.empty() && m.alias == word)
                return m.wwid;
        return word;
    }
    const auto filter = mpath::policy::BlacklistFilter::fromConfig(conf);
    if (add && filter.checkDevnode(node).blacklisted)
        return std::nullopt; // as multipath-tools: a blacklisted node, silently
    auto udev = mpath::sys::UdevLib::create();
    if (!udev) {
        std::fprintf(stderr, "%s: %s\n", program, udev.error().message.c_str());
        return std::nullopt;
    }
    const mpath::discovery::Discovery disc(mpath::discovery::Sysfs(below("/sys")),
                                           mpath::discovery::Options::fromConfig(conf));
    auto found = disc.discover(node, **udev);
    if (!found && found.code() == ENOENT) {
        std::fprintf(stderr, "%s: %s: no such block device\n", program, device.c_str());
        return std::nullopt;
    }
    if (!found) {
        std::fprintf(stderr, "%s: %s: %s\n", program, device.c_str(),
                     found.error().message.c_str());
        return std::nullopt;
    }
    if (add) {
        // As multipath-tools: a path its blacklist takes, silently.
        const auto eff = conf.effective(found->path);
        auto props = udev->get()->properties(node);
        if (filter
                .check(found->path, props ? &*props : nullptr,
                       props ? eff.uidAttribute.value : std::string())
                .blacklisted)
            return std::nullopt;
    }
    if (found->path.wwid.empty()) {
        std::fprintf(stderr, "%s: %s: no WWID\n", program, device.c_str());
        return std::nullopt;
    }
    return found->path.wwid;
}

} // namespace

int changeWwid(const std::string &device, bool add, const char *program) {
    mpath::config::ConfigResult cfg;
    if (!load(cfg, program))
        return 1;
    const auto wwid = refWwid(device, add, cfg.config, program);
    if (!wwid)
        return 1;
    mpath::state::WwidsFile file(below(cfg.config.effectiveGlobals().wwidsFile.value));
    if (add) {
        auto r = file.add(*wwid, std::chrono::seconds(5));
        if (!r) {
            std::printf("failed adding '%s' to wwids file\n", wwid->c_str());
            std::fprintf(stderr, "%s: %s: %s\n", program, file.path().c_str(),
                         r.error().message.c_str());
            return 1;
        }
        std::printf("wwid '%s' added\n", wwid->c_str());
        return 0;
    }
    auto r = file.remove(*wwid, std::chrono::seconds(5));
    if (!r) {
        std::fprintf(stderr, "%s: %s: %s\n", program, file.path().c_str(),
                     r.error().message.c_str());
        return 1;
    }
    std::printf(*r ? "wwid '%s' removed\n" : "wwid '%s' not in wwids file\n", wwid->c_str());
    return 0;
}

int resetWwids(const char *program) {
    mpath::config::ConfigResult cfg;
    if (!load(cfg, program))
        return 1;
    mpath::state::WwidsFile file(below(cfg.config.effectiveGlobals().wwidsFile.value));
    std::vector<std::string> present;
    for (const auto &m : maps())
        present.push_back(m.second);
    auto listed = file.load();
    if (!listed) {
        std::fprintf(stderr, "%s: %s: %s\n", program, file.path().c_str(),
                     listed.error().message.c_str());
        return 1;
    }
    for (const auto &w : *listed)
        if (std::find(present.begin(), present.end(), w) == present.end())
            if (auto r = file.remove(w, std::chrono::seconds(5)); !r) {
                std::fprintf(stderr, "%s: %s: %s\n", program, file.path().c_str(),
                             r.error().message.c_str());
                return 1;
            }
    if (auto r = file.addAll(present, std::chrono::seconds(5)); !r) {
        std::fprintf(stderr, "%s: %s: %s\n", program, file.path().c_str(),
                     r.error().message.c_str());
        return 1;
    }
    std::printf("successfully reset wwids\n");
    return 0;
}

} // namespace mpathcompat
