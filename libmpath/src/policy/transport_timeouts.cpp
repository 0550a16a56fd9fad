#include "mpath/policy/transport_timeouts.h"

#include <cstdint>

namespace mpath::policy {

using config::NoPathRetry;
using config::OffOrNumber;
using config::Origin;
using model::Path;
using model::Transport;

namespace {

/// The FC transport's ceiling for dev_loss_tmo while fast_io_fail_tmo is
/// off (SCSI_DEVICE_BLOCK_MAX_TIMEOUT).
constexpr unsigned kFcDevLossWithoutFastIoFail = 600;

/// multipath-tools pads the time no_path_retry queues by one check of its
/// default interval.
constexpr uint64_t kCheckPadding = 5;

void note(std::vector<std::string> *notes, std::string text) {
    if (notes)
        notes->push_back(std::move(text));
}

std::string devLossText(unsigned s) {
    return s == kDevLossInfinity ? "infinity" : std::to_string(s);
}

} // namespace

TransportTimeouts transportTimeouts(const config::EffectiveSettings &settings,
                                    unsigned pollingInterval, std::vector<std::string> *notes) {
    TransportTimeouts t;
    t.fastIoFail = settings.fastIoFailTmo.value;
    // 0 is multipath-tools' "unset": the transport's own stays.
    if (settings.devLossTmo.origin != Origin::Builtin &&
        (settings.devLossTmo.value.infinity || settings.devLossTmo.value.seconds != 0)) {
        const config::DevLossTmo d = settings.devLossTmo.value;
        t.devLoss = d.infinity ? kDevLossInfinity : d.seconds;
        t.devLossConfigured = true;
    }
    if (settings.ehDeadline.origin != Origin::Builtin)
        t.ehDeadline = settings.ehDeadline.value;
    t.configured = settings.fastIoFailTmo.origin != Origin::Builtin || t.devLoss || t.ehDeadline;

    // A path must not vanish while no_path_retry still queues for it.
    const NoPathRetry npr = settings.noPathRetry.value;
    unsigned minDevLoss = 0;
    if (npr.kind == NoPathRetry::Kind::Retries) {
        uint64_t queued = uint64_t{npr.retries} * pollingInterval;
        queued += queued / 60 + kCheckPadding;
        minDevLoss = queued >= kDevLossInfinity ? kDevLossInfinity : static_cast<unsigned>(queued);
    } else if (npr.kind == NoPathRetry::Kind::Queue) {
        minDevLoss = kDevLossInfinity;
        t.queueForever = true;
    }
    if (!t.devLoss && minDevLoss) {
        t.devLoss = minDevLoss;
    } else if (t.devLoss && *t.devLoss < minDevLoss) {
        note(notes, "dev_loss_tmo raised from " + devLossText(*t.devLoss) + " to " +
                        devLossText(minDevLoss) + ": no_path_retry queues that long");
        t.devLoss = minDevLoss;
    }
    if (t.devLoss && !t.fastIoFail.off && t.fastIoFail.value > 0 &&
        t.fastIoFail.value >= *t.devLoss) {
        note(notes, "fast_io_fail_tmo " + std::to_string(t.fastIoFail.value) +
                        " turned off: it is not below dev_loss_tmo " + devLossText(*t.devLoss));
        t.fastIoFail = OffOrNumber::disabled();
    }
    return t;
}

namespace {

/// An NVMe over fabrics controller's: fast_io_fail_tmo and ctrl_loss_tmo.
/// Both take -1 for off and show "off".
std::vector<SysfsWrite> nvmeWrites(const TransportTimeouts &t, const Path &path,
                                   std::optional<unsigned> ctrlLoss,
                                   std::vector<std::string> *notes) {
    std::vector<SysfsWrite> out;
    const std::string dir = "class/nvme/" + path.ids.transportPort + "/";
    if (t.fastIoFail.off)
        out.push_back({dir + "fast_io_fail_tmo", "-1", "fast_io_fail_tmo", false, "off"});
    else
        out.push_back(
            {dir + "fast_io_fail_tmo", std::to_string(t.fastIoFail.value), "fast_io_fail_tmo"});
    if (!t.devLoss)
        return out;
    const unsigned want = *t.devLoss;
    if (!t.devLossConfigured) {
        // Asked for by no_path_retry only: the controller may stay longer.
        if (!ctrlLoss) {
            note(notes, path.kernelName + ": " + path.ids.transportPort +
                            "'s ctrl_loss_tmo cannot be read: it is not raised to outlast "
                            "no_path_retry (" +
                            devLossText(want) + " s)");
            return out;
        }
        if (*ctrlLoss >= want)
            return out;
    }
    if (want == kDevLossInfinity)
        out.push_back({dir + "ctrl_loss_tmo", "-1", "dev_loss_tmo", false, "off"});
    else if (want > static_cast<unsigned>(INT_MAX))
        note(notes, path.kernelName + ": dev_loss_tmo " + std::to_string(want) +
                        " is beyond what an NVMe controller's ctrl_loss_tmo takes");
    else
        out.push_back({dir + "ctrl_loss_tmo", std::to_string(want), "dev_loss_tmo"});
    return out;
}

} // namespace

std::string portDevLossAttribute(const Path &path) {
    if (path.ids.transportPort.empty())
        return {};
    if (path.transport == Transport::FibreChannel)
        return "class/fc_remote_ports/" + path.ids.transportPort + "/dev_loss_tmo";
    if (path.transport == Transport::Nvme)
        return "class/nvme/" + path.ids.transportPort + "/ctrl_loss_tmo";
    return {};
}

std::optional<unsigned> parsePortDevLoss(const std::string &text) {
    if (text == "off")
        return kDevLossInfinity;
    if (text.empty() || text.size() > 10 ||
        text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    const unsigned long v = std::stoul(text);
    if (v >= kDevLossInfinity)
        return std::nullopt;
    return static_cast<unsigned>(v);
}

std::vector<SysfsWrite> timeoutWrites(const TransportTimeouts &t, const Path &path,
                                      std::optional<unsigned> portDevLoss,
                                      std::vector<std::string> *notes) {
    std::vector<SysfsWrite> out;
    const std::string &name = path.kernelName;
    if (path.transport == Transport::Nvme && !path.ids.transportPort.empty())
        return nvmeWrites(t, path, portDevLoss, notes);
    const bool scsi = path.transport == Transport::Scsi || path.transport == Transport::Iscsi ||
                      path.transport == Transport::FibreChannel || path.transport == Transport::Sas;
    if (!scsi) {
        if (t.configured)
            note(notes, name +
                            ": transport timeouts apply to SCSI and NVMe over fabrics paths "
                            "only (this one is " +
                            (path.protocol.empty() ? std::string(model::toString(path.transport))
                                                   : path.protocol) +
                            ")");
        return out;
    }
    if (t.ehDeadline && !path.ids.scsiHost.empty())
        out.push_back({"class/scsi_host/" + path.ids.scsiHost + "/eh_deadline",
                       config::toString(*t.ehDeadline), "eh_deadline"});

    const std::string &port = path.ids.transportPort;
    std::optional<unsigned> devLoss = t.devLoss;
    switch (path.transport) {
    case Transport::FibreChannel: {
        if (port.empty())
            break;
        const std::string dir = "class/fc_remote_ports/" + port + "/";
        const OffOrNumber fast = t.fastIoFail;
        if (!fast.off && fast.value > 0) {
            if (!portDevLoss) {
                note(notes, name + ": " + port +
                                "'s dev_loss_tmo cannot be read: its timeouts are left alone");
                return out;
            }
            // fast_io_fail_tmo must stay below dev_loss_tmo at every step.
            if (fast.value >= *portDevLoss)
                out.push_back({dir + "dev_loss_tmo", std::to_string(fast.value + 1),
                               "fast_io_fail_tmo", true});
        } else if (devLoss && *devLoss > kFcDevLossWithoutFastIoFail && !t.queueForever) {
            note(notes, name + ": dev_loss_tmo limited to 600: fast_io_fail_tmo is " +
                            config::toString(fast));
            devLoss = kFcDevLossWithoutFastIoFail;
        }
        out.push_back({dir + "fast_io_fail_tmo", config::toString(fast), "fast_io_fail_tmo"});
        if (devLoss)
            out.push_back({dir + "dev_loss_tmo", std::to_string(*devLoss), "dev_loss_tmo"});
        break;
    }
    case Transport::Iscsi:
        if (port.empty())
            break;
        if (t.devLossConfigured)
            note(notes, name + ": dev_loss_tmo has no iSCSI counterpart; fast_io_fail_tmo sets "
                               "the session's recovery_tmo");
        if (t.fastIoFail.off || t.fastIoFail.value == 0) {
            if (t.configured)
                note(notes, name + ": an iSCSI session's recovery_tmo cannot be " +
                                config::toString(t.fastIoFail) + "; " + port + "'s stays");
            break;
        }
        out.push_back({"class/iscsi_session/" + port + "/recovery_tmo",
                       std::to_string(t.fastIoFail.value), "fast_io_fail_tmo"});
        break;
    case Transport::Sas:
        // multipath-tools writes dev_loss_tmo there and fails unseen.
        if (t.devLossConfigured)
            note(notes, name + ": dev_loss_tmo is not applied: a SAS end device's I_T nexus "
                               "loss timeout is read-only");
        break;
    default:
        if (t.configured && (t.devLoss || !t.fastIoFail.off))
            note(notes, name + ": fast_io_fail_tmo and dev_loss_tmo apply to FC, iSCSI and SAS "
                               "paths only (this one has no transport class)");
        break;
    }
    return out;
}

} // namespace mpath::policy
