#include "mpath/discovery.h"

#include "mpath/vpd.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <sys/sysmacros.h>

namespace mpath {

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

int parseDevt(std::string_view text, dev_t &devt) {
    size_t colon = text.find(':');
    if (colon == std::string_view::npos || !allDigits(text.substr(0, colon)) ||
        !allDigits(text.substr(colon + 1)))
        return -EINVAL;
    unsigned long maj = std::stoul(std::string(text.substr(0, colon)));
    unsigned long min = std::stoul(std::string(text.substr(colon + 1)));
    devt = makedev(maj, min);
    return 0;
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

DiscoveryOptions DiscoveryOptions::fromConfig(const Config &config) {
    DiscoveryOptions o;
    auto shared = std::make_shared<const Config>(config);
    o.uidAttribute = [shared](const Path &p) {
        EffectiveSettings e = shared->effective(p.vendor, p.product, p.revision, "");
        return e.uidAttribute.origin == Origin::Builtin ? std::string{} : e.uidAttribute.value;
    };
    return o;
}

Discovery::Discovery(Sysfs sysfs, DiscoveryOptions options)
    : sysfs_(std::move(sysfs)), options_(std::move(options)) {}

int Discovery::candidates(std::vector<std::string> &names) const {
    std::vector<std::string> all;
    int r = sysfs_.listDirectory("block", all);
    if (r < 0)
        return r;
    names.clear();
    for (std::string &n : all)
        if (isCandidate(n))
            names.push_back(std::move(n));
    return 0;
}

std::vector<Path> Discovery::discoverAll(const UdevProperties &udev,
                                         std::vector<DiscoveryIssue> *issues) const {
    std::vector<std::string> names;
    std::vector<Path> paths;
    if (int r = candidates(names); r < 0) {
        if (issues)
            issues->push_back({"", r, "cannot list block devices"});
        return paths;
    }
    paths.reserve(names.size());
    HostCache cache;
    for (const std::string &name : names) {
        Path p;
        int r = discoverOne(name, udev, p, nullptr, &cache);
        if (r < 0) {
            if (issues)
                issues->push_back({name, r, "discovery failed"});
            continue;
        }
        paths.push_back(std::move(p));
    }
    return paths;
}

int Discovery::discover(const std::string &kernelName, const UdevProperties &udev, Path &path,
                        Wwid::Source *source) const {
    return discoverOne(kernelName, udev, path, source, nullptr);
}

int Discovery::discoverOne(const std::string &kernelName, const UdevProperties &udev, Path &path,
                           Wwid::Source *source, HostCache *cache) const {
    if (kernelName.empty() || kernelName.find('/') != std::string::npos)
        return -EINVAL;
    const std::string blockDir = "block/" + kernelName;

    Path p;
    p.kernelName = kernelName;
    std::string text;
    if (int r = sysfs_.readAttribute(blockDir + "/dev", text); r < 0)
        return r;
    if (int r = parseDevt(text, p.devt); r < 0)
        return r;
    uint64_t size = 0;
    if (sysfs_.readNumber(blockDir + "/size", size) == 0)
        p.sizeSectors = size;

    UdevPropertyMap props;
    // A device udev has not processed yet still gets a sysfs description.
    (void)udev.properties(kernelName, props);

    // block/<name> and its device link, resolved with one readlink each;
    // realpath() would look up every component of these deep paths.
    std::string blockCanonical;
    if (sysfs_.resolveLink(blockDir, blockCanonical) < 0)
        blockCanonical = blockDir;
    std::string deviceDir;
    bool hasDevice = sysfs_.resolveLink(blockCanonical + "/device", deviceDir) == 0 ||
                     sysfs_.resolve(blockDir + "/device", deviceDir) == 0;
    std::vector<std::string_view> parts = components(deviceDir);

    Wwid::Source wwidSource = Wwid::Source::None;
    std::vector<uint8_t> page83;
    if (startsWith(kernelName, "nvme") && hasDevice) {
        if (int r = discoverNvme(blockDir, deviceDir, p); r < 0)
            return r;
    } else if (hasDevice && !parts.empty() && isScsiAddress(parts.back())) {
        p.scsiAddress = std::string(parts.back());
        if (int r = discoverScsi(deviceDir, props, p, page83, cache); r < 0)
            return r;
    } else {
        bool virtio = false;
        for (std::string_view c : parts)
            virtio = virtio || startsWith(c, "virtio");
        p.transport = virtio                            ? Transport::Virtio
                      : startsWith(kernelName, "nullb") ? Transport::NullBlk
                                                        : Transport::Unknown;
        p.protocol = "undef";
        p.deviceState = DeviceState::Running;
        (void)sysfs_.readAttribute(blockDir + "/serial", p.serial);
    }

    std::string uid = options_.uidAttribute ? options_.uidAttribute(p) : std::string{};
    if (uid.empty())
        uid = Wwid::defaultUidAttribute(kernelName);
    if (!uid.empty()) {
        p.wwid = lookup(props, uid);
        if (!p.wwid.empty())
            wwidSource = Wwid::Source::UdevProperty;
    }
    if (p.wwid.empty() && options_.sysfsFallback) {
        if (p.transport == Transport::Nvme) {
            if (Wwid::fromNvmeSysfs(sysfs_, blockDir, p.wwid) == 0)
                wwidSource = Wwid::Source::NvmeSysfs;
        } else if (!p.scsiAddress.empty()) {
            if (!page83.empty() &&
                Vpd::wwidFromPage83(page83, p.wwid, options_.page83Order, p.vendor, p.product) == 0)
                wwidSource = Wwid::Source::VpdPage83;
        }
    }

    if (source)
        *source = wwidSource;
    path = std::move(p);
    return 0;
}

int Discovery::discoverScsi(const std::string &deviceDir, const UdevPropertyMap &props, Path &p,
                            std::vector<uint8_t> &page83, HostCache *cache) const {
    // Inquiry strings are stored padded; sysfs keeps the padding, we do not.
    (void)sysfs_.readAttribute(deviceDir + "/vendor", p.vendor);
    (void)sysfs_.readAttribute(deviceDir + "/model", p.product);
    (void)sysfs_.readAttribute(deviceDir + "/rev", p.revision);
    std::string state;
    if (sysfs_.readAttribute(deviceDir + "/state", state) == 0)
        p.deviceState = scsiState(state);

    std::vector<uint8_t> page;
    if (sysfs_.readBinary(deviceDir + "/vpd_pg80", page) == 0)
        (void)Vpd::parsePage80(page, p.serial);
    if (p.serial.empty())
        p.serial = lookup(props, "ID_SCSI_SERIAL");
    if (sysfs_.readBinary(deviceDir + "/vpd_pg83", page83) == 0) {
        int tpg = Vpd::targetPortGroupFromPage83(page83);
        if (tpg >= 0)
            p.ids.targetPortGroup = tpg;
    }
    std::vector<uint8_t> inquiry;
    if (sysfs_.readBinary(deviceDir + "/inquiry", inquiry) == 0)
        p.tpgs = std::max(Vpd::targetPortGroupSupport(inquiry), -1);
    std::string handler;
    if (sysfs_.readAttribute(deviceDir + "/dh_state", handler) == 0 && handler != "detached")
        p.attachedHandler = handler;
    scsiTransport(deviceDir, p, cache);
    return 0;
}

void Discovery::scsiTransport(const std::string &deviceDir, Path &p, HostCache *cache) const {
    std::vector<std::string_view> parts = components(deviceDir);
    std::string host, session, endDevice;
    for (std::string_view c : parts) {
        if (startsWith(c, "host") && allDigits(c.substr(4)))
            host = std::string(c);
        else if (startsWith(c, "session") && allDigits(c.substr(7)))
            session = std::string(c);
        else if (startsWith(c, "end_device-"))
            endDevice = std::string(c);
    }
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
        (void)sysfs_.readAttribute("class/fc_host/" + host + "/node_name", p.ids.hostWwnn);
        (void)sysfs_.readAttribute("class/fc_host/" + host + "/port_name", p.ids.hostWwpn);
        const std::string t = "class/fc_transport/" + target;
        (void)sysfs_.readAttribute(t + "/node_name", p.ids.targetWwnn);
        (void)sysfs_.readAttribute(t + "/port_name", p.ids.targetWwpn);
        p.ids.nodeName = p.ids.targetWwnn;
    } else if (!session.empty()) {
        p.transport = Transport::Iscsi;
        p.protocol = "scsi:iscsi";
        (void)sysfs_.readAttribute("class/iscsi_session/" + session + "/targetname",
                                   p.ids.nodeName);
    } else if (hostKind == Transport::Sas) {
        p.transport = Transport::Sas;
        p.protocol = "scsi:sas";
        if (!endDevice.empty()) {
            (void)sysfs_.readAttribute("class/sas_device/" + endDevice + "/sas_address",
                                       p.ids.targetWwpn);
            p.ids.nodeName = p.ids.targetWwpn;
        }
    }
}

int Discovery::discoverNvme(const std::string &blockDir, const std::string &deviceDir,
                            Path &p) const {
    p.transport = Transport::Nvme;
    p.vendor = "NVME";
    (void)sysfs_.readAttribute(deviceDir + "/model", p.product);
    (void)sysfs_.readAttribute(deviceDir + "/serial", p.serial);
    (void)sysfs_.readAttribute(deviceDir + "/firmware_rev", p.revision);
    std::string transport;
    if (sysfs_.readAttribute(deviceDir + "/transport", transport) == 0 && !transport.empty())
        p.protocol = "nvme:" + transport;
    else
        p.protocol = "nvme:unspec";
    std::string state;
    if (sysfs_.readAttribute(deviceDir + "/state", state) == 0)
        p.deviceState = nvmeState(state);
    else
        p.deviceState = DeviceState::Running; // a native multipath head has no state
    if (sysfs_.readAttribute(deviceDir + "/subsysnqn", p.ids.nodeName) < 0)
        (void)sysfs_.readAttribute(blockDir + "/subsysnqn", p.ids.nodeName);
    return 0;
}

} // namespace mpath
