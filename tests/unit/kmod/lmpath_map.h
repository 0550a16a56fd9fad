#pragma once

// A constructed lmpath map (userspace build) with its ownership in the
// type, and the status text the way dmsetup shows it.

#include "lmpath-user.h"

#include <memory>
#include <string>

namespace lmpath_test {

struct MapDeleter {
    void operator()(lmpath *m) const { lmpath_user_destroy(m); }
};
using MapPtr = std::unique_ptr<lmpath, MapDeleter>;

struct CtrResult {
    MapPtr map;       // set when the constructor accepted the table
    int error = 0;    // negative errno when it did not
    std::string what; // ti->error when it did not
};

inline CtrResult construct(const std::string &table) {
    CtrResult r;
    lmpath *m = nullptr;
    const char *what = nullptr;
    r.error = lmpath_user_create(table.c_str(), &m, &what);
    r.map.reset(m);
    if (what)
        r.what = what;
    return r;
}

// dmsetup table / dmsetup status arguments, trailing blanks trimmed.
inline std::string status(lmpath *m, bool table) {
    std::string buf(64 * 1024, '\0');
    lmpath_user_status(m, table ? 1 : 0, buf.data(), static_cast<unsigned>(buf.size()));
    buf.resize(buf.find('\0'));
    while (!buf.empty() && buf.back() == ' ')
        buf.pop_back();
    return buf;
}

inline std::string tableOf(lmpath *m) {
    return status(m, true);
}
inline std::string infoOf(lmpath *m) {
    return status(m, false);
}

} // namespace lmpath_test
