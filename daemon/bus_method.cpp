#include "bus_method.h"

#include <stdexcept>

namespace mpathd {

namespace {

constexpr const char *kManager = "org.mpathd.Multipath1.Manager";
constexpr const char *kMap = "org.mpathd.Multipath1.Map";
constexpr const char *kPath = "org.mpathd.Multipath1.Path";

constexpr const char *kModifyMap = "org.mpathd.multipath1.modify-map";
constexpr const char *kManagePaths = "org.mpathd.multipath1.manage-paths";
constexpr const char *kReconfigure = "org.mpathd.multipath1.reconfigure";

using K = BusObjectKind;
using A = BusAct;

// clang-format off
constexpr BusMethod kMethods[] = {
    // interface name                 arg  argName    result resultName object      action        persist keyword                live   act
    {kManager, "GetMaps",             0,   nullptr,   "ao",  "maps",    K::Manager, nullptr,      false, nullptr,               false, A::GetMaps},
    {kManager, "DescribeMaps",        0,   nullptr,   "s",   "json",    K::Manager, nullptr,      false, nullptr,               false, A::DescribeMaps},
    {kManager, "DescribeTopology",    0,   nullptr,   "s",   "json",    K::Manager, nullptr,      false, nullptr,               false, A::DescribeTopology},
    {kManager, "ResolveDevice",       's', "device",  "o",   "object",  K::Manager, nullptr,      false, nullptr,               false, A::ResolveDevice},
    {kManager, "Reconfigure",         0,   nullptr,   "",    nullptr,   K::Manager, kReconfigure, false, nullptr,               false, A::Reconfigure},
    {kManager, "AddPath",             's', "device",  "",    nullptr,   K::Manager, kManagePaths, false, nullptr,               false, A::AddPath},
    {kManager, "RemovePath",          's', "device",  "",    nullptr,   K::Manager, kManagePaths, false, nullptr,               false, A::RemovePath},
    {kMap,     "SetQueueIfNoPath",    'b', "enable",  "",    nullptr,   K::Map,     kModifyMap,   true,  nullptr,               true,  A::QueueIfNoPath},
    {kMap,     "SetNoPathRetry",      's', "value",   "",    nullptr,   K::Map,     kModifyMap,   true,  "no_path_retry",       false, A::Setting},
    {kMap,     "SetPgInitRetries",    'u', "retries", "",    nullptr,   K::Map,     kModifyMap,   true,  "pg_init_retries",     false, A::Setting},
    {kMap,     "SetPgInitDelayMsecs", 'u', "msecs",   "",    nullptr,   K::Map,     kModifyMap,   true,  "pg_init_delay_msecs", false, A::Setting},
    {kMap,     "SetPathSelector",     's', "selector","",    nullptr,   K::Map,     kModifyMap,   true,  "path_selector",       false, A::Setting},
    {kMap,     "SwitchPathGroup",     'u', "group",   "",    nullptr,   K::Map,     kModifyMap,   false, nullptr,               true,  A::SwitchGroup},
    {kMap,     "Reload",              0,   nullptr,   "",    nullptr,   K::Map,     kModifyMap,   false, nullptr,               true,  A::Reload},
    {kMap,     "Suspend",             0,   nullptr,   "",    nullptr,   K::Map,     kModifyMap,   false, nullptr,               true,  A::Suspend},
    {kMap,     "Resume",              0,   nullptr,   "",    nullptr,   K::Map,     kModifyMap,   false, nullptr,               true,  A::Resume},
    {kMap,     "Flush",               0,   nullptr,   "",    nullptr,   K::Map,     kModifyMap,   false, nullptr,               true,  A::Flush},
    {kPath,    "Fail",                0,   nullptr,   "",    nullptr,   K::Path,    kManagePaths, false, nullptr,               false, A::Fail},
    {kPath,    "Reinstate",           0,   nullptr,   "",    nullptr,   K::Path,    kManagePaths, false, nullptr,               false, A::Reinstate},
};
// clang-format on

} // namespace

std::span<const BusMethod> BusMethod::all() {
    return kMethods;
}

const BusMethod *BusMethod::find(std::string_view interface, std::string_view name) {
    for (const auto &m : kMethods)
        if (interface == m.interface && name == m.name)
            return &m;
    return nullptr;
}

const BusMethod &BusMethod::of(BusAct act) {
    for (const auto &m : kMethods)
        if (m.act == act && act != BusAct::Setting)
            return m;
    throw std::logic_error("no D-Bus method does this act alone");
}

std::string BusMethod::signature() const {
    std::string s;
    if (argument)
        s += argument;
    return s + "a{sv}";
}

std::string BusMethod::names() const {
    std::string s;
    if (argument)
        s += std::string(argumentName) + '\0';
    s += std::string("options") + '\0';
    if (resultName)
        s += std::string(resultName) + '\0';
    return s;
}

} // namespace mpathd
