#include "bus_message.h"

#include <system_error>
#include <systemd/sd-bus.h>

namespace mpathctl {

namespace {

int check(int r, const char *what) {
    if (r < 0)
        throw std::system_error(-r, std::generic_category(), what);
    return r;
}

} // namespace

BusMessage BusMessage::adopt(sd_bus_message *m) {
    return BusMessage(m);
}

BusMessage BusMessage::ref(sd_bus_message *m) {
    return BusMessage(sd_bus_message_ref(m));
}

BusMessage::BusMessage(BusMessage &&other) noexcept : m_(other.m_) {
    other.m_ = nullptr;
}

BusMessage &BusMessage::operator=(BusMessage &&other) noexcept {
    if (this != &other) {
        sd_bus_message_unref(m_);
        m_ = other.m_;
        other.m_ = nullptr;
    }
    return *this;
}

BusMessage::~BusMessage() {
    sd_bus_message_unref(m_);
}

std::string BusMessage::path() const {
    const char *p = sd_bus_message_get_path(m_);
    return p ? p : "";
}

std::string BusMessage::interface() const {
    const char *i = sd_bus_message_get_interface(m_);
    return i ? i : "";
}

std::string BusMessage::member() const {
    const char *m = sd_bus_message_get_member(m_);
    return m ? m : "";
}

void BusMessage::appendString(const std::string &s) {
    check(sd_bus_message_append_basic(m_, 's', s.c_str()), "cannot build a message");
}

void BusMessage::appendBool(bool b) {
    int v = b;
    check(sd_bus_message_append_basic(m_, 'b', &v), "cannot build a message");
}

void BusMessage::appendUint32(uint32_t u) {
    check(sd_bus_message_append_basic(m_, 'u', &u), "cannot build a message");
}

void BusMessage::appendOptions(bool persist) {
    if (persist)
        check(sd_bus_message_append(m_, "a{sv}", 1, "persist", "b", 1), "cannot build a message");
    else
        check(sd_bus_message_append(m_, "a{sv}", 0), "cannot build a message");
}

std::string BusMessage::readString() {
    const char *s = nullptr;
    check(sd_bus_message_read_basic(m_, 's', &s), "cannot read a message");
    return s ? s : "";
}

std::string BusMessage::readObjectPath() {
    const char *s = nullptr;
    check(sd_bus_message_read_basic(m_, 'o', &s), "cannot read a message");
    return s ? s : "";
}

std::vector<std::string> BusMessage::readStrings() {
    std::vector<std::string> out;
    char type = 0;
    const char *contents = nullptr;
    check(sd_bus_message_peek_type(m_, &type, &contents), "cannot read a message");
    check(sd_bus_message_enter_container(m_, 'a', contents), "cannot read a message");
    const char element = contents ? contents[0] : 's';
    for (;;) {
        const char *s = nullptr;
        int r = check(sd_bus_message_read_basic(m_, element, &s), "cannot read a message");
        if (r == 0)
            break;
        out.emplace_back(s ? s : "");
    }
    check(sd_bus_message_exit_container(m_), "cannot read a message");
    return out;
}

PropertyValue BusMessage::readVariant() {
    char type = 0;
    const char *contents = nullptr;
    check(sd_bus_message_peek_type(m_, &type, &contents), "cannot read a message");
    check(sd_bus_message_enter_container(m_, 'v', contents), "cannot read a message");
    PropertyValue value;
    const std::string signature = contents ? contents : "";
    union {
        int b;
        uint8_t y;
        int16_t n;
        uint16_t q;
        int32_t i;
        uint32_t u;
        int64_t x;
        uint64_t t;
        double d;
        const char *s;
    } v{};
    auto basic = [&](char t) {
        check(sd_bus_message_read_basic(m_, t, &v), "cannot read a message");
    };
    if (signature.size() == 1) {
        switch (signature[0]) {
        case 'b':
            basic('b');
            value = v.b != 0;
            break;
        case 'y':
            basic('y');
            value = uint64_t{v.y};
            break;
        case 'q':
            basic('q');
            value = uint64_t{v.q};
            break;
        case 'u':
            basic('u');
            value = uint64_t{v.u};
            break;
        case 't':
            basic('t');
            value = v.t;
            break;
        case 'n':
            basic('n');
            value = int64_t{v.n};
            break;
        case 'i':
            basic('i');
            value = int64_t{v.i};
            break;
        case 'x':
            basic('x');
            value = v.x;
            break;
        case 'd':
            basic('d');
            value = v.d;
            break;
        case 's':
        case 'o':
        case 'g':
            basic(signature[0]);
            value = std::string(v.s ? v.s : "");
            break;
        default:
            check(sd_bus_message_skip(m_, contents), "cannot read a message");
        }
    } else if (signature == "as" || signature == "ao") {
        value = readStrings();
    } else if (signature == "a{ss}") {
        std::map<std::string, std::string> dict;
        check(sd_bus_message_enter_container(m_, 'a', "{ss}"), "cannot read a message");
        for (;;) {
            const char *k = nullptr, *s = nullptr;
            int r = check(sd_bus_message_read(m_, "{ss}", &k, &s), "cannot read a message");
            if (r == 0)
                break;
            dict.emplace(k, s);
        }
        check(sd_bus_message_exit_container(m_), "cannot read a message");
        value = std::move(dict);
    } else {
        check(sd_bus_message_skip(m_, contents), "cannot read a message");
    }
    check(sd_bus_message_exit_container(m_), "cannot read a message");
    return value;
}

Properties BusMessage::readProperties() {
    Properties props;
    check(sd_bus_message_enter_container(m_, 'a', "{sv}"), "cannot read a message");
    while (check(sd_bus_message_enter_container(m_, 'e', "sv"), "cannot read a message") > 0) {
        std::string name = readString();
        props.emplace(std::move(name), readVariant());
        check(sd_bus_message_exit_container(m_), "cannot read a message");
    }
    check(sd_bus_message_exit_container(m_), "cannot read a message");
    return props;
}

std::map<std::string, Properties> BusMessage::readInterfaces() {
    std::map<std::string, Properties> interfaces;
    check(sd_bus_message_enter_container(m_, 'a', "{sa{sv}}"), "cannot read a message");
    while (check(sd_bus_message_enter_container(m_, 'e', "sa{sv}"), "cannot read a message") > 0) {
        std::string name = readString();
        // The standard interfaces carry nothing the listing needs.
        if (name.rfind("org.mpathd.", 0) == 0)
            interfaces.emplace(std::move(name), readProperties());
        else
            check(sd_bus_message_skip(m_, "a{sv}"), "cannot read a message");
        check(sd_bus_message_exit_container(m_), "cannot read a message");
    }
    check(sd_bus_message_exit_container(m_), "cannot read a message");
    return interfaces;
}

std::vector<ManagedObject> BusMessage::readManagedObjects() {
    std::vector<ManagedObject> objects;
    check(sd_bus_message_enter_container(m_, 'a', "{oa{sa{sv}}}"), "cannot read a message");
    while (check(sd_bus_message_enter_container(m_, 'e', "oa{sa{sv}}"), "cannot read a message") >
           0) {
        ManagedObject o;
        o.path = readObjectPath();
        o.interfaces = readInterfaces();
        objects.push_back(std::move(o));
        check(sd_bus_message_exit_container(m_), "cannot read a message");
    }
    check(sd_bus_message_exit_container(m_), "cannot read a message");
    return objects;
}

} // namespace mpathctl
