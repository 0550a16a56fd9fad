#pragma once

#include "mpath/checkers/checker.h"

namespace mpath::checkers {

/// Reads block 0 with a SCSI READ(10) through SG_IO; for devices that
/// answer TEST UNIT READY while their media is unreadable.
class Readsector0Checker final : public Checker {
public:
    explicit Readsector0Checker(std::string devnode) : Checker(std::move(devnode)) {}
    std::string_view name() const override { return "readsector0"; }
    std::function<CheckOutcome()> job(std::chrono::milliseconds timeout) const override;
    void start(CheckIo io, std::chrono::milliseconds timeout,
               std::function<void(CheckOutcome)> done) const override;
};

} // namespace mpath::checkers
