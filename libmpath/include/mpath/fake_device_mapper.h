#pragma once

#include "mpath/device_mapper.h"
#include "mpath/map.h"
#include "mpath/status.h"

#include <map>
#include <string>
#include <vector>

namespace mpath {

/// An in-memory DeviceMapper for tests: keeps devices and their tables,
/// understands multipath/lmpath tables well enough to answer status and
/// the path and group messages, records every call, and fails on demand.
class FakeDeviceMapper final : public DeviceMapper {
public:
    enum class Op { List, Info, Table, Status, Create, Reload, Message, Remove, Rename };

    [[nodiscard]] int listMultipath(std::vector<DmDevice> &out) override;
    [[nodiscard]] int info(const std::string &name, DmDevice &out) override;
    [[nodiscard]] int table(const std::string &name, std::vector<DmTargetLine> &out) override;
    [[nodiscard]] int status(const std::string &name, std::vector<DmTargetLine> &out) override;
    [[nodiscard]] int create(const std::string &name, const std::string &uuid,
                             const std::vector<DmTargetLine> &targets) override;
    [[nodiscard]] int reload(const std::string &name,
                             const std::vector<DmTargetLine> &targets) override;
    [[nodiscard]] int message(const std::string &name, uint64_t sector, const std::string &text,
                              std::string *reply = nullptr) override;
    [[nodiscard]] int remove(const std::string &name, bool deferred = false) override;
    [[nodiscard]] int rename(const std::string &name, const std::string &newName) override;

    /// The next call of \p op fails with \p error (negative errno) and
    /// changes nothing.
    void failNext(Op op, int error);

    /// Sets how many openers \p name has; a device removed with deferred
    /// removal goes away when this drops to 0.
    void setOpenCount(const std::string &name, unsigned count);

    /// One line per call that changed or asked something, in order:
    /// "create mpatha", "reload mpatha", "message mpatha fail_path 8:16",
    /// "remove mpatha", "remove mpatha deferred", "rename a b".
    /// Reads (list, info, table, status) are not recorded.
    const std::vector<std::string> &calls() const { return calls_; }
    void clearCalls() { calls_.clear(); }

    /// The parsed multipath map of \p name with its current path and group
    /// states, or null when there is no such multipath device.
    const Map *map(const std::string &name) const;

    bool exists(const std::string &name) const { return devices_.count(name) != 0; }

private:
    struct Device {
        DmDevice dev;
        std::vector<DmTargetLine> targets;
        bool multipath{false};
        Map map;
        MapStatus status;
        bool deferredRemove{false};
    };

    int injected(Op op);
    static int parseTargets(const std::vector<DmTargetLine> &targets, Device &d);
    static int applyMessage(Device &d, const std::string &text);

    std::map<std::string, Device> devices_;
    std::map<Op, int> failures_;
    std::vector<std::string> calls_;
    unsigned nextMinor_{0};
};

} // namespace mpath
