#pragma once

#include "mpath/dm/device_mapper.h"
#include "mpath/sys/thread_annotations.h"

#include <functional>
#include <memory>

namespace mpath::testing {

/// Makes a DeviceMapper that is not thread-safe (the fake) safe to call from
/// several executor workers at once: one call at a time. An optional hook
/// runs before each call with the call's name and device, outside the lock,
/// so a test can hold one map's calls (a hung suspend) while others go on.
class SerializedDeviceMapper final : public dm::DeviceMapper {
public:
    using Hook = std::function<void(const std::string &op, const std::string &name)>;

    explicit SerializedDeviceMapper(std::shared_ptr<dm::DeviceMapper> inner)
        : inner_(std::move(inner)) {}

    /// Sets the hook (before the executor starts calling).
    void setHook(Hook hook) { hook_ = std::move(hook); }
    /// Sets a hook that runs when a create or reload ("create", "reload")
    /// has returned, outside the lock and before its caller goes on: a test
    /// can have udev answer before the loop learns that the call ended.
    void setAfterHook(Hook hook) { afterHook_ = std::move(hook); }

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
    Result<dm::UdevCookie> createAsync(const std::string &name, const std::string &uuid,
                                       const std::vector<dm::TargetLine> &targets,
                                       dm::MapUevent uevent) override;
    Result<dm::UdevCookie> reloadAsync(const std::string &name,
                                       const std::vector<dm::TargetLine> &targets,
                                       dm::MapUevent uevent) override;
    Result<void> releaseCookie(dm::UdevCookie cookie, bool force) override;
    Result<std::pair<dm::Device, std::vector<dm::TargetLine>>>
    deviceStatus(const std::string &name) override;

    /// Runs \a fn on the wrapped device-mapper under the lock (for the test
    /// thread to look at the fake).
    template <typename Fn>
    auto with(Fn &&fn) {
        sys::MutexLock lock(mutex_);
        return fn(*inner_);
    }

private:
    void before(const char *op, const std::string &name);

    sys::Mutex mutex_; ///< protects every call into inner_
    std::shared_ptr<dm::DeviceMapper> inner_ MPATH_GUARDED_BY(mutex_);
    Hook hook_;
    Hook afterHook_;
};

} // namespace mpath::testing
