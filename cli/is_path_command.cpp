#include "is_path_command.h"

#include "config_file.h"
#include "exit_code.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mpath/config/config.h>
#include <mpath/config/hwtable.h>
#include <mpath/discovery/discovery.h>
#include <mpath/dm/status.h>
#include <mpath/policy/blacklist.h>
#include <mpath/policy/find_multipaths.h>
#include <mpath/state/wwids_file.h>
#include <mpath/sys/device_mapper_lib.h>
#include <optional>
#include <string_view>

extern char **environ;

namespace mpathctl {

namespace {

namespace discovery = mpath::discovery;
namespace policy = mpath::policy;
using mpath::config::FindMultipaths;

/// "mpathctl is-path" or "mpath-udev is-path": the program and command, for
/// messages (both programs run this command).
std::string who(const CLI::App *command) {
    return command->get_parent()->get_name() + " " + command->get_name();
}

/// The properties of the device udev is running us for come from our
/// environment: on an "add" event the udev database has no entry for it
/// yet. Every other device is looked up in \p inner.
class EventProperties final : public discovery::UdevProperties {
public:
    EventProperties(std::string kernelName, const discovery::UdevProperties &inner)
        : kernelName_(std::move(kernelName)), inner_(inner) {
        const char *devname = getenv("DEVNAME");
        if (!devname || (devname != "/dev/" + kernelName_ && devname != kernelName_))
            return;
        for (char **e = environ; *e; ++e) {
            std::string_view kv(*e);
            const auto eq = kv.find('=');
            if (eq != std::string_view::npos && eq > 0)
                event_.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
        }
        fromEvent_ = true;
    }

    bool fromEvent() const { return fromEvent_; }

    mpath::Result<discovery::UdevPropertyMap>
    properties(const std::string &kernelName) const override {
        if (fromEvent_ && kernelName == kernelName_)
            return event_;
        // Each database read costs the device's sysfs walk again.
        auto it = read_.find(kernelName);
        if (it == read_.end())
            it = read_.emplace(kernelName, inner_.properties(kernelName)).first;
        return it->second;
    }

