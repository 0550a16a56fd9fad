// mpathpersist, as multipath-tools 0.9.4's: SCSI-3 persistent reservation
// commands on a multipath map, sent through its paths. PR IN goes to the
// first usable path (the next one when it fails); REGISTER and REGISTER AND
// IGNORE EXISTING KEY to every usable path (one per SCSI host with
// --param-alltgpt), a REGISTER that meets a reservation conflict on one
// path undone on the others; RESERVE, PREEMPT, PREEMPT AND ABORT and CLEAR
// to the first usable path; RELEASE to all. A path is usable when
// device-mapper has it active (mpathd fails the paths its checker finds
// down). Output, messages and exit codes are multipath-tools' (its
// MPATH_PR_* statuses), so scripts and fence agents read them unchanged.

#include "mpath/dm/status.h"
#include "mpath/model/map.h"
#include "mpath/scsi/persistent_reservation.h"
#include "mpath/sys/device_io.h"
#include "mpath/sys/device_mapper_lib.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <getopt.h>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

#ifndef MPATH_VERSION_STRING
#define MPATH_VERSION_STRING "unknown"
#endif
#ifndef MPATH_COMPAT_LEVEL
#define MPATH_COMPAT_LEVEL "0.9.4"
#endif

namespace {

using namespace mpath::scsi;
using namespace std::chrono_literals;

constexpr auto kTimeout = 2000ms; // multipath-tools' PR command timeout
constexpr int kRetries = 5;       // resends on one path (unit attention, becoming ready)

void usage() {
    std::fprintf(stderr,
                 "mpath %s: multipath-tools v%s commands, served by mpathd\n"
                 "Usage: mpathpersist [OPTIONS] [DEVICE]\n"
                 " Options:\n"
                 "    --verbose|-v level         verbosity (0 to 3)\n"
                 "    --device=DEVICE|-d DEVICE  the map: /dev/mapper/NAME or /dev/dm-N\n"
                 "    --help|-h                  this message\n"
                 "    --hex|-H                   not served: the decoded answer only\n"
                 "    --in|-i                    PERSISTENT RESERVE IN, one of:\n"
                 "      --read-keys|-k           registered keys\n"
                 "      --read-reservation|-r    the reservation\n"
                 "      --read-full-status|-s    registrations with their ports\n"
                 "      --report-capabilities|-c what the device supports\n"
                 "      --alloc-length=LEN|-l LEN  allocation length (at most 8192)\n"
                 "    --out|-o                   PERSISTENT RESERVE OUT, one of:\n"
                 "      --register|-G            register (or change, or remove) a key\n"
                 "      --register-ignore|-I     register, ignoring the key registered\n"
                 "      --reserve|-R             reserve\n"
                 "      --release|-L             release\n"
                 "      --clear|-C               clear every registration\n"
                 "      --preempt|-P             preempt\n"
                 "      --preempt-abort|-A       preempt and abort\n"
                 "      --param-rk=RK|-K RK      reservation key (hex)\n"
                 "      --param-sark=SARK|-S SARK  service action reservation key (hex)\n"
                 "      --prout-type=TYPE|-T TYPE  reservation type (hex): 1 WE, 3 EA,\n"
                 "                               5 WE-RO, 6 EA-RO, 7 WE-AR, 8 EA-AR\n"
                 "      --param-alltgpt|-Y       all target ports\n"
                 "      --param-aptpl|-Z         persist through power loss\n"
                 "    --transport-id|-X, --batch-file|-f  not served by mpath\n",
                 MPATH_VERSION_STRING, MPATH_COMPAT_LEVEL);
}

/// A path of the map, in table order.
struct PathDevice {
    std::string node; ///< /dev/sdX
    bool usable{false};
    int host{-1}; ///< SCSI host number (the initiator port)
};

struct Options {
    bool in{false}, out{false};
    std::vector<PrIn> inActions;
    std::vector<PrOut> outActions;
    uint64_t key{0}, serviceActionKey{0};
    unsigned type{0};
    bool allTargetPorts{false}, aptpl{false}, hex{false};
    int verbosity{0};
    unsigned allocationLength{0};
    std::string device;
};

int g_verbosity = 0;

bool parseHex64(const char *text, uint64_t &out) {
    return std::sscanf(text, "%" SCNx64, &out) == 1;
}

/// The SCSI host of /dev/sdX (the first number of its H:C:T:L).
int scsiHost(const std::string &kernelName) {
    std::error_code ec;
    const auto target =
        std::filesystem::read_symlink("/sys/block/" + kernelName + "/device", ec).filename();
    int host = -1;
    if (!ec && std::sscanf(target.c_str(), "%d:", &host) == 1)
        return host;
    return -1;
}

/// The paths of the multipath map at \a device, or the status to exit with.
int mapPaths(const std::string &device, std::string &name, std::vector<PathDevice> &paths) {
    const int fd = ::open(device.c_str(), O_RDONLY);
    if (fd < 0)
        return PrFileError;
    struct stat st {};
    const int r = ::fstat(fd, &st);
    ::close(fd);
    if (r != 0 || !S_ISBLK(st.st_mode)) {
        std::fprintf(stderr, "%s: not a block device\n", device.c_str());
        return PrFileError;
    }
    const std::string devt =
        std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
    std::ifstream nameFile("/sys/dev/block/" + devt + "/dm/name");
    if (!std::getline(nameFile, name) || name.empty()) {
        std::fprintf(stderr, "%s failed to get device alias.\n", devt.c_str());
        return PrDmError;
    }
    mpath::sys::DeviceMapperLib dm;
    auto status = dm.status(name);
    if (!status) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), status.error().message.c_str());
        return PrDmError;
    }
    for (const auto &line : *status) {
        if (line.type != "multipath" && line.type != "lmpath") {
            std::fprintf(stderr, "%s: not a multipath device.\n", name.c_str());
            return PrDmError;
        }
        mpath::model::Map parsed;
        if (auto ok = mpath::dm::parseStatus(line.params, parsed); !ok) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), ok.error().message.c_str());
            return PrDmError;
        }
        for (const auto &g : parsed.groups)
            for (const auto &p : g.paths) {
                std::error_code ec;
                const auto kernel = std::filesystem::read_symlink(
                                        "/sys/dev/block/" + std::to_string(major(p.devt)) + ":" +
                                            std::to_string(minor(p.devt)),
                                        ec)
                                        .filename()
                                        .string();
                if (ec || kernel.empty())
                    continue;
                paths.push_back({"/dev/" + kernel, p.dmState == mpath::model::DmPathState::Active,
                                 scsiHost(kernel)});
            }
    }
    if (std::none_of(paths.begin(), paths.end(), [](const PathDevice &p) { return p.usable; })) {
        std::fprintf(stderr, "%s: no path available\n", name.c_str());
        return PrDmError;
    }
    return PrSuccess;
}

