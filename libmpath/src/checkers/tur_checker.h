#pragma once

#include "mpath/checkers/checker.h"

namespace mpath::checkers {

/// SCSI TEST UNIT READY through SG_IO, with sense decoding (see
/// decodeScsiCompletion()): the multipath-tools default for SCSI paths.
class TurChecker final : public Checker {
public:
    explicit TurChecker(std::string devnode) : Checker(std::move(devnode)) {}
    std::string_view name() const override { return "tur"; }
    std::function<CheckOutcome()> job(std::chrono::milliseconds timeout) const override;
    void start(CheckIo io, std::chrono::milliseconds timeout,
               std::function<void(CheckOutcome)> done) const override;
};

} // namespace mpath::checkers
