#pragma once

#include "mpath/dm/device_mapper.h"
#include "mpath/dm/status.h"
#include "mpath/model/map.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

/// Test doubles for libmpath's seams and builders of test inputs. The
/// daemon never links them.
namespace mpath::testing {

/// An in-memory DeviceMapper for tests: keeps devices and their tables,
/// understands multipath/lmpath tables well enough to answer status and
/// the path and group messages, records every call, and fails on demand.
class FakeDeviceMapper final : public dm::DeviceMapper {
public:
    enum class Op {
        List,
        Info,
        Table,
        Status,
        Create,
        Reload,
        Message,
        Remove,
        Rename,
        Suspend,
        Resume
    };

    Result<std::vector<dm::Device>> listMultipath() override;
    Result<dm::Device> info(const std::string &name) override;
    Result<std::vector<dm::TargetLine>> table(const std::string &name) override;
    Result<std::vector<dm::TargetLine>> status(const std::string &name) override;
    Result<void> create(const std::string &name, const std::string &uuid,
                        const std::vector<dm::TargetLine> &targets) override;
    Result<void> reload(const std::string &name,
                        const std::vector<dm::TargetLine> &targets) override;
    Result<std::string> message(const std::string &name, uint64_t sector,
                                const std::string &text) override;
    Result<void> remove(const std::string &name, bool deferred = false) override;
    Result<void> rename(const std::string &name, const std::string &newName) override;
    Result<void> suspend(const std::string &name) override;
    Result<void> resume(const std::string &name) override;

    /// create() and reload() that hand back a cookie: each queues the
    /// uevent udev would broadcast once done (see udevEvents()).
    Result<dm::UdevCookie> createAsync(const std::string &name, const std::string &uuid,
                                       const std::vector<dm::TargetLine> &targets,
                                       dm::MapUevent uevent) override;
    Result<dm::UdevCookie> reloadAsync(const std::string &name,
                                       const std::vector<dm::TargetLine> &targets,
                                       dm::MapUevent uevent) override;
    /// Records "release COOKIE" ("release COOKIE forced").
    Result<void> releaseCookie(dm::UdevCookie cookie, bool force) override;

    /// A map's change uevent as udev broadcasts it once its rules ran.
    struct UdevEvent {
        std::string name;
        std::string uuid;
        uint32_t cookie{0}; ///< DM_COOKIE: flags << 16 | the cookie's base
    };
    /// Takes the uevents of the async operations so far, oldest first.
    std::vector<UdevEvent> takeUdevEvents() { return std::exchange(udevEvents_, {}); }
    /// Cookies handed out and not released.
    size_t cookiesOut() const { return cookiesOut_.size(); }

    /// The next call of \p op fails with errno \p error (positive) and
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
    const model::Map *map(const std::string &name) const;

    bool exists(const std::string &name) const { return devices_.count(name) != 0; }

private:
    Result<dm::UdevCookie> cookie(const std::string &name, uint16_t flags);

    std::vector<UdevEvent> udevEvents_;
    std::vector<uint32_t> cookiesOut_;
    uint32_t nextCookie_{1};

    struct Device {
        dm::Device dev;
        std::vector<dm::TargetLine> targets;
        bool multipath{false};
        model::Map map;
        dm::MapStatus status;
        bool deferredRemove{false};
    };

    /// The injected failure of \a op for \a name, if any.
    std::optional<Error> injected(Op op, const char *what, const std::string &name);
    static Result<void> parseTargets(const char *op, const std::string &name,
                                     const std::vector<dm::TargetLine> &targets, Device &d);
    static Result<void> applyMessage(Device &d, const std::string &text);

    std::map<std::string, Device> devices_;
    std::map<Op, int> failures_;
    std::vector<std::string> calls_;
    unsigned nextMinor_{0};
};

} // namespace mpath::testing