/// One command on one path, sent again on a unit attention.
int send(const std::string &node, std::span<const uint8_t> cdb, std::span<const uint8_t> out,
         std::span<uint8_t> in) {
    const int fd = ::open(node.c_str(), O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        std::fprintf(stderr, "%s: cannot open: %s\n", node.c_str(), std::strerror(errno));
        return PrFileError;
    }
    int result = PrOther;
    for (int attempt = 0; attempt <= kRetries; ++attempt) {
        auto c = out.empty() ? mpath::sys::sgIo(fd, cdb, in, kTimeout)
                             : mpath::sys::sgIoOut(fd, cdb, out, kTimeout);
        if (!c) {
            std::fprintf(stderr, "%s: %s\n", node.c_str(), c.error().message.c_str());
            result = PrOther;
            break;
        }
        result = prStatus(*c);
        if (!retryOnSamePath(*c))
            break;
        if (result == PrNotReady)
            ::usleep(1000);
    }
    ::close(fd);
    if (g_verbosity >= 3)
        std::fprintf(stderr, "%s: status %d\n", node.c_str(), result);
    return result;
}

int prIn(const Options &o, const std::vector<PathDevice> &paths) {
    const PrIn sa = o.inActions.front();
    const uint16_t length =
        o.allocationLength ? uint16_t(o.allocationLength) : defaultAllocationLength(sa);
    std::vector<uint8_t> data(std::max<size_t>(length, 8192), 0);
    const auto cdb = prInCdb(sa, length);
    int status = PrDmError;
    for (const auto &p : paths) {
        if (!p.usable)
            continue;
        std::fill(data.begin(), data.end(), 0);
        status = send(p.node, cdb, {}, std::span<uint8_t>(data.data(), length));
        if (status == PrSuccess)
            break;
    }
    if (status != PrSuccess) {
        std::fprintf(stderr, "Persistent Reserve IN command failed\n");
        return status;
    }
    if (sa == PrIn::ReportCapabilities && ((unsigned(data[0]) << 8) | data[1]) <= 2)
        std::fprintf(stderr, "Unexpected response for PRIN Report Capabilities\n");
    std::fputs(formatPrIn(sa, data).c_str(), stdout);
    return PrSuccess;
}

