#include "mpath/testing/sysfs_tree_builder.h"

#include <cerrno>
#include <fcntl.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace mpath::testing {

namespace {

std::string padded(const std::string &s, size_t width) {
    std::string out = s.substr(0, width);
    out.resize(width, ' ');
    return out;
}

std::string dirname(const std::string &p) {
    size_t slash = p.rfind('/');
    return slash == std::string::npos ? std::string{} : p.substr(0, slash);
}

// Relative link text from the directory holding \a from to \a to (both
// relative to the same root).
std::string relativeLink(const std::string &from, const std::string &to) {
    std::string dir = dirname(from);
    size_t depth = dir.empty() ? 0 : 1;
    for (char c : dir)
        depth += c == '/';
    std::string out;
    for (size_t i = 0; i < depth; ++i)
        out += "../";
    return out + to;
}

uint8_t hexValue(char c) {
    if (c >= '0' && c <= '9')
        return static_cast<uint8_t>(c - '0');
    if (c >= 'a' && c <= 'f')
        return static_cast<uint8_t>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F')
        return static_cast<uint8_t>(c - 'A' + 10);
    return 0;
}

Result<void> toResult(int r, const std::string &what) {
    if (r < 0)
        return Error::fromErrno(-r, what);
    return ok();
}

} // namespace

SysfsTreeBuilder::SysfsTreeBuilder(std::string directory)
    : sysRoot_(directory + "/sys"), udevDir_(directory + "/udev") {
    ::mkdir(directory.c_str(), 0755);
    ::mkdir(sysRoot_.c_str(), 0755);
    ::mkdir(udevDir_.c_str(), 0755);
}

int SysfsTreeBuilder::makeDirectories(const std::string &relative) {
    struct stat st {};
    if (::stat((sysRoot_ + "/" + relative).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    std::string path = sysRoot_;
    std::string_view rest(relative);
    while (!rest.empty()) {
        size_t slash = rest.find('/');
        path += '/';
        path += rest.substr(0, slash);
        if (::mkdir(path.c_str(), 0755) < 0 && errno != EEXIST)
            return -errno;
        if (slash == std::string_view::npos)
            break;
        rest.remove_prefix(slash + 1);
    }
    return 0;
}

int SysfsTreeBuilder::writeBinary(const std::string &relative, const std::vector<uint8_t> &data) {
    if (int r = makeDirectories(dirname(relative)); r < 0)
        return r;
    std::string path = sysRoot_ + "/" + relative;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0) {
            int r = -errno;
            ::close(fd);
            return r;
        }
        done += static_cast<size_t>(n);
    }
    return ::close(fd) < 0 ? -errno : 0;
}

int SysfsTreeBuilder::writeFile(const std::string &relative, const std::string &content) {
    return writeBinary(relative, std::vector<uint8_t>(content.begin(), content.end()));
}

int SysfsTreeBuilder::symlink(const std::string &target, const std::string &relative) {
    if (int r = makeDirectories(dirname(relative)); r < 0)
        return r;
    std::string path = sysRoot_ + "/" + relative;
    ::unlink(path.c_str());
    if (::symlink(relativeLink(relative, target).c_str(), path.c_str()) < 0)
        return -errno;
    return 0;
}

Result<void> SysfsTreeBuilder::writeUdevProperties(const std::string &name,
                                                   const discovery::UdevPropertyMap &props) {
    std::string text;
    for (const auto &[k, v] : props)
        text += k + "=" + v + "\n";
    std::string path = udevDir_ + "/" + name;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return Error::fromErrno(errno, path);
    ssize_t n = ::write(fd, text.data(), text.size());
    int r = n == static_cast<ssize_t>(text.size()) ? 0 : -EIO;
    if (::close(fd) < 0 && r == 0)
        r = -errno;
    return toResult(r, path);
}

