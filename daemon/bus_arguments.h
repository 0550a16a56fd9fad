#pragma once

#include <cstddef>
#include <cstdint>
#include <mpath/error.h>
#include <string>

struct sd_bus_message;

namespace mpathd {

struct BusMethod;

/// The arguments of one call as its method (BusMethod) takes them, read
/// from the message and checked alone: everything about a call that can be
/// known without the daemon's state. A call whose arguments are refused
/// here changes nothing and reaches no one else (polkit included).
class BusArguments {
public:
    /// Longest device name taken (ResolveDevice, AddPath, RemovePath): a
    /// path, PATH_MAX.
    static constexpr size_t kMaxDevice = 4096;
    /// Longest setting value taken (SetNoPathRetry, SetPathSelector).
    static constexpr size_t kMaxSetting = 256;

    /// Reads the arguments of \a m as \a method takes them and checks them:
    /// a string is neither empty, nor too long, nor holds a control
    /// character; "options" holds only the keys the method knows, with
    /// their types; a setting's value is one the configuration would take
    /// (Overrides::check()).
    /// \return the arguments, or EINVAL with a sentence that names the
    ///         argument and the problem (InvalidArgument), or EBADMSG when
    ///         the message does not hold what its signature says
    static mpath::Result<BusArguments> read(sd_bus_message *m, const BusMethod &method);

    /// Arguments given by a trusted front-end (multipath-tools' command
    /// socket) rather than read from a message: the string, unsigned and
    /// boolean argument, not persistent.
    static BusArguments given(std::string text, uint32_t number = 0, bool flag = false) {
        BusArguments a;
        a.text_ = std::move(text);
        a.number_ = number;
        a.flag_ = flag;
        return a;
    }

    /// The string argument.
    const std::string &text() const { return text_; }
    /// The unsigned argument.
    uint32_t number() const { return number_; }
    /// The boolean argument.
    bool flag() const { return flag_; }
    /// options["persist"].
    bool persist() const { return persist_; }
    /// The setting's value as the configuration writes it, for a method
    /// with a keyword: "service-time 0", "5", "queue".
    const std::string &settingValue() const { return setting_; }

private:
    std::string text_;
    uint32_t number_{0};
    bool flag_{false};
    bool persist_{false};
    std::string setting_;
};

} // namespace mpathd
