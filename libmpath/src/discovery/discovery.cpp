#include "mpath/discovery/discovery.h"

#include "mpath/discovery/vpd.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <memory>
#include <sys/sysmacros.h>

namespace mpath::discovery {

using model::DeviceState;
using model::Path;
using model::Transport;

namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

bool allDigits(std::string_view s) {
    if (s.empty())
        return false;
    for (char c : s)
        if (c < '0' || c > '9')
            return false;
    return true;
}

std::vector<std::string_view> components(std::string_view path) {
    std::vector<std::string_view> out;
    while (!path.empty()) {
        size_t slash = path.find('/');
        std::string_view c = path.substr(0, slash);
        if (!c.empty())
            out.push_back(c);
        if (slash == std::string_view::npos)
            break;
        path.remove_prefix(slash + 1);
    }
    return out;
}

// "H:C:T:L" with four decimal numbers.
bool isScsiAddress(std::string_view s) {
    int fields = 0;
    while (true) {
        size_t colon = s.find(':');
        if (!allDigits(s.substr(0, colon)))
            return false;
        ++fields;
        if (colon == std::string_view::npos)
            break;
        s.remove_prefix(colon + 1);
    }
    return fields == 4;
}

// nvme0c1n1: a hidden per-controller device of a native NVMe multipath
// namespace; the head (nvme0n1) stands for it.
bool isHiddenNvme(std::string_view name) {
    if (!startsWith(name, "nvme"))
        return false;
    name.remove_prefix(4);
    size_t c = name.find('c');
    size_t n = name.find('n');
    return c != std::string_view::npos && n != std::string_view::npos && c < n &&
           allDigits(name.substr(0, c)) && allDigits(name.substr(c + 1, n - c - 1)) &&
           allDigits(name.substr(n + 1));
}

bool isCandidate(std::string_view name) {
    for (std::string_view skip : {"dm-", "loop", "ram", "zram", "md"})
        if (startsWith(name, skip))
            return false;
    return !isHiddenNvme(name);
}

Result<dev_t> parseDevt(std::string_view text) {
    size_t colon = text.find(':');
    if (colon == std::string_view::npos || !allDigits(text.substr(0, colon)) ||
        !allDigits(text.substr(colon + 1)) || colon > 7 || text.size() - colon > 8)
        return Error{EINVAL, "'" + std::string(text) + "' is not major:minor"};
    unsigned long maj = std::stoul(std::string(text.substr(0, colon)));
    unsigned long min = std::stoul(std::string(text.substr(colon + 1)));
    return makedev(maj, min);
}

// The WWID of an NVMe namespace from its sysfs directory \a blockDir: the
// wwid attribute, else uuid/nguid/eui.
std::string nvmeWwid(const Sysfs &sysfs, const std::string &blockDir) {
    if (auto w = sysfs.readAttribute(blockDir + "/wwid"); w && !w->empty())
        return *w;
    return wwid::fromNvmeIdentifiers(sysfs.readAttribute(blockDir + "/uuid").valueOr(""),
                                     sysfs.readAttribute(blockDir + "/nguid").valueOr(""),
                                     sysfs.readAttribute(blockDir + "/eui").valueOr(""));
}

DeviceState scsiState(std::string_view s) {
    if (s == "running")
        return DeviceState::Running;
    if (s == "offline" || s == "transport-offline")
        return DeviceState::Offline;
    if (s == "blocked" || s == "created-blocked" || s == "quiesce" || s == "created")
        return DeviceState::Blocked;
    if (s == "cancel" || s == "deleted" || s == "cancel-offline")
        return DeviceState::Removed;
    return DeviceState::Unknown;
}

DeviceState nvmeState(std::string_view s) {
    if (s == "live")
        return DeviceState::Running;
    if (s == "dead")
        return DeviceState::Offline;
    if (s == "new" || s == "resetting" || s == "connecting")
        return DeviceState::Blocked;
    if (startsWith(s, "deleting"))
        return DeviceState::Removed;
    return DeviceState::Unknown;
}

std::string lookup(const UdevPropertyMap &props, const std::string &key) {
    auto it = props.find(key);
    return it == props.end() ? std::string{} : it->second;
}

} // namespace

struct Discovery::HostCache {
    /// "host3" -> FibreChannel, Sas or Scsi (neither).
    std::map<std::string, Transport, std::less<>> hostKind;
};

