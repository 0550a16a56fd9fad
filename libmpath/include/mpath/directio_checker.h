#pragma once

#include "mpath/checker.h"

namespace mpath {

/// Reads the first 4 KiB with O_DIRECT (no page cache); works on any block device, SCSI or not
/// (NVMe, virtio-blk, null_blk, dm).
class DirectioChecker final : public Checker {
public:
    explicit DirectioChecker(std::string devnode) : Checker(std::move(devnode)) {}
    const char *name() const override { return "directio"; }

protected:
    std::function<CheckOutcome()> job(std::chrono::milliseconds timeout) const override;
};

} // namespace mpath