    /// A property of the device asked about, from the event or the
    /// database.
    std::optional<std::string> property(const std::string &key) const {
        auto props = properties(kernelName_);
        if (!props)
            return std::nullopt;
        auto it = props->find(key);
        if (it == props->end())
            return std::nullopt;
        return it->second;
    }

private:
    std::string kernelName_;
    const discovery::UdevProperties &inner_;
    discovery::UdevPropertyMap event_;
    bool fromEvent_{false};
    mutable std::map<std::string, mpath::Result<discovery::UdevPropertyMap>> read_;
};

/// Whether a multipath map for \p wwid is set up: some dm device's uuid is
/// mpath-<wwid> (sysfs, so no device-mapper ioctl).
bool mapExists(const std::string &sysfsRoot, const std::string &wwid) {
    std::error_code ec;
    const std::string want = "mpath-" + wwid;
    for (const auto &e : std::filesystem::directory_iterator(sysfsRoot + "/block", ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("dm-", 0) != 0)
            continue;
        auto uuid = discovery::Sysfs(sysfsRoot).readAttribute("block/" + name + "/dm/uuid");
        if (uuid && *uuid == want)
            return true;
    }
    return false;
}

/// Whether a devices {} entry of \p conf or of the built-in table
/// describes \p path: multipath-tools' "known" device of
/// find_multipaths_timeout.
bool knownDevice(const mpath::config::Config &conf, const mpath::model::Path &path) {
    for (const auto &d : conf.devices)
        if (d.matches(path.vendor, path.product, path.revision))
            return true;
    return !mpath::config::Hwtable::builtin()
                .matching(path.vendor, path.product, path.revision)
                .empty();
}

/// What was decided, for people and for udev.
struct Verdict {
    policy::FindMultipathsDecision decision{policy::FindMultipathsDecision::NotMultipath};
    std::string why;
    long long waitUntil{-1}; ///< smart: until when; 0: released after the wait
    long long now{0};
};

/// How a verdict is printed: for people, for udev's IMPORT, or as
/// multipath-tools' `multipath -c`/`-u` print it.
enum class Form { Human, Export, MultipathTools };

void print(const std::string &name, const Verdict &v, Form form) {
    using D = policy::FindMultipathsDecision;
    if (form == Form::MultipathTools) {
        // Its words: the values quoted, the wait's end in seconds and
        // microseconds, no MPATH_WAIT_SECS.
        if (v.decision == D::Wait)
            std::cout << "FIND_MULTIPATHS_WAIT_UNTIL=\"" << v.waitUntil << ".000000\"\n";
        else if (v.waitUntil == 0)
            std::cout << "FIND_MULTIPATHS_WAIT_UNTIL=\"0\"\n";
        const char *value = v.decision == D::Multipath ? "1" : v.decision == D::Wait ? "2" : "0";
        std::cout << "DM_MULTIPATH_DEVICE_PATH=\"" << value << "\"\n";
        return;
    }
    if (form == Form::Export) {
        const char *value = v.decision == D::Multipath ? "1" : v.decision == D::Wait ? "2" : "0";
        std::cout << "DM_MULTIPATH_DEVICE_PATH=" << value << "\n";
        if (v.waitUntil >= 0)
            std::cout << "FIND_MULTIPATHS_WAIT_UNTIL=" << v.waitUntil << "\n";
        if (v.decision == D::Wait)
            std::cout << "MPATH_WAIT_SECS=" << std::max(1LL, v.waitUntil - v.now) << "\n";
        return;
    }
    switch (v.decision) {
    case D::Multipath:
        std::cout << name << ": a multipath path: " << v.why << "\n";
        break;
    case D::Wait:
        std::cout << name << ": held back for " << std::max(0LL, v.waitUntil - v.now)
                  << " s more: " << v.why << "\n";
        break;
    case D::NotMultipath:
        std::cout << name << ": not a multipath path: " << v.why << "\n";
        break;
    }
}

} // namespace

IsPathCommand::IsPathCommand(CLI::App &app)
    : command_(app.add_subcommand(
          "is-path", "whether DEVICE is a path of a multipath map, decided from the "
                     "configuration, the wwids file and the devices present (no daemon needed)")) {
    command_->add_option("device", device_, "sdb, /dev/sdb, nvme0n1")->required();
    command_->add_flag("--export", export_,
                       "print udev properties (DM_MULTIPATH_DEVICE_PATH=...) and exit 0");
    command_->add_option("--config", config_, "read FILE instead of the files mpathd would read")
        ->type_name("FILE");
    command_->add_option("--sysfs-root", sysfsRoot_)->type_name("DIR")->group("");
    // multipath -c / -u (cli/multipath_compat.cpp): multipath-tools'
    // output, and -u's exit status 0 whatever was decided.
    command_->add_flag("--multipath-tools", multipathTools_)->group("");
    command_->add_flag("--uevent", uevent_)->group("");
    command_->add_option("--now", now_)->type_name("SECS")->group("");
}

bool IsPathCommand::given() const {
    return command_->parsed();
}

int IsPathCommand::run() const {
    using D = policy::FindMultipathsDecision;
    std::string name = device_;
    if (name.rfind("/dev/", 0) == 0)
        name = name.substr(5);
    if (name.empty() || name.find('/') != std::string::npos) {
        std::cerr << who(command_) << ": '" << device_
                  << "' is not a block device name (sdb, /dev/sdb, nvme0n1)\n";
        return ExitUsage;
    }

    mpath::config::ConfigResult cfg;
    const std::optional<std::string> config =
        command_->count("--config") ? std::optional(config_) : std::nullopt;
    if (loadConfig(config, cfg) < 0)
        return ExitFailure;
    // mpathd does not start with a configuration that has errors: then only
    // a map already set up keeps its paths. Say what is wrong.
    for (const auto &d : cfg.diagnostics)
        if (d.severity == mpath::config::Diagnostic::Severity::Error)
            std::cerr << d.file << (d.line ? ":" + std::to_string(d.line) : std::string())
                      << ": error: " << d.message << "\n";

    const std::string sysfsRoot = command_->count("--sysfs-root") ? sysfsRoot_ : "/sys";
    auto db = openUdevProperties(command_->count("--sysfs-root") ? std::optional(sysfsRoot_)
                                                                 : std::nullopt,
                                 who(command_).c_str());
    if (!db)
        return ExitFailure;
    EventProperties udev(name, *db);

    Verdict v;
    v.now = now_ >= 0 ? now_ : static_cast<long long>(time(nullptr));
    auto done = [&](D decision, std::string why) {
        v.decision = decision;
        v.why = std::move(why);
        print(name, v,
              multipathTools_ ? Form::MultipathTools
              : export_       ? Form::Export
                              : Form::Human);
        if (export_ || (multipathTools_ && uevent_))
            return int(ExitOk);
        return decision == D::NotMultipath ? int(ExitFailure) : int(ExitOk);
    };

    const mpath::config::Config &conf = cfg.config;
    const policy::BlacklistFilter filter = policy::BlacklistFilter::fromConfig(conf);
    if (auto verdict = filter.checkDevnode(name); verdict.blacklisted)
        return done(D::NotMultipath, verdict.toString());

    const discovery::Discovery disc(discovery::Sysfs(sysfsRoot),
                                    discovery::Options::fromConfig(conf));
    auto found = disc.discover(name, udev);
    if (!found) {
        if (found.code() == ENOENT && !export_) {
            std::cerr << who(command_) << ": " << name << ": no such block device\n";
            return ExitFailure;
        }
        return done(D::NotMultipath, "cannot be described: " + found.error().message);
    }
    const mpath::model::Path &path = found->path;
    const auto eff = conf.effective(path);
    auto props = udev.properties(name);
    const auto verdict = filter.check(path, props ? &*props : nullptr,
                                      props ? eff.uidAttribute.value : std::string());
    if (verdict.blacklisted)
        return done(D::NotMultipath, verdict.toString());
    if (path.wwid.empty())
        return done(D::NotMultipath, "no WWID");

    const auto globals = conf.effectiveGlobals();
    policy::FindMultipathsInput in;
    in.mode = globals.findMultipaths.value;
    in.wwid = path.wwid;
    const auto listed = mpath::state::WwidsFile(globals.wwidsFile.value).contains(path.wwid);
    if (!listed)
        std::cerr << who(command_) << ": " << listed.error().message << "\n";
    in.knownWwid = (listed && *listed) || conf.multipathFor(path.wwid);
    in.mapExists = mapExists(sysfsRoot, path.wwid);
    if (cfg.hasErrors())
        return in.mapExists
                   ? done(D::Multipath, "WWID " + path.wwid + ", its map is set up")
                   : done(D::NotMultipath, "the configuration has errors (mpathd would not start)");
    const std::string mode = "find_multipaths " + std::string(mpath::config::toString(in.mode));

    // A device released after its wait is not taken back from whoever
    // uses it now.
    const auto saved = udev.property("FIND_MULTIPATHS_WAIT_UNTIL");
    const long long savedUntil = saved ? std::atoll(saved->c_str()) : -1;
    if (in.mode == FindMultipaths::Smart && saved && savedUntil == 0 && !in.mapExists) {
        v.waitUntil = 0;
        return done(D::NotMultipath, "released after find_multipaths_timeout (" + mode + ")");
    }

    if ((in.mode == FindMultipaths::On || in.mode == FindMultipaths::Smart) && !in.knownWwid &&
        !in.mapExists) {
        unsigned count = 0;
        for (const auto &p : disc.discoverAll(udev)) {
            if (p.wwid != path.wwid)
                continue;
            auto pprops = udev.properties(p.kernelName);
            const auto peff = conf.effective(p);
            if (!filter
                     .check(p, pprops ? &*pprops : nullptr,
                            pprops ? peff.uidAttribute.value : std::string())
                     .blacklisted)
                ++count;
        }
        in.pathCount = std::max(1u, count);
    }
    if (in.mode == FindMultipaths::Smart && savedUntil > 0)
        in.timedOut = v.now >= savedUntil;

    const D decision = policy::decideFindMultipaths(in);
    const std::string wwid = "WWID " + path.wwid;
    switch (decision) {
    case D::Multipath:
        if (in.mapExists)
            return done(decision, wwid + ", its map is set up");
        if (in.knownWwid)
            return done(decision, wwid + (listed && *listed ? " is in " + globals.wwidsFile.value
                                                            : " has a multipaths {} entry"));
        if (in.pathCount >= 2)
            return done(decision, wwid + ", " + std::to_string(in.pathCount) + " paths present (" +
                                      mode + ")");
        return done(decision, wwid + " (" + mode + ")");
    case D::Wait: {
        // multipath-tools' meaning: a positive timeout holds every path
        // back that long; a negative one only a device some devices {}
        // or built-in table entry describes, others 1 s so that boot is
        // not held up by a disk nobody said is multipathed; 0 is the
        // default, -10.
        long long timeout = globals.findMultipathsTimeout.value;
        if (timeout == 0)
            timeout = -10;
        if (timeout < 0)
            timeout = knownDevice(conf, path) ? -timeout : 1;
        v.waitUntil = savedUntil > 0 ? savedUntil : v.now + timeout;
        return done(decision,
                    wwid + " is not known and no second path is present yet (" + mode + ")");
    }
    case D::NotMultipath:
        if (in.mode == FindMultipaths::Smart && in.timedOut) {
            v.waitUntil = 0;
            return done(decision, wwid + ": no second path came within find_multipaths_timeout (" +
                                      mode + ")");
        }
        if (in.mode == FindMultipaths::Strict)
            return done(decision, wwid + " is not known: not in " + globals.wwidsFile.value +
                                      ", no multipaths {} entry, no map (" + mode + ")");
        return done(decision, wwid + " is not known and has one path (" + mode + ")");
    }
    return ExitFailure;
}

IsReadyCommand::IsReadyCommand(CLI::App &app)
    : command_(app.add_subcommand("is-ready", "whether multipath map MAP has a path that can do "
                                              "I/O now (from its device-mapper status)")) {
    command_->add_option("map", map_, "a map's name, as in /dev/mapper")->required();
}

bool IsReadyCommand::given() const {
    return command_->parsed();
}

Readiness mapReadiness(const std::string &map) {
    std::string name = map;
    if (name.rfind("/dev/mapper/", 0) == 0)
        name = name.substr(12);
    mpath::sys::DeviceMapperLib dm;
    auto status = dm.status(name);
    if (!status)
        return {false, name + ": not ready: " + status.error().message};
    unsigned active = 0, paths = 0;
    for (const auto &line : *status) {
        if (line.type != "multipath" && line.type != "lmpath")
            return {false, name + ": not ready: a " + line.type + " target, not multipath"};
        mpath::model::Map parsedMap;
        auto parsed = mpath::dm::parseStatus(line.params, parsedMap);
        if (!parsed)
            return {false, name + ": not ready: " + parsed.error().message};
        for (const auto &g : parsedMap.groups)
            for (const auto &p : g.paths) {
                ++paths;
                active += p.dmState == mpath::model::DmPathState::Active;
            }
    }
    if (active == 0)
        return {false,
                name + ": not ready: none of its " + std::to_string(paths) + " paths is active"};
    return {true, name + ": ready: " + std::to_string(active) + " of " + std::to_string(paths) +
                      " paths active"};
}

int IsReadyCommand::run() const {
    const Readiness r = mapReadiness(map_);
    std::cout << r.why << "\n";
    return r.ready ? ExitOk : ExitFailure;
}

bool wantsIsPath(int argc, char **argv) {
    return argc >= 2 &&
           (std::strcmp(argv[1], "is-path") == 0 || std::strcmp(argv[1], "is-ready") == 0);
}

} // namespace mpathctl