Options Options::fromConfig(const config::Config &config) {
    Options o;
    auto shared = std::make_shared<const config::Config>(config);
    o.uidAttribute = [shared](const Path &p) {
        config::EffectiveSettings e = shared->effective(p.vendor, p.product, p.revision, "");
        return e.uidAttribute.origin == config::Origin::Builtin ? std::string{}
                                                                : e.uidAttribute.value;
    };
    return o;
}

Discovery::Discovery(Sysfs sysfs, Options options)
    : sysfs_(std::move(sysfs)), options_(std::move(options)) {}

Result<std::vector<std::string>> Discovery::candidates() const {
    auto all = sysfs_.listDirectory("block");
    if (!all)
        return all.error();
    std::vector<std::string> names;
    for (std::string &n : *all)
        if (isCandidate(n))
            names.push_back(std::move(n));
    return names;
}

std::vector<Path> Discovery::discoverAll(const UdevProperties &udev,
                                         std::vector<Issue> *issues) const {
    std::vector<Path> paths;
    auto names = candidates();
    if (!names) {
        if (issues)
            issues->push_back({"", names.error().context("cannot list block devices")});
        return paths;
    }
    paths.reserve(names->size());
    HostCache cache;
    for (const std::string &name : *names) {
        auto found = discoverOne(name, udev, &cache);
        if (!found) {
            if (issues)
                issues->push_back({name, found.error()});
            continue;
        }
        paths.push_back(std::move(found->path));
    }
    return paths;
}

Result<Found> Discovery::discover(const std::string &kernelName, const UdevProperties &udev) const {
    return discoverOne(kernelName, udev, nullptr);
}

Result<bool> Discovery::refreshPortState(Path &p) const {
    if (p.kernelName.empty() || p.kernelName.find('/') != std::string::npos)
        return Error{EINVAL, "'" + p.kernelName + "' is not a block device name"};
    const std::string blockDir = "block/" + p.kernelName;
    if (startsWith(p.kernelName, "nvme")) {
        auto ana = sysfs_.readAttribute(blockDir + "/ana_state");
        if (!ana && ana.code() == ENOENT && !sysfs_.readAttribute(blockDir + "/dev"))
            return Error{ENOENT, p.kernelName + " is gone"};
        const std::string now = ana.valueOr("");
        const bool changed = now != p.anaState;
        p.anaState = now;
        return changed;
    }
    auto device = sysfs_.resolve(blockDir + "/device");
    if (!device)
        return device.error();
    const std::string access = sysfs_.readAttribute(*device + "/access_state").valueOr("");
    const bool preferred = sysfs_.readNumber(*device + "/preferred_path").valueOr(0) != 0;
    const bool changed = access != p.accessState || preferred != p.preferred;
    p.accessState = access;
    p.preferred = preferred;
    return changed;
}

Result<std::string> Discovery::deviceStateText(const Path &p) const {
    if (p.kernelName.empty() || p.kernelName.find('/') != std::string::npos)
        return Error{EINVAL, "'" + p.kernelName + "' is not a block device name"};
    auto state = sysfs_.readAttribute("block/" + p.kernelName + "/device/state");
    if (!state && state.code() == ENOENT)
        return std::string();
    return state;
}