Result<void> SysfsTreeBuilder::addScsiDisk(const ScsiDisk &d) {
    const std::string h = std::to_string(d.host);
    const std::string hct = h + ":" + std::to_string(d.channel) + ":" + std::to_string(d.target);
    const std::string hctl = hct + ":" + std::to_string(d.lun);
    std::string hostDir = "devices/platform/host" + h;
    std::string targetParent = hostDir;
    if (d.hostKind == HostKind::FibreChannel)
        targetParent = hostDir + "/rport-" + h + ":0-" + std::to_string(d.target);
    else if (d.hostKind == HostKind::Iscsi)
        targetParent = hostDir + "/session" + std::to_string(d.iscsiSession);
    else if (d.hostKind == HostKind::Sas)
        targetParent = hostDir + "/port-" + h + ":" + std::to_string(d.target) + "/end_device-" +
                       h + ":" + std::to_string(d.target);
    const std::string devDir = targetParent + "/target" + hct + "/" + hctl;
    const std::string blockDir = devDir + "/block/" + d.name;

    int r = 0;
    auto w = [&](const std::string &rel, const std::string &content) {
        if (r == 0)
            r = writeFile(rel, content);
    };
    w(blockDir + "/dev", std::to_string(d.major) + ":" + std::to_string(d.minor) + "\n");
    w(blockDir + "/size", std::to_string(d.sizeSectors) + "\n");
    w(devDir + "/vendor", padded(d.vendor, 8) + "\n");
    w(devDir + "/model", padded(d.model, 16) + "\n");
    w(devDir + "/rev", padded(d.revision, 4) + "\n");
    w(devDir + "/state", d.state + "\n");
    if (!d.accessState.empty())
        w(devDir + "/access_state", d.accessState + "\n");
    if (!d.dhState.empty())
        w(devDir + "/dh_state", d.dhState + "\n");
    if (d.preferredPath >= 0)
        w(devDir + "/preferred_path", std::to_string(d.preferredPath) + "\n");
    if (r == 0 && !d.vpdPage83.empty())
        r = writeBinary(devDir + "/vpd_pg83", d.vpdPage83);
    if (r == 0 && !d.vpdPage80.empty())
        r = writeBinary(devDir + "/vpd_pg80", d.vpdPage80);
    if (r == 0 && d.tpgs >= 0)
        r = writeBinary(devDir + "/inquiry",
                        inquiry(d.vendor, d.model, d.revision, static_cast<unsigned>(d.tpgs)));
    if (r == 0)
        r = symlink(devDir, blockDir + "/device");
    if (r == 0)
        r = symlink(blockDir, "block/" + d.name);
    if (r == 0 && d.hostKind == HostKind::FibreChannel) {
        w("class/fc_host/host" + h + "/node_name", d.hostWwnn + "\n");
        w("class/fc_host/host" + h + "/port_name", d.hostWwpn + "\n");
        w("class/fc_transport/target" + hct + "/node_name", d.targetWwnn + "\n");
        w("class/fc_transport/target" + hct + "/port_name", d.targetWwpn + "\n");
    } else if (r == 0 && d.hostKind == HostKind::Iscsi) {
        w("class/iscsi_session/session" + std::to_string(d.iscsiSession) + "/targetname",
          d.iscsiTarget + "\n");
    } else if (r == 0 && d.hostKind == HostKind::Sas) {
        if (r == 0)
            r = makeDirectories("class/sas_host/host" + h);
        w("class/sas_device/end_device-" + h + ":" + std::to_string(d.target) + "/sas_address",
          d.sasAddress + "\n");
    }
    if (r < 0)
        return toResult(r, "SCSI disk " + d.name);
    if (!d.udev.empty())
        return writeUdevProperties(d.name, d.udev);
    return ok();
}