/// Sends one PR OUT to each of \a targets at once; their statuses in order.
std::vector<int> sendAll(const std::vector<const PathDevice *> &targets, PrOut sa, uint8_t type,
                         const PrOutParameters &params) {
    const auto data = encode(params);
    const auto cdb = prOutCdb(sa, type, uint16_t(data.size()));
    std::vector<int> statuses(targets.size(), PrOther);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < targets.size(); ++i) {
        try {
            threads.emplace_back([&, i] { statuses[i] = send(targets[i]->node, cdb, data, {}); });
        } catch (const std::system_error &e) {
            std::fprintf(stderr, "%s: cannot start a thread: %s\n", targets[i]->node.c_str(),
                         e.what());
            statuses[i] = PrThreadError;
        }
    }
    for (auto &t : threads)
        t.join();
    return statuses;
}

int registerKey(const Options &o, PrOut sa, const std::vector<PathDevice> &paths) {
    std::vector<const PathDevice *> targets;
    std::vector<int> hosts;
    for (const auto &p : paths) {
        if (!p.usable)
            continue;
        // All target ports: one registration per initiator port.
        if (o.allTargetPorts && p.host >= 0 &&
            std::find(hosts.begin(), hosts.end(), p.host) != hosts.end())
            continue;
        hosts.push_back(p.host);
        targets.push_back(&p);
    }
    PrOutParameters params{o.key, o.serviceActionKey, o.allTargetPorts, o.aptpl};
    const auto statuses = sendAll(targets, sa, uint8_t(o.type), params);
    int status = PrSuccess;
    bool conflict = false;
    for (int s : statuses) {
        if (s == PrReservationConflict)
            conflict = true;
        else if (status == PrSuccess)
            status = s;
    }
    if (!conflict)
        return status;
    // A new key that some path refused: taken back where it was accepted.
    if (sa == PrOut::Register && o.serviceActionKey != 0) {
        std::vector<const PathDevice *> undo;
        for (size_t i = 0; i < targets.size(); ++i)
            if (statuses[i] == PrSuccess)
                undo.push_back(targets[i]);
        if (!undo.empty()) {
            std::fprintf(stderr,
                         "reservation conflict on a path: unregistering 0x%" PRIx64
                         " from the %zu paths that took it\n",
                         o.serviceActionKey, undo.size());
            // The same flags: LIO refuses to unregister an ALL_TG_PT
            // registration without the bit, and APTPL off would end
            // persistence for the whole LU.
            sendAll(undo, PrOut::Register, uint8_t(o.type),
                    {o.serviceActionKey, 0, o.allTargetPorts, o.aptpl});
        }
    }
    return PrReservationConflict;
}

int prOut(const Options &o, const std::string &name, const std::vector<PathDevice> &paths) {
    const PrOut sa = o.outActions.front();
    // multipath-tools refuses a command whose two keys are both set unless
    // one is the configured reservation_key; mpath configures none (0).
    if (o.key != 0 && o.serviceActionKey != 0) {
        std::fprintf(stderr, "%s: configured reservation key doesn't match: 0x0\n", name.c_str());
        return PrSyntaxError;
    }
    switch (sa) {
    case PrOut::Register:
    case PrOut::RegisterIgnore:
        return registerKey(o, sa, paths);
    case PrOut::Release: {
        std::vector<const PathDevice *> targets;
        for (const auto &p : paths)
            if (p.usable)
                targets.push_back(&p);
        sendAll(targets, sa, uint8_t(o.type), {o.key, o.serviceActionKey, false, o.aptpl});
        // Released through whichever path holds it: is it gone?
        std::vector<uint8_t> data(24, 0);
        int status = PrDmError;
        for (const auto *p : targets)
            if ((status = send(p->node, prInCdb(PrIn::ReadReservation, 24), {}, data)) == PrSuccess)
                break;
        if (status != PrSuccess) {
            std::fprintf(stderr, "%s: pr in read reservation command failed.\n", name.c_str());
            return PrOther;
        }
        if (((uint32_t(data[4]) << 24) | (uint32_t(data[5]) << 16) | (uint32_t(data[6]) << 8) |
             data[7]) /
                8 ==
            0)
            return PrSuccess;
        std::fprintf(stderr,
                     "%s: the reservation is still held after a release on every usable path\n",
                     name.c_str());
        return PrReservationConflict;
    }
    case PrOut::Reserve:
    case PrOut::Clear:
    case PrOut::Preempt:
    case PrOut::PreemptAbort:
        for (const auto &p : paths)
            if (p.usable)
                return sendAll({&p}, sa, uint8_t(o.type),
                               {o.key, o.serviceActionKey, o.allTargetPorts, o.aptpl})
                    .front();
        return PrDmError;
    }
    return PrOther;
}

