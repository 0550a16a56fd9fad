#pragma once

#include "mpath/checkers/checker.h"

namespace mpath::checkers {

/// Reads the first block with O_DIRECT (no page cache); works on any block
/// device, SCSI or not (NVMe, virtio-blk, null_blk, dm).
class DirectioChecker final : public Checker {
public:
    explicit DirectioChecker(std::string devnode) : Checker(std::move(devnode)) {}
    std::string_view name() const override { return "directio"; }
    std::function<CheckOutcome()> job(std::chrono::milliseconds timeout) const override;
    void start(CheckIo io, std::chrono::milliseconds timeout,
               std::function<void(CheckOutcome)> done) const override;
};

} // namespace mpath::checkers
