#include "bus_arguments.h"

#include "bus_method.h"
#include "overrides.h"

#include <cstdio>
#include <cstring>
#include <systemd/sd-bus.h>

namespace mpathd {

using mpath::Error;
using mpath::Result;

namespace {

/// \a s for a message: at most 64 bytes of it, control characters as \xNN.
std::string quoted(std::string_view s) {
    std::string out = "'";
    for (size_t i = 0; i < s.size() && i < 64; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f) {
            char hex[5];
            std::snprintf(hex, sizeof(hex), "\\x%02x", c);
            out += hex;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + (s.size() > 64 ? "...'" : "'");
}

/// Checks string argument \a what: not empty, at most \a max bytes, no
/// control character (a line break would end a line of the configuration
/// or of the log).
Result<void> checkText(const char *what, std::string_view text, size_t max) {
    if (text.empty())
        return Error{EINVAL, std::string(what) + " is empty"};
    if (text.size() > max)
        return Error{EINVAL, std::string(what) + " is " + std::to_string(text.size()) +
                                 " bytes long; at most " + std::to_string(max) + " are taken"};
    for (char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f) {
            char hex[8];
            std::snprintf(hex, sizeof(hex), "0x%02x", c);
            return Error{EINVAL, std::string(what) + " " + quoted(text) +
                                     " has a control character (" + hex + ")"};
        }
    }
    return mpath::ok();
}

/// Reads options (a{sv}): "persist" (b) when \a persistAllowed, no other.
Result<bool> readOptions(sd_bus_message *m, bool persistAllowed) {
    bool persist = false;
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    if (r <= 0)
        return Error{EBADMSG, "the options are not an a{sv}"};
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *key = nullptr;
        if (sd_bus_message_read(m, "s", &key) < 0)
            return Error{EBADMSG, "an option has no key"};
        if (!persistAllowed || strcmp(key, "persist") != 0)
            return Error{EINVAL,
                         "unknown option " + quoted(key) +
                             (persistAllowed ? "; known: persist" : "; this method takes none")};
        const char *contents = nullptr;
        if (sd_bus_message_peek_type(m, nullptr, &contents) <= 0 || !contents ||
            strcmp(contents, "b") != 0)
            return Error{EINVAL,
                         std::string("option 'persist' takes a boolean, not a value of type ") +
                             (contents ? quoted(contents) : std::string("?"))};
        int b = 0;
        if (sd_bus_message_read(m, "v", "b", &b) < 0)
            return Error{EBADMSG, "option 'persist' cannot be read"};
        persist = b != 0;
        if (sd_bus_message_exit_container(m) < 0)
            return Error{EBADMSG, "an option has more than a key and a value"};
    }
    if (r < 0 || sd_bus_message_exit_container(m) < 0)
        return Error{EBADMSG, "the options cannot be read"};
    return persist;
}

} // namespace

Result<BusArguments> BusArguments::read(sd_bus_message *m, const BusMethod &method) {
    BusArguments a;
    // sd-bus has checked the signature against the vtable's already; this
    // also holds for a message handed over by someone else.
    const char *signature = sd_bus_message_get_signature(m, true);
    if (!signature || method.signature() != signature)
        return Error{EBADMSG, std::string("expected arguments of type ") + method.signature() +
                                  ", got " + quoted(signature ? signature : "")};
    int r = 0;
    switch (method.argument) {
    case 's': {
        const char *s = nullptr;
        r = sd_bus_message_read(m, "s", &s);
        if (r > 0)
            a.text_ = s;
        break;
    }
    case 'u':
        r = sd_bus_message_read(m, "u", &a.number_);
        break;
    case 'b': {
        int b = 0;
        r = sd_bus_message_read(m, "b", &b);
        a.flag_ = b != 0;
        break;
    }
    default:
        r = 1;
        break;
    }
    if (r <= 0)
        return Error{EBADMSG, std::string("argument '") + method.argumentName + "' cannot be read"};
    auto persist = readOptions(m, method.persist);
    if (!persist)
        return persist.error();
    a.persist_ = *persist;

    if (method.argument == 's') {
        const size_t max = method.keyword ? kMaxSetting : kMaxDevice;
        if (auto c = checkText(method.argumentName, a.text_, max); !c)
            return c.error();
    }
    if (method.keyword) {
        a.setting_ = method.argument == 'u' ? std::to_string(a.number_) : a.text_;
        // "queue-length" stands for "queue-length 0", as in the configuration.
        if (std::string_view(method.keyword) == "path_selector" &&
            a.setting_.find(' ') == std::string::npos)
            a.setting_ += " 0";
        if (auto c = Overrides::check(method.keyword, a.setting_); !c)
            return c.error();
    }
    return a;
}

} // namespace mpathd