int syntaxError() {
    usage();
    return PrSyntaxError;
}

} // namespace

int main(int argc, char **argv) {
    if (argc == 1) {
        std::fprintf(stderr, "No parameter used\n");
        usage();
        return 1;
    }
    if (::getuid() != 0) {
        std::fprintf(stderr, "need to be root\n");
        return 1;
    }
    static const option options[] = {
        {"verbose", required_argument, nullptr, 'v'},
        {"clear", no_argument, nullptr, 'C'},
        {"device", required_argument, nullptr, 'd'},
        {"batch-file", required_argument, nullptr, 'f'},
        {"help", no_argument, nullptr, 'h'},
        {"hex", no_argument, nullptr, 'H'},
        {"in", no_argument, nullptr, 'i'},
        {"out", no_argument, nullptr, 'o'},
        {"param-alltgpt", no_argument, nullptr, 'Y'},
        {"param-aptpl", no_argument, nullptr, 'Z'},
        {"param-rk", required_argument, nullptr, 'K'},
        {"param-sark", required_argument, nullptr, 'S'},
        {"preempt", no_argument, nullptr, 'P'},
        {"preempt-abort", no_argument, nullptr, 'A'},
        {"prout-type", required_argument, nullptr, 'T'},
        {"read-full-status", no_argument, nullptr, 's'},
        {"read-keys", no_argument, nullptr, 'k'},
        {"read-reservation", no_argument, nullptr, 'r'},
        {"register", no_argument, nullptr, 'G'},
        {"register-ignore", no_argument, nullptr, 'I'},
        {"release", no_argument, nullptr, 'L'},
        {"report-capabilities", no_argument, nullptr, 'c'},
        {"reserve", no_argument, nullptr, 'R'},
        {"transport-id", required_argument, nullptr, 'X'},
        {"alloc-length", required_argument, nullptr, 'l'},
        {nullptr, 0, nullptr, 0},
    };
    Options o;
    int c;
    while ((c = getopt_long(argc, argv, "v:Cd:hHioYZK:S:PAT:skrGILcRX:l:f:", options, nullptr)) !=
           -1) {
        switch (c) {
        case 'v':
            if (std::sscanf(optarg, "%d", &o.verbosity) != 1) {
                std::fprintf(stderr, "bad argument to '--verbose'\n");
                return syntaxError();
            }
            break;
        case 'C':
            o.outActions.push_back(PrOut::Clear);
            break;
        case 'd':
            o.device = optarg;
            break;
        case 'f':
        case 'X':
            std::fprintf(stderr, "mpathpersist: --%s is not served by mpath\n",
                         c == 'f' ? "batch-file" : "transport-id");
            return syntaxError();
        case 'h':
            usage();
            return 0;
        case 'H':
            o.hex = true;
            break;
        case 'i':
            o.in = true;
            break;
        case 'o':
            o.out = true;
            break;
        case 'Y':
            o.allTargetPorts = true;
            break;
        case 'Z':
            o.aptpl = true;
            break;
        case 'K':
            if (!parseHex64(optarg, o.key)) {
                std::fprintf(stderr, "bad argument to '--param-rk'\n");
                return syntaxError();
            }
            break;
        case 'S':
            if (!parseHex64(optarg, o.serviceActionKey)) {
                std::fprintf(stderr, "bad argument to '--param-sark'\n");
                return syntaxError();
            }
            break;
        case 'P':
            o.outActions.push_back(PrOut::Preempt);
            break;
        case 'A':
            o.outActions.push_back(PrOut::PreemptAbort);
            break;
        case 'T':
            if (std::sscanf(optarg, "%x", &o.type) != 1) {
                std::fprintf(stderr, "bad argument to '--prout-type'\n");
                return syntaxError();
            }
            break;
        case 's':
            o.inActions.push_back(PrIn::ReadFullStatus);
            break;
        case 'k':
            o.inActions.push_back(PrIn::ReadKeys);
            break;
        case 'r':
            o.inActions.push_back(PrIn::ReadReservation);
            break;
        case 'G':
            o.outActions.push_back(PrOut::Register);
            break;
        case 'I':
            o.outActions.push_back(PrOut::RegisterIgnore);
            break;
        case 'L':
            o.outActions.push_back(PrOut::Release);
            break;
        case 'c':
            o.inActions.push_back(PrIn::ReportCapabilities);
            break;
        case 'R':
            o.outActions.push_back(PrOut::Reserve);
            break;
        case 'l':
            if (std::sscanf(optarg, "%u", &o.allocationLength) != 1) {
                std::fprintf(stderr, "bad argument to '--alloc-length'\n");
                return syntaxError();
            }
            if (o.allocationLength > 8192) {
                std::fprintf(stderr, "'--alloc-length' argument exceeds maximum limit(8192)\n");
                return syntaxError();
            }
            break;
        default:
            std::fprintf(stderr, "unrecognised switch code 0x%x ??\n", unsigned(c));
            return syntaxError();
        }
    }
    bool extra = false;
    for (int i = optind; i < argc; ++i) {
        if (o.device.empty()) {
            o.device = argv[i];
            continue;
        }
        std::fprintf(stderr, "Unexpected extra argument: %s\n", argv[i]);
        extra = true;
    }
    if (extra)
        return syntaxError();
    g_verbosity = std::min(o.verbosity, 3);
    if (o.hex)
        std::fprintf(stderr, "mpathpersist: --hex is not served: the decoded answer only\n");
    if (o.in == o.out) {
        std::fprintf(stderr, "choose either '--in' or '--out' \n");
        return syntaxError();
    }
    if (o.out && (o.outActions.size() != 1 || !o.inActions.empty())) {
        std::fprintf(stderr, " For Persistent Reserve Out only one appropriate\n"
                             " service action must be chosen \n");
        return syntaxError();
    }
    if (o.in) {
        if (!o.outActions.empty()) {
            std::fprintf(stderr, " When a service action for Persistent Reserve Out is chosen "
                                 "the\n '--out' option must be given \n");
            return syntaxError();
        }
        if (o.inActions.empty()) {
            std::fprintf(stderr, " No service action given for Persistent Reserve IN\n");
            return syntaxError();
        }
        if (o.inActions.size() > 1) {
            std::fprintf(stderr, " Too many service actions given; choose one only\n");
            return syntaxError();
        }
    }
    if (o.out && o.type == 0) {
        const PrOut sa = o.outActions.front();
        if (sa == PrOut::Reserve || sa == PrOut::Release || sa == PrOut::Preempt ||
            sa == PrOut::PreemptAbort)
            std::fprintf(stderr, "Warning: --prout-type probably needs to be given\n");
    }
    if (o.device.empty()) {
        std::fprintf(stderr, "No device name given \n");
        return syntaxError();
    }

    if (const int fd = ::open(o.device.c_str(), O_RDONLY); fd < 0) {
        std::fprintf(stderr, "%s: error opening file (rw) fd=%d\n", o.device.c_str(), fd);
        return PrFileError;
    } else {
        ::close(fd);
    }
    std::string name;
    std::vector<PathDevice> paths;
    int status = mapPaths(o.device, name, paths);
    if (o.in) {
        if (status == PrSuccess)
            return prIn(o, paths);
        std::fprintf(stderr, "Persistent Reserve IN command failed\n");
        return status;
    }
    if (status == PrSuccess)
        status = prOut(o, name, paths);
    if (status != PrSuccess) {
        if (status == PrUnitAttention)
            std::printf("persistent reserve out: scsi status: Unit Attention\n");
        else if (status == PrReservationConflict)
            std::printf("persistent reserve out: scsi status: Reservation Conflict\n");
        std::printf("PR out: command failed\n");
        if (status == PrSyntaxError)
            usage();
    }
    return status;
}
