#include "mpath/checkers/scsi_sense.h"

#include <cstdio>

namespace mpath::checkers {

namespace {

using model::CheckerState;

// Host bytes (include/scsi/scsi_status.h), not all exported to userspace.
constexpr uint16_t didOk = 0x00;
constexpr uint16_t didBusBusy = 0x02;
constexpr uint16_t didReset = 0x08;
constexpr uint16_t didSoftError = 0x0b;
constexpr uint16_t didImmRetry = 0x0c;
constexpr uint16_t didRequeue = 0x0d;
constexpr uint16_t didTransportDisrupted = 0x0e;

constexpr uint16_t driverSense = 0x08;

constexpr uint8_t statusGood = 0x00;
constexpr uint8_t statusCheckCondition = 0x02;
constexpr uint8_t statusBusy = 0x08;
constexpr uint8_t statusTaskSetFull = 0x28;

std::string hex(const char *what, unsigned v) {
    char buf[48];
    snprintf(buf, sizeof(buf), "%s 0x%02x", what, v);
    return buf;
}

std::string senseText(const ScsiSense &s) {
    char buf[32];
    snprintf(buf, sizeof(buf), "sense %x/%02x/%02x", s.key, s.asc, s.ascq);
    return buf;
}

} // namespace

ScsiSense ScsiSense::parse(const std::vector<uint8_t> &sense) {
    ScsiSense s;
    if (sense.empty())
        return s;
    uint8_t code = sense[0] & 0x7f;
    if ((code == 0x70 || code == 0x71) && sense.size() >= 3) {
        s.valid = true;
        s.key = sense[2] & 0x0f;
        if (sense.size() >= 14) {
            s.asc = sense[12];
            s.ascq = sense[13];
        }
    } else if ((code == 0x72 || code == 0x73) && sense.size() >= 4) {
        s.valid = true;
        s.key = sense[1] & 0x0f;
        s.asc = sense[2];
        s.ascq = sense[3];
    }
    return s;
}

CheckOutcome decodeScsiCompletion(const sys::ScsiCompletion &c, bool &retry) {
    retry = false;
    if (c.hostStatus != didOk) {
        switch (c.hostStatus) {
        case didBusBusy:
        case didReset:
        case didSoftError:
        case didImmRetry:
        case didRequeue:
        case didTransportDisrupted:
            retry = true;
            break;
        default:
            break;
        }
        return {CheckerState::Down, hex("host status", c.hostStatus)};
    }
    ScsiSense s = ScsiSense::parse(c.sense);
    const bool checkCondition =
        c.status == statusCheckCondition || (c.driverStatus & 0x0f) == driverSense;
    if (checkCondition && s.valid) {
        switch (s.key) {
        case 0x0: // NO SENSE
        case 0x1: // RECOVERED ERROR
            return {CheckerState::Up, senseText(s)};
        case 0x6: // UNIT ATTENTION: reported once after a change; ask again
            retry = true;
            return {CheckerState::Down, senseText(s) + ": unit attention"};
        case 0x2: // NOT READY
            if (s.asc == 0x04 && s.ascq == 0x0a)
                return {CheckerState::Ghost, senseText(s) + ": ALUA state transition"};
            if (s.asc == 0x04 && s.ascq == 0x0b)
                return {CheckerState::Ghost, senseText(s) + ": target port in standby state"};
            if (s.asc == 0x04 && s.ascq == 0x0c)
                return {CheckerState::Down, senseText(s) + ": target port unavailable"};
            return {CheckerState::Down, senseText(s) + ": not ready"};
        default:
            return {CheckerState::Down, senseText(s)};
        }
    }
    if (checkCondition)
        return {CheckerState::Down, "check condition without sense data"};
    if (c.status == statusBusy || c.status == statusTaskSetFull) {
        retry = true;
        return {CheckerState::Down, hex("scsi status", c.status)};
    }
    if (c.status != statusGood)
        return {CheckerState::Down, hex("scsi status", c.status)};
    if ((c.driverStatus & 0x0f) != 0)
        return {CheckerState::Down, hex("driver status", c.driverStatus)};
    return {CheckerState::Up, "ok"};
}

CheckOutcome runScsiCheck(const std::string &devnode, std::span<const uint8_t> cdb,
                          size_t transferLength, std::chrono::milliseconds timeout) {
    std::vector<uint8_t> buf(transferLength);
    CheckOutcome o;
    for (int attempt = 0; attempt < 3; ++attempt) {
        auto c = sys::scsiCommand(devnode, cdb, buf, timeout);
        if (!c)
            return {CheckerState::Down, c.error().message};
        bool retry = false;
        o = decodeScsiCompletion(*c, retry);
        if (!retry)
            break;
    }
    return o;
}

namespace {

void scsiAttempt(sys::PathIo &io, const std::string &devnode, std::vector<uint8_t> cdb,
                 size_t transferLength, std::chrono::milliseconds timeout,
                 std::chrono::milliseconds commandTimeout, int attemptsLeft,
                 std::function<void(CheckOutcome)> done) {
    std::vector<uint8_t> command = cdb;
    io.scsi(devnode, std::move(command), transferLength, timeout, commandTimeout,
            [&io, devnode, cdb = std::move(cdb), transferLength, timeout, commandTimeout,
             attemptsLeft,
             done = std::move(done)](Result<sys::ScsiCompletion> c, std::vector<uint8_t>) mutable {
                if (!c) {
                    done(outcomeOfError(c.error()));
                    return;
                }
                bool retry = false;
                CheckOutcome o = decodeScsiCompletion(*c, retry);
                if (retry && attemptsLeft > 1) {
                    scsiAttempt(io, devnode, std::move(cdb), transferLength, timeout,
                                commandTimeout, attemptsLeft - 1, std::move(done));
                    return;
                }
                done(std::move(o));
            });
}

} // namespace

void startScsiCheck(sys::PathIo &io, const std::string &devnode, std::vector<uint8_t> cdb,
                    size_t transferLength, std::chrono::milliseconds timeout,
                    std::function<void(CheckOutcome)> done,
                    std::chrono::milliseconds commandTimeout) {
    scsiAttempt(io, devnode, std::move(cdb), transferLength, timeout, commandTimeout, 3,
                std::move(done));
}

void startScsiOrJob(CheckIo io, const Checker &checker, std::vector<uint8_t> cdb,
                    size_t transferLength, std::chrono::milliseconds timeout,
                    std::function<void(CheckOutcome)> done) {
    if (io.pathIo && io.pathIo->sgNode(checker.devnode())) {
        startScsiCheck(*io.pathIo, checker.devnode(), std::move(cdb), transferLength, timeout,
                       std::move(done), io.commandTimeout);
        return;
    }
    startCheckJob(io.executor, checker, timeout, std::move(done));
}

} // namespace mpath::checkers
