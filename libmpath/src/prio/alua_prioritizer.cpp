#include "prio/alua_prioritizer.h"

#include "mpath/prio.h"
#include "mpath/vpd.h"
#include "prio/bounded_call.h"
#include "prio/sysfs_prioritizer.h"

#include <array>
#include <cerrno>
#include <memory>

namespace mpath {

namespace {

constexpr uint32_t kReplyLength = 4096;

} // namespace

AluaPrioritizer::AluaPrioritizer(PrioritizerContext context, bool exclusivePreferred)
    : context_(std::move(context)), exclusivePreferred_(exclusivePreferred) {}

// A binary attribute of the path's SCSI device in sysfs.
int AluaPrioritizer::readDeviceAttribute(const Path &path, const std::string &name,
                                         std::vector<uint8_t> &data) const {
    std::string device;
    if (int r = context_.sysfs.resolve("block/" + path.kernelName + "/device", device); r < 0)
        return r;
    return context_.sysfs.readBinary(device + "/" + name, data);
}

int AluaPrioritizer::targetPortGroup(const Path &path) const {
    if (path.ids.targetPortGroup >= 0)
        return path.ids.targetPortGroup;
    std::vector<uint8_t> page;
    if (int r = readDeviceAttribute(path, "vpd_pg83", page); r < 0)
        return r;
    return Vpd::targetPortGroupFromPage83(page);
}

// The TPGS field of the standard INQUIRY data the kernel keeps in sysfs,
// as discovery found it or read now.
int AluaPrioritizer::targetPortGroupSupport(const Path &path) const {
    if (path.tpgs >= 0)
        return path.tpgs;
    std::vector<uint8_t> inquiry;
    if (int r = readDeviceAttribute(path, "inquiry", inquiry); r < 0)
        return r;
    return Vpd::targetPortGroupSupport(inquiry);
}

int AluaPrioritizer::priority(const Path &path) const {
    // Like multipath-tools, ask only a device that claims ALUA support;
    // others have no port group states to report. Without the inquiry
    // attribute support is unknown and the device is asked.
    if (targetPortGroupSupport(path) == 0)
        return -EOPNOTSUPP;
    int rtpgError = -ENODATA;
    int group = targetPortGroup(path);
    if (group >= 0 && context_.scsiCommand) {
        // MAINTENANCE IN / REPORT TARGET PORT GROUPS, basic header format.
        const std::array<uint8_t, 12> cdb{0xa3,
                                          0x0a,
                                          0,
                                          0,
                                          0,
                                          0,
                                          uint8_t(kReplyLength >> 24),
                                          uint8_t(kReplyLength >> 16),
                                          uint8_t(kReplyLength >> 8),
                                          uint8_t(kReplyLength),
                                          0,
                                          0};
        auto reply = std::make_shared<std::vector<uint8_t>>(kReplyLength);
        auto send = context_.scsiCommand;
        auto timeout = context_.timeout;
        std::string name = path.kernelName;
        rtpgError = runBounded(
            [send, name, cdb, reply, timeout] { return send(name, cdb, *reply, timeout); },
            timeout);
        if (rtpgError == 0) {
            uint8_t state = 0;
            bool preferred = false;
            rtpgError = Prio::parseRtpg(*reply, static_cast<unsigned>(group), state, preferred);
            if (rtpgError == 0)
                return Prio::fromAluaState(state, preferred, exclusivePreferred_);
        }
    }
    int r = SysfsPrioritizer::fromSysfs(context_.sysfs, path, exclusivePreferred_);
    return r >= 0 ? r : (rtpgError != -ENODATA ? rtpgError : r);
}

} // namespace mpath
