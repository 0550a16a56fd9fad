#pragma once

#include <span>
#include <string>
#include <string_view>

namespace mpathd {

/// The object a method is called on.
enum class BusObjectKind { Manager, Map, Path };

/// What a method does once its call is read, checked and authorized
/// (BusActions::run()).
enum class BusAct {
    GetMaps,
    DescribeMaps,
    DescribeTopology,
    ResolveDevice,
    Reconfigure,
    AddPath,
    RemovePath,
    Setting, ///< BusMethod::keyword set to the argument (the Set* methods)
    QueueIfNoPath,
    SwitchGroup,
    Reload,
    Suspend,
    Resume,
    Flush,
    Fail,
    Reinstate,
};

/// One method of the D-Bus API, as the table in bus_method.cpp lists them
/// all. The vtables are made from it, and every call goes through it in
/// the same order: its arguments are read and checked (BusArguments), then
/// its object (BusActions::prepare()), then polkit is asked for its action,
/// then it acts, signals what changed and answers.
struct BusMethod {
    const char *interface;
    const char *name;
    /// The type of its one argument before "options": 's', 'u' or 'b';
    /// 0 when it has none.
    char argument;
    const char *argumentName;
    /// What it answers: "o", "ao", "s" or "" for nothing.
    const char *result;
    const char *resultName;
    BusObjectKind object;
    /// The polkit action that authorizes it; null for a read, which is
    /// open to everyone.
    const char *action;
    /// Takes the "persist" option.
    bool persist;
    /// The map setting it changes (BusAct::Setting), else null.
    const char *keyword;
    /// The map must be made (live) first: Busy until it is.
    bool needsLiveMap;
    BusAct act;

    /// Every method, by interface in the XML's order.
    static std::span<const BusMethod> all();
    /// The method \a name of \a interface, null when there is none.
    static const BusMethod *find(std::string_view interface, std::string_view name);

    /// The method that does \a act (not Setting, which several do).
    static const BusMethod &of(BusAct act);

    /// Its input signature: "sa{sv}".
    std::string signature() const;
    /// The names of its arguments and results as an sd-bus vtable takes
    /// them: each followed by a NUL ("device\0options\0object\0").
    std::string names() const;
};

} // namespace mpathd
