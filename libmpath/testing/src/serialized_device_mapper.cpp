#include "mpath/testing/serialized_device_mapper.h"

namespace mpath::testing {

void SerializedDeviceMapper::before(const char *op, const std::string &name) {
    if (hook_)
        hook_(op, name);
}

Result<std::vector<dm::Device>> SerializedDeviceMapper::listMultipath() {
    before("list", "");
    sys::MutexLock lock(mutex_);
    return inner_->listMultipath();
}

Result<dm::Device> SerializedDeviceMapper::info(const std::string &name) {
    before("info", name);
    sys::MutexLock lock(mutex_);
    return inner_->info(name);
}

Result<std::vector<dm::TargetLine>> SerializedDeviceMapper::table(const std::string &name) {
    before("table", name);
    sys::MutexLock lock(mutex_);
    return inner_->table(name);
}

Result<std::vector<dm::TargetLine>> SerializedDeviceMapper::status(const std::string &name) {
    before("status", name);
    sys::MutexLock lock(mutex_);
    return inner_->status(name);
}

Result<void> SerializedDeviceMapper::create(const std::string &name, const std::string &uuid,
                                            const std::vector<dm::TargetLine> &targets) {
    before("create", name);
    sys::MutexLock lock(mutex_);
    return inner_->create(name, uuid, targets);
}

Result<void> SerializedDeviceMapper::reload(const std::string &name,
                                            const std::vector<dm::TargetLine> &targets) {
    before("reload", name);
    sys::MutexLock lock(mutex_);
    return inner_->reload(name, targets);
}

Result<std::string> SerializedDeviceMapper::message(const std::string &name, uint64_t sector,
                                                    const std::string &text) {
    before("message", name);
    sys::MutexLock lock(mutex_);
    return inner_->message(name, sector, text);
}

Result<void> SerializedDeviceMapper::remove(const std::string &name, bool deferred) {
    before("remove", name);
    sys::MutexLock lock(mutex_);
    return inner_->remove(name, deferred);
}

Result<void> SerializedDeviceMapper::rename(const std::string &name, const std::string &newName) {
    before("rename", name);
    sys::MutexLock lock(mutex_);
    return inner_->rename(name, newName);
}

Result<void> SerializedDeviceMapper::suspend(const std::string &name) {
    before("suspend", name);
    sys::MutexLock lock(mutex_);
    return inner_->suspend(name);
}

Result<void> SerializedDeviceMapper::resume(const std::string &name) {
    before("resume", name);
    sys::MutexLock lock(mutex_);
    return inner_->resume(name);
}

Result<dm::UdevCookie> SerializedDeviceMapper::createAsync(const std::string &name,
                                                           const std::string &uuid,
                                                           const std::vector<dm::TargetLine> &t,
                                                           dm::MapUevent uevent) {
    before("create", name);
    auto r = [&] {
        sys::MutexLock lock(mutex_);
        return inner_->createAsync(name, uuid, t, uevent);
    }();
    if (afterHook_)
        afterHook_("create", name);
    return r;
}

Result<dm::UdevCookie> SerializedDeviceMapper::reloadAsync(const std::string &name,
                                                           const std::vector<dm::TargetLine> &t,
                                                           dm::MapUevent uevent) {
    before("reload", name);
    auto r = [&] {
        sys::MutexLock lock(mutex_);
        return inner_->reloadAsync(name, t, uevent);
    }();
    if (afterHook_)
        afterHook_("reload", name);
    return r;
}

Result<void> SerializedDeviceMapper::releaseCookie(dm::UdevCookie cookie, bool force) {
    before("release", std::to_string(cookie.value));
    sys::MutexLock lock(mutex_);
    return inner_->releaseCookie(cookie, force);
}

Result<std::pair<dm::Device, std::vector<dm::TargetLine>>>
SerializedDeviceMapper::deviceStatus(const std::string &name) {
    before("status", name);
    sys::MutexLock lock(mutex_);
    return inner_->deviceStatus(name);
}

} // namespace mpath::testing