Result<Found> Discovery::discoverOne(const std::string &kernelName, const UdevProperties &udev,
                                     HostCache *cache) const {
    if (kernelName.empty() || kernelName.find('/') != std::string::npos)
        return Error{EINVAL, "'" + kernelName + "' is not a block device name"};
    const std::string blockDir = "block/" + kernelName;

    Path p;
    p.kernelName = kernelName;
    auto devText = sysfs_.readAttribute(blockDir + "/dev");
    if (!devText)
        return devText.error();
    auto devt = parseDevt(*devText);
    if (!devt)
        return devt.error().context(blockDir + "/dev");
    p.devt = *devt;
    p.sizeSectors = sysfs_.readNumber(blockDir + "/size").valueOr(0);

    // A device udev has not processed yet still gets a sysfs description.
    const UdevPropertyMap props = udev.properties(kernelName).valueOr({});

    // block/<name> and its device link, resolved with one readlink each;
    // realpath() would look up every component of these deep paths.
    const std::string blockCanonical = sysfs_.resolveLink(blockDir).valueOr(blockDir);
    auto device = sysfs_.resolveLink(blockCanonical + "/device");
    if (!device)
        device = sysfs_.resolve(blockDir + "/device");
    const bool hasDevice = device.ok();
    const std::string deviceDir = device.valueOr("");
    std::vector<std::string_view> parts = components(deviceDir);

    wwid::Source wwidSource = wwid::Source::None;
    std::vector<uint8_t> page83;
    if (startsWith(kernelName, "nvme") && hasDevice) {
        discoverNvme(blockDir, deviceDir, p);
    } else if (hasDevice && !parts.empty() && isScsiAddress(parts.back())) {
        p.scsiAddress = std::string(parts.back());
        discoverScsi(deviceDir, props, p, page83, cache);
    } else {
        bool virtio = false;
        for (std::string_view c : parts)
            virtio = virtio || startsWith(c, "virtio");
        p.transport = virtio                            ? Transport::Virtio
                      : startsWith(kernelName, "nullb") ? Transport::NullBlk
                                                        : Transport::Unknown;
        p.protocol = "undef";
        p.deviceState = DeviceState::Running;
        p.serial = sysfs_.readAttribute(blockDir + "/serial").valueOr("");
    }

    std::string uid = options_.uidAttribute ? options_.uidAttribute(p) : std::string{};
    if (uid.empty())
        uid = wwid::defaultUidAttribute(kernelName);
    if (!uid.empty()) {
        p.wwid = lookup(props, uid);
        if (!p.wwid.empty())
            wwidSource = wwid::Source::UdevProperty;
    }
    if (p.wwid.empty() && options_.sysfsFallback) {
        if (p.transport == Transport::Nvme) {
            p.wwid = nvmeWwid(sysfs_, blockDir);
            if (!p.wwid.empty())
                wwidSource = wwid::Source::NvmeSysfs;
        } else if (!p.scsiAddress.empty() && !page83.empty()) {
            p.wwid =
                vpd::wwidFromPage83(page83, options_.page83Order, p.vendor, p.product).valueOr("");
            if (!p.wwid.empty())
                wwidSource = wwid::Source::VpdPage83;
        }
    }
    return Found{std::move(p), wwidSource};
}

void Discovery::discoverScsi(const std::string &deviceDir, const UdevPropertyMap &props, Path &p,
                             std::vector<uint8_t> &page83, HostCache *cache) const {
    // Attributes a device may lack are read as absent; what is there is
    // what the kernel knows, read at once.
    auto attr = [&](const char *name) { return sysfs_.readAttribute(deviceDir + "/" + name); };
    // Inquiry strings are stored padded; sysfs keeps the padding, we do not.
    p.vendor = attr("vendor").valueOr("");
    p.product = attr("model").valueOr("");
    p.revision = attr("rev").valueOr("");
    if (auto state = attr("state"))
        p.deviceState = scsiState(*state);

    if (auto page = sysfs_.readBinary(deviceDir + "/vpd_pg80"))
        p.serial = vpd::parsePage80(*page).valueOr("");
    if (p.serial.empty())
        p.serial = lookup(props, "ID_SCSI_SERIAL");
    if (auto page = sysfs_.readBinary(deviceDir + "/vpd_pg83")) {
        page83 = std::move(*page);
        p.ids.targetPortGroup = vpd::targetPortGroupFromPage83(page83).valueOr(-1);
    }
    if (auto inquiry = sysfs_.readBinary(deviceDir + "/inquiry"))
        p.tpgs = vpd::targetPortGroupSupport(*inquiry).valueOr(-1);
    if (auto handler = attr("dh_state"); handler && *handler != "detached")
        p.attachedHandler = *handler;
    // Present without a handler too, but then it cannot be read.
    p.accessState = attr("access_state").valueOr("");
    p.preferred = sysfs_.readNumber(deviceDir + "/preferred_path").valueOr(0) != 0;
    scsiTransport(deviceDir, p, cache);
}

