#pragma once

#include "mpath/checker.h"

namespace mpath {

/// SCSI TEST UNIT READY through SG_IO, with sense decoding (see decodeScsiCompletion()): the
/// multipath-tools default for SCSI paths.
class TurChecker final : public Checker {
public:
    explicit TurChecker(std::string devnode) : Checker(std::move(devnode)) {}
    const char *name() const override { return "tur"; }

protected:
    std::function<CheckOutcome()> job(std::chrono::milliseconds timeout) const override;
};

} // namespace mpath
