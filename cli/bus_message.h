#pragma once

#include "objects.h"

#include <cstdint>
#include <string>
#include <vector>

struct sd_bus_message;

namespace mpathctl {

/// Owns one reference to an sd_bus_message and reads or appends the
/// types mpathd's API uses. Reading a malformed message throws
/// std::system_error.
class BusMessage {
public:
    BusMessage() = default;
    /// Takes over the reference \p m holds.
    static BusMessage adopt(sd_bus_message *m);
    /// Takes a new reference to \p m, which the caller keeps.
    static BusMessage ref(sd_bus_message *m);

    BusMessage(BusMessage &&other) noexcept;
    BusMessage &operator=(BusMessage &&other) noexcept;
    BusMessage(const BusMessage &) = delete;
    BusMessage &operator=(const BusMessage &) = delete;
    ~BusMessage();

    sd_bus_message *get() const { return m_; }
    explicit operator bool() const { return m_ != nullptr; }

    std::string path() const;
    std::string interface() const;
    std::string member() const;

    void appendString(const std::string &s);
    void appendBool(bool b);
    void appendUint32(uint32_t u);
    /// The a{sv} options every method takes; "persist" only when \p persist.
    void appendOptions(bool persist);

    std::string readString();
    std::string readObjectPath();
    std::vector<std::string> readStrings();
    /// A variant ("v").
    PropertyValue readVariant();
    /// An a{sv} dictionary.
    Properties readProperties();
    /// The a{sa{sv}} of InterfacesAdded and GetManagedObjects.
    std::map<std::string, Properties> readInterfaces();
    /// The a{oa{sa{sv}}} of GetManagedObjects.
    std::vector<ManagedObject> readManagedObjects();

private:
    explicit BusMessage(sd_bus_message *m) : m_(m) {}

    sd_bus_message *m_{nullptr};
};

} // namespace mpathctl
