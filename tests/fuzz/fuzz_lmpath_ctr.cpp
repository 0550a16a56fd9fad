// libFuzzer target for the dm-lmpath constructor (kmod/lmpath-table.c in
// its userspace build).  Beyond "no crash, no leak, no undefined
// behaviour" (ASan/UBSan) it checks what a user relies on:
//  - a rejected table always says why (ti->error is set, and is not dm
//    core's "Unknown error" placeholder);
//  - an accepted table's TABLE status is itself accepted and prints the
//    same TABLE status again (round trip), with the same INFO status --
//    unless the table used dm_split_args() escapes: a word with an
//    escaped blank is printed back raw, by the stock target too;
//  - every selector of an accepted map returns a path of its group.

#include "lmpath-ps.h"
#include "lmpath-user.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string statusOf(lmpath *m, bool table) {
    static char buf[256 * 1024];
    lmpath_user_status(m, table ? 1 : 0, buf, sizeof(buf));
    return buf;
}

[[noreturn]] void fail(const char *what, const std::string &a, const std::string &b) {
    std::fprintf(stderr, "%s\n  table:  \"%s\"\n  then:   \"%s\"\n", what, a.c_str(), b.c_str());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    lmpath_user_set_nr_cpus(4, 2);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 8192)
        return 0;
    // dm core hands the constructor a C string: stop at the first NUL.
    const std::string table(reinterpret_cast<const char *>(data),
                            strnlen(reinterpret_cast<const char *>(data), size));

    lmpath *m = nullptr;
    const char *error = nullptr;
    if (lmpath_user_create(table.c_str(), &m, &error)) {
        if (!error || !*error || !std::strcmp(error, "Unknown error"))
            fail("rejected without a reason", table, error ? error : "(null)");
        return 0;
    }

    const std::string printed = statusOf(m, true);
    const std::string info = statusOf(m, false);

    if (table.find('\\') == std::string::npos) {
        lmpath *again = nullptr;
        if (lmpath_user_create(printed.c_str(), &again, &error))
            fail("TABLE status rejected by the constructor", table, printed + " -> " + error);
        if (statusOf(again, true) != printed)
            fail("TABLE status changed on the round trip", printed, statusOf(again, true));
        if (statusOf(again, false) != info)
            fail("INFO status changed on the round trip", info, statusOf(again, false));
        lmpath_user_destroy(again);
    }

    for (unsigned pg = 0; pg < lmpath_user_nr_pgs(m); ++pg) {
        lmpath_ps *ps = lmpath_user_ps(m, pg);
        for (unsigned cpu = 0; cpu < 4; ++cpu) {
            lmpath_user_set_cpu(cpu);
            lmpath_ps_path *p = ps->type->select_path(ps, 4096);
            bool found = false;
            for (unsigned i = 0; i < lmpath_user_nr_paths(m, pg); ++i)
                found |= lmpath_user_path(m, pg, i) == p;
            // io-affinity maps CPUs, so any mapped path will do; all are usable.
            if (!found)
                fail("selector returned no path of its group", table, std::to_string(pg));
            if (ps->type->start_io)
                ps->type->start_io(ps, p, 4096);
            if (ps->type->end_io)
                ps->type->end_io(ps, p, 4096, 0);
        }
    }
    lmpath_user_set_cpu(0);
    lmpath_user_destroy(m);
    return 0;
}
