// libFuzzer target for the D-Bus API's argument decoding and checking:
// each input is one method call, a real sd-bus message built from the
// input's bytes (the method, then its arguments with the method's own
// signature or with any other), read by BusArguments as the daemon reads
// every call. Beyond "no crash, no leak, no undefined behaviour" it checks
// what a client relies on:
//  - what is accepted holds what the method takes: the signature, a string
//    that is not empty, not too long and without control characters, a
//    setting the configuration takes, persist only where it is known;
//  - what is refused says why (EINVAL, or EBADMSG for a message that does
//    not hold its signature), in a message that does not repeat a long
//    argument whole.

#include "bus_arguments.h"
#include "bus_method.h"
#include "overrides.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/socket.h>
#include <systemd/sd-bus.h>

using mpathd::BusArguments;
using mpathd::BusMethod;

namespace {

[[noreturn]] void fail(const char *what, const BusMethod &m, const std::string &detail) {
    std::fprintf(stderr, "%s\n  method: %s\n  %s\n", what, m.name, detail.c_str());
    std::abort();
}

/// The input, read front to back; zeros once it is used up.
class Input {
public:
    Input(const uint8_t *data, size_t size) : p_(data), end_(data + size) {}
    uint8_t byte() { return p_ < end_ ? *p_++ : 0; }
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i)
            v = v << 8 | byte();
        return v;
    }
    /// A string: a length byte (255: two more bytes of length), then its
    /// bytes; now and then a known word, so the checks behind them run.
    std::string text() {
        static const char *const kWords[] = {"persist",
                                             "queue",
                                             "fail",
                                             "service-time 0",
                                             "queue-length",
                                             "round-robin 0",
                                             "historical-service-time 2 972 0",
                                             "/dev/sdb",
                                             "sdb",
                                             "5"};
        const uint8_t n = byte();
        if (n >= 240)
            return kWords[n % (sizeof(kWords) / sizeof(*kWords))];
        size_t len = n;
        if (n == 239)
            len = (size_t{byte()} << 8 | byte()) * 16; // up to 1 MiB
        std::string s;
        for (size_t i = 0; i < len; ++i)
            s += static_cast<char>(p_ < end_ ? *p_++ : 'x');
        return s;
    }

private:
    const uint8_t *p_;
    const uint8_t *end_;
};

/// A bus that never connects, only for making messages (sd-bus wants a
/// started one).
sd_bus *messageBus() {
    static sd_bus *bus = [] {
        int fds[2];
        sd_bus *b = nullptr;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0 || sd_bus_new(&b) < 0 ||
            sd_bus_set_fd(b, fds[0], fds[0]) < 0 || sd_bus_start(b) < 0)
            std::abort();
        return b;
    }();
    return bus;
}

int appendVariant(sd_bus_message *m, Input &in, int depth);

/// a{sv}, as options are.
int appendOptions(sd_bus_message *m, Input &in, int depth) {
    int r = sd_bus_message_open_container(m, 'a', "{sv}");
    const unsigned n = in.byte() % 4;
    for (unsigned i = 0; i < n && r >= 0; ++i) {
        r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0)
            r = sd_bus_message_append(m, "s",
                                      (in.byte() & 1 ? std::string("persist") : in.text()).c_str());
        if (r >= 0)
            r = appendVariant(m, in, depth + 1);
        if (r >= 0)
            r = sd_bus_message_close_container(m);
    }
    return r < 0 ? r : sd_bus_message_close_container(m);
}

int appendVariant(sd_bus_message *m, Input &in, int depth) {
    switch (in.byte() % (depth > 2 ? 4 : 5)) {
    case 0:
        return sd_bus_message_append(m, "v", "b", static_cast<int>(in.byte() & 1));
    case 1:
        return sd_bus_message_append(m, "v", "s", in.text().c_str());
    case 2:
        return sd_bus_message_append(m, "v", "u", in.u32());
    case 3:
        return sd_bus_message_append(m, "v", "as", 2, in.text().c_str(), in.text().c_str());
    default: {
        int r = sd_bus_message_open_container(m, 'v', "a{sv}");
        if (r >= 0)
            r = appendOptions(m, in, depth);
        return r < 0 ? r : sd_bus_message_close_container(m);
    }
    }
}

/// One argument of type \a type ('a': options, a{sv}).
int appendArgument(sd_bus_message *m, char type, Input &in) {
    switch (type) {
    case 's':
        return sd_bus_message_append(m, "s", in.text().c_str());
    case 'u':
        return sd_bus_message_append(m, "u", in.u32());
    case 'b':
        return sd_bus_message_append(m, "b", static_cast<int>(in.byte() & 1));
    case 'i':
        return sd_bus_message_append(m, "i", static_cast<int32_t>(in.u32()));
    case 'v':
        return appendVariant(m, in, 0);
    default:
        return appendOptions(m, in, 0);
    }
}

bool hasControl(const std::string &s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return true;
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Input in(data, size);
    const auto methods = BusMethod::all();
    const BusMethod &method = methods[in.byte() % methods.size()];
    const bool ownSignature = (in.byte() & 3) != 0;

    sd_bus_message *m = nullptr;
    if (sd_bus_message_new_method_call(messageBus(), &m, "org.mpathd.Multipath1",
                                       "/org/mpathd/Multipath1/Manager", method.interface,
                                       method.name) < 0)
        std::abort();
    int r = 0;
    if (ownSignature) {
        if (method.argument)
            r = appendArgument(m, method.argument, in);
        if (r >= 0)
            r = appendArgument(m, 'a', in);
    } else {
        static const char kTypes[] = {'s', 'u', 'b', 'i', 'v', 'a'};
        const unsigned n = in.byte() % 4;
        for (unsigned i = 0; i < n && r >= 0; ++i)
            r = appendArgument(m, kTypes[in.byte() % sizeof(kTypes)], in);
    }
    // A string sd-bus will not carry (not UTF-8): no message to read.
    if (r < 0 || sd_bus_message_seal(m, 1, 0) < 0 || sd_bus_message_rewind(m, true) < 0) {
        sd_bus_message_unref(m);
        return 0;
    }

    auto args = BusArguments::read(m, method);
    if (args) {
        const char *sig = sd_bus_message_get_signature(m, true);
        if (!sig || method.signature() != sig)
            fail("accepted with another signature", method, sig ? sig : "(none)");
        if (args->persist() && !method.persist)
            fail("persist taken by a method that does not know it", method, "");
        if (method.argument == 's') {
            const std::string &t = args->text();
            const size_t max =
                method.keyword ? BusArguments::kMaxSetting : BusArguments::kMaxDevice;
            if (t.empty() || t.size() > max || hasControl(t))
                fail("a string accepted that is empty, too long or has a control character", method,
                     t.substr(0, 80));
        }
        if (method.keyword) {
            if (!mpathd::Overrides::check(method.keyword, args->settingValue()))
                fail("a setting accepted that the configuration refuses", method,
                     args->settingValue());
            if (!mpathd::Overrides::parse("36001405aaaa", method.keyword, args->settingValue()))
                fail("a setting accepted that no map could take", method, args->settingValue());
        }
    } else {
        const auto &e = args.error();
        if (e.code != EINVAL && e.code != EBADMSG)
            fail("refused with an unexpected error code", method, std::to_string(e.code));
        if (e.message.empty() || e.message.size() > 1000)
            fail("refused without a reason, or with a message that repeats a long argument", method,
                 e.message.substr(0, 200));
    }
    sd_bus_message_unref(m);
    return 0;
}