Result<void> SysfsTreeBuilder::addNvmeNamespace(const NvmeNamespace &n) {
    const std::string ctrl = "nvme" + std::to_string(n.controller);
    const std::string ctrlDir =
        "devices/pci0000:00/0000:00:0" + std::to_string(n.controller) + ".0/nvme/" + ctrl;
    const std::string nsDir = ctrlDir + "/" + n.name;
    int r = 0;
    auto w = [&](const std::string &rel, const std::string &content) {
        if (r == 0 && !content.empty())
            r = writeFile(rel, content + "\n");
    };
    w(ctrlDir + "/model", n.model);
    w(ctrlDir + "/serial", n.serial);
    w(ctrlDir + "/firmware_rev", n.firmwareRevision);
    w(ctrlDir + "/transport", n.transport);
    w(ctrlDir + "/state", n.state);
    w(ctrlDir + "/subsysnqn", n.subsysnqn);
    if (n.kato != 0)
        w(ctrlDir + "/kato", std::to_string(n.kato));
    w(nsDir + "/dev", std::to_string(n.major) + ":" + std::to_string(n.minor));
    w(nsDir + "/size", std::to_string(n.sizeSectors));
    w(nsDir + "/nsid", std::to_string(n.nsid));
    w(nsDir + "/wwid", n.wwid);
    w(nsDir + "/uuid", n.uuid);
    w(nsDir + "/nguid", n.nguid);
    w(nsDir + "/eui", n.eui);
    w(nsDir + "/ana_state", n.anaState);
    if (n.anaGroupId != 0)
        w(nsDir + "/ana_grpid", std::to_string(n.anaGroupId));
    if (r == 0)
        r = symlink(ctrlDir, nsDir + "/device");
    if (r == 0)
        r = symlink(nsDir, "block/" + n.name);
    if (r < 0)
        return toResult(r, "NVMe namespace " + n.name);
    if (!n.udev.empty())
        return writeUdevProperties(n.name, n.udev);
    return ok();
}

Result<void> SysfsTreeBuilder::addVirtualDisk(const std::string &name, unsigned major,
                                              unsigned minor) {
    const std::string dir = "devices/virtual/block/" + name;
    int r = writeFile(dir + "/dev", std::to_string(major) + ":" + std::to_string(minor) + "\n");
    if (r == 0)
        r = writeFile(dir + "/size", "0\n");
    if (r == 0)
        r = symlink(dir, "block/" + name);
    return toResult(r, "virtual disk " + name);
}

std::vector<uint8_t> SysfsTreeBuilder::naaPage83(const std::string &hex, int targetPortGroup) {
    std::vector<uint8_t> id;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        id.push_back(static_cast<uint8_t>(hexValue(hex[i]) << 4 | hexValue(hex[i + 1])));
    std::vector<uint8_t> body;
    body.push_back(0x01); // binary
    body.push_back(0x03); // logical unit, NAA
    body.push_back(0x00);
    body.push_back(static_cast<uint8_t>(id.size()));
    body.insert(body.end(), id.begin(), id.end());
    if (targetPortGroup >= 0) {
        body.insert(body.end(),
                    {0x01, 0x15, 0x00, 0x04, 0x00, 0x00, static_cast<uint8_t>(targetPortGroup >> 8),
                     static_cast<uint8_t>(targetPortGroup & 0xff)});
    }
    std::vector<uint8_t> page{0x00, 0x83, static_cast<uint8_t>(body.size() >> 8),
                              static_cast<uint8_t>(body.size() & 0xff)};
    page.insert(page.end(), body.begin(), body.end());
    return page;
}

std::vector<uint8_t> SysfsTreeBuilder::page80(const std::string &serial) {
    std::vector<uint8_t> page(4 + serial.size());
    page[1] = 0x80;
    page[3] = static_cast<uint8_t>(serial.size());
    for (size_t i = 0; i < serial.size(); ++i)
        page[4 + i] = static_cast<uint8_t>(serial[i]);
    return page;
}

std::vector<uint8_t> SysfsTreeBuilder::inquiry(const std::string &vendor, const std::string &model,
                                               const std::string &revision, unsigned tpgs) {
    // Direct access device, SPC-4, response data format 2, 31 more bytes.
    std::vector<uint8_t> data{0x00, 0x00, 0x06, 0x02, 31, static_cast<uint8_t>((tpgs & 0x3) << 4),
                              0x00, 0x02};
    const std::string text = padded(vendor, 8) + padded(model, 16) + padded(revision, 4);
    data.insert(data.end(), text.begin(), text.end());
    return data;
}

} // namespace mpath::testing
