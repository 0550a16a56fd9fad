// libFuzzer entry point: any bytes are a configuration file (and a
// bindings and a wwids file). The parsers must never crash, hang or leak,
// and what they return must hold together.

#include "mpath/config/parser.h"
#include "mpath/config/writer.h"
#include "mpath/state/bindings.h"
#include "mpath/state/wwids_file.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace mpath;
using namespace mpath::config;
using mpath::state::Bindings;
using mpath::state::BindingsParseResult;
using mpath::state::WwidsFile;

namespace {

void check(bool ok) {
    if (!ok)
        abort();
}

Config withoutLocations(Config c) {
    c.files.clear();
    c.globals.where.clear();
    c.defaults.where.clear();
    c.overrides.where.clear();
    for (Blacklist *b : {&c.blacklist, &c.blacklistExceptions}) {
        for (auto *list : {&b->devnodes, &b->wwids, &b->properties, &b->protocols})
            for (auto &p : *list)
                p.where = {};
        for (auto &d : b->devices)
            d.where = {};
    }
    for (auto &d : c.devices) {
        d.where = {};
        d.settings.where.clear();
    }
    for (auto &m : c.multipaths) {
        m.where = {};
        m.settings.where.clear();
    }
    return c;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string_view text(reinterpret_cast<const char *>(data), size);
    size_t lines = 1;
    for (char c : text)
        lines += c == '\n';

    for (bool ownFile : {false, true}) {
        ConfigResult r = parseString(text, "fuzz.conf", ownFile);
        for (const auto &d : r.diagnostics) {
            check(d.file == "fuzz.conf");
            check(d.line >= 1 && d.line <= lines);
            check(!d.message.empty());
        }
        for (const auto &dev : r.config.devices)
            check(!dev.vendor.empty() && !dev.product.empty());
        for (const auto &mp : r.config.multipaths)
            check(!mp.wwid.empty());
        // Resolution and listing work on whatever was accepted.
        const Config &c = r.config;
        std::string wwid = c.multipaths.empty() ? "36001405" : c.multipaths.back().wwid;
        EffectiveSettings e = c.effective("NETAPP", "LUN", "1", wwid);
        check(!e.entries().empty());
        check(!c.effectiveGlobals().entries().empty());
        // What was accepted writes out and reads back the same, with no
        // complaint the file itself did not get: a deprecated keyword that
        // still applies (bindings_file) is written back and noted again.
        // (parse(), not parseString(): whole-config findings such as a
        // duplicated alias are reported again on the rewrite, by design.)
        ConfigResult again;
        again.config.ownFile = ownFile;
        parse(write(c), "again", again.config, again.diagnostics, ownFile);
        for (const auto &d : again.diagnostics)
            check(std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [&](const Diagnostic &o) {
                return o.message == d.message && o.severity == d.severity;
            }));
        again.config.files = c.files;
        check(withoutLocations(again.config) == withoutLocations(c));
    }

    BindingsParseResult b = Bindings::parse(text, "bindings");
    // What parse accepted serializes and reads back the same.
    BindingsParseResult again = Bindings::parse(b.bindings.serialize(), "bindings");
    check(again.diagnostics.empty() && again.bindings == b.bindings);
    (void)b.bindings.nextFreeAlias("mpath");

    auto wwids = WwidsFile::parse(text, "wwids");
    check(WwidsFile::parse(WwidsFile::serialize(wwids), "wwids") == wwids);
    return 0;
}