void Discovery::scsiTransport(const std::string &deviceDir, Path &p, HostCache *cache) const {
    std::vector<std::string_view> parts = components(deviceDir);
    std::string host, session, endDevice, rport;
    for (std::string_view c : parts) {
        if (startsWith(c, "host") && allDigits(c.substr(4)))
            host = std::string(c);
        else if (startsWith(c, "session") && allDigits(c.substr(7)))
            session = std::string(c);
        else if (startsWith(c, "end_device-"))
            endDevice = std::string(c);
        else if (startsWith(c, "rport-"))
            rport = std::string(c);
    }
    p.ids.scsiHost = host;
    // "target" + H:C:T names the fc_transport entry of the device's target.
    std::string target;
    if (!p.scsiAddress.empty())
        target = "target" + p.scsiAddress.substr(0, p.scsiAddress.rfind(':'));

    Transport hostKind = Transport::Scsi;
    if (!host.empty()) {
        auto known = cache ? cache->hostKind.find(host) : decltype(cache->hostKind)::iterator{};
        if (cache && known != cache->hostKind.end()) {
            hostKind = known->second;
        } else {
            if (sysfs_.exists("class/fc_host/" + host))
                hostKind = Transport::FibreChannel;
            else if (sysfs_.exists("class/sas_host/" + host))
                hostKind = Transport::Sas;
            if (cache)
                cache->hostKind.emplace(host, hostKind);
        }
    }

    p.transport = Transport::Scsi;
    p.protocol = "scsi:unspec";
    if (hostKind == Transport::FibreChannel) {
        p.transport = Transport::FibreChannel;
        p.protocol = "scsi:fcp";
        p.ids.hostWwnn = sysfs_.readAttribute("class/fc_host/" + host + "/node_name").valueOr("");
        p.ids.hostWwpn = sysfs_.readAttribute("class/fc_host/" + host + "/port_name").valueOr("");
        const std::string t = "class/fc_transport/" + target;
        p.ids.targetWwnn = sysfs_.readAttribute(t + "/node_name").valueOr("");
        p.ids.targetWwpn = sysfs_.readAttribute(t + "/port_name").valueOr("");
        p.ids.nodeName = p.ids.targetWwnn;
        p.ids.transportPort = rport;
    } else if (!session.empty()) {
        p.transport = Transport::Iscsi;
        p.protocol = "scsi:iscsi";
        p.ids.nodeName =
            sysfs_.readAttribute("class/iscsi_session/" + session + "/targetname").valueOr("");
        p.ids.transportPort = session;
    } else if (hostKind == Transport::Sas) {
        p.transport = Transport::Sas;
        p.protocol = "scsi:sas";
        if (!endDevice.empty()) {
            p.ids.targetWwpn =
                sysfs_.readAttribute("class/sas_device/" + endDevice + "/sas_address").valueOr("");
            p.ids.nodeName = p.ids.targetWwpn;
            p.ids.transportPort = endDevice;
        }
    }
}

void Discovery::discoverNvme(const std::string &blockDir, const std::string &deviceDir,
                             Path &p) const {
    p.transport = Transport::Nvme;
    p.vendor = "NVME";
    p.product = sysfs_.readAttribute(deviceDir + "/model").valueOr("");
    p.serial = sysfs_.readAttribute(deviceDir + "/serial").valueOr("");
    p.revision = sysfs_.readAttribute(deviceDir + "/firmware_rev").valueOr("");
    const std::string transport = sysfs_.readAttribute(deviceDir + "/transport").valueOr("");
    p.protocol = transport.empty() ? "nvme:unspec" : "nvme:" + transport;
    if (auto state = sysfs_.readAttribute(deviceDir + "/state")) {
        p.deviceState = nvmeState(*state);
        // A fabrics controller (nvme class): where its timeouts are set.
        const std::string ctrl = deviceDir.substr(deviceDir.rfind('/') + 1);
        if (!transport.empty() && transport != "pcie" && startsWith(ctrl, "nvme"))
            p.ids.transportPort = ctrl;
        p.keepAliveTimeout =
            static_cast<unsigned>(sysfs_.readNumber(deviceDir + "/kato").valueOr(0));
    } else {
        p.deviceState = DeviceState::Running; // a native multipath head has no state
    }
    p.ids.nodeName = sysfs_.readAttribute(deviceDir + "/subsysnqn")
                         .valueOr(sysfs_.readAttribute(blockDir + "/subsysnqn").valueOr(""));
    p.nsid = static_cast<uint32_t>(sysfs_.readNumber(blockDir + "/nsid").valueOr(0));
    p.anaGroupId = static_cast<uint32_t>(sysfs_.readNumber(blockDir + "/ana_grpid").valueOr(0));
    p.anaState = sysfs_.readAttribute(blockDir + "/ana_state").valueOr("");
}

} // namespace mpath::discovery
