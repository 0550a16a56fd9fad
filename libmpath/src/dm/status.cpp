#include "mpath/dm/status.h"

#include "dm/table_tokens.h"
#include "mpath/dm/selectors.h"

#include <cerrno>
#include <sys/sysmacros.h>

namespace mpath::dm {

using model::DmPathState;
using model::GroupState;
using model::Map;
using model::Path;
using model::PathGroup;

namespace {

constexpr unsigned maxGroups = 1024;
constexpr unsigned maxPaths = 1024;
constexpr unsigned maxWords = 1024;

Error invalid(std::string message) {
    return Error{EINVAL, std::move(message)};
}

int readWords(TableTokens &t, unsigned count, std::vector<std::string> &out, const char *what) {
    std::string_view w;
    for (unsigned i = 0; i < count; ++i) {
        if (int r = t.word(w, what); r < 0)
            return r;
        out.emplace_back(w);
    }
    return 0;
}

} // namespace

Result<MapStatus> parseStatus(std::string_view info, Map &map) {
    TableTokens t(info);
    auto failed = [&](int) { return invalid(t.error()); };

    MapStatus st;
    unsigned n = 0;
    std::vector<std::string> words;
    if (int r = t.number(n, "feature info count", maxWords); r < 0)
        return failed(r);
    if (int r = readWords(t, n, words, "feature info word"); r < 0)
        return failed(r);
    // The stock target prints "2 <queueing> <pg_init count>".
    if (n >= 2) {
        st.queueing = words[0] != "0";
        TableTokens nt(words[1]);
        if (nt.number(st.pgInitCount, "pg_init count") < 0)
            return invalid("pg_init count is not a number: '" + words[1] + "'");
    }
    words.clear();
    if (int r = t.number(n, "hardware handler info count", maxWords); r < 0)
        return failed(r);
    if (int r = readWords(t, n, words, "hardware handler info word"); r < 0)
        return failed(r);

    unsigned groups = 0;
    if (int r = t.number(groups, "path group count", maxGroups); r < 0)
        return failed(r);
    if (int r = t.number(st.nextGroup, "next path group", maxGroups); r < 0)
        return failed(r);
    const bool fromTable = !map.groups.empty();
    if (fromTable && groups != map.groups.size())
        return failed(t.fail("status has " + std::to_string(groups) + " path groups, the table " +
                             std::to_string(map.groups.size())));

    Map out = map;
    if (!fromTable)
        out.groups.resize(groups);
    st.selectorInfo.resize(groups);
    std::string_view w;
    for (unsigned g = 0; g < groups; ++g) {
        PathGroup &pg = out.groups[g];
        if (int r = t.word(w, "path group state"); r < 0)
            return failed(r);
        if (w == "A")
            pg.state = GroupState::Active;
        else if (w == "E")
            pg.state = GroupState::Enabled;
        else if (w == "D")
            pg.state = GroupState::Disabled;
        else
            return failed(t.fail("path group state '" + std::string(w) + "' is not A, E or D"));
        words.clear();
        if (int r = t.number(n, "selector info count", maxWords); r < 0)
            return failed(r);
        if (int r = readWords(t, n, words, "selector info word"); r < 0)
            return failed(r);
        unsigned paths = 0, pathInfo = 0;
        if (int r = t.number(paths, "path count", maxPaths); r < 0)
            return failed(r);
        if (fromTable && paths != pg.paths.size())
            return failed(t.fail("group " + std::to_string(g + 1) + " has " +
                                 std::to_string(paths) + " paths in the status, " +
                                 std::to_string(pg.paths.size()) + " in the table"));
        if (!fromTable) {
            pg.paths.resize(paths);
            pg.pathArgs.clear();
        }
        if (int r = t.number(pathInfo, "per-path info count", maxWords); r < 0)
            return failed(r);
        st.selectorInfo[g].resize(paths);
        for (unsigned p = 0; p < paths; ++p) {
            Path &path = pg.paths[p];
            if (int r = t.word(w, "path device"); r < 0)
                return failed(r);
            auto colon = w.find(':');
            unsigned maj = 0, min = 0;
            TableTokens a(colon == std::string_view::npos ? std::string_view()
                                                          : w.substr(0, colon));
            TableTokens b(colon == std::string_view::npos ? std::string_view()
                                                          : w.substr(colon + 1));
            if (colon == std::string_view::npos || a.number(maj, "major", 0xfff) < 0 ||
                b.number(min, "minor", 0xfffff) < 0 || !a.atEnd() || !b.atEnd())
                return failed(t.fail("path device '" + std::string(w) + "' is not major:minor"));
            dev_t devt = makedev(maj, min);
            if (fromTable && devt != path.devt)
                return failed(
                    t.fail("path " + std::string(w) + " is not the table's " + path.devtString()));
            path.devt = devt;
            if (int r = t.word(w, "path state"); r < 0)
                return failed(r);
            if (w == "A")
                path.dmState = DmPathState::Active;
            else if (w == "F")
                path.dmState = DmPathState::Failed;
            else
                return failed(t.fail("path state '" + std::string(w) + "' is not A or F"));
            if (int r = t.number(path.failCount, "fail count"); r < 0)
                return failed(r);
            if (int r = readWords(t, pathInfo, st.selectorInfo[g][p], "path info word"); r < 0)
                return failed(r);
        }
    }
    if (!t.atEnd()) {
        (void)t.word(w, "");
        return failed(t.fail("unexpected '" + std::string(w) + "' after the last path group"));
    }
    map = std::move(out);
    return st;
}

Result<MapStatus> parseStatusLine(std::string_view line, Map &map) {
    TableTokens t(line);
    uint64_t start = 0, length = 0;
    std::string_view target;
    if (t.number(start, "start sector") < 0 || t.number(length, "length") < 0 ||
        t.word(target, "target name") < 0)
        return invalid(t.error());
    Map out = map;
    auto st = parseStatus(line.substr(t.offset()), out);
    if (!st)
        return st;
    out.sizeSectors = length;
    out.target = target;
    map = std::move(out);
    return st;
}

std::string buildStatus(const Map &map, const MapStatus &status) {
    std::string out = "2 " + std::string(status.queueing ? "1" : "0") + ' ' +
                      std::to_string(status.pgInitCount) + " 0 " +
                      std::to_string(map.groups.size()) + ' ';
    unsigned next = status.nextGroup;
    if (next == 0 && !map.groups.empty())
        next = map.initialGroup;
    out += std::to_string(next);
    for (size_t g = 0; g < map.groups.size(); ++g) {
        const PathGroup &pg = map.groups[g];
        char state = 'E';
        if (pg.state == GroupState::Active)
            state = 'A';
        else if (pg.state == GroupState::Disabled)
            state = 'D';
        const SelectorFacts *facts = findSelector(pg.selector);
        const int info = facts ? static_cast<int>(facts->statusArgs) : 0;
        out += ' ';
        out += state;
        out += " 0 " + std::to_string(pg.paths.size()) + ' ' + std::to_string(info);
        for (size_t p = 0; p < pg.paths.size(); ++p) {
            const Path &path = pg.paths[p];
            out += ' ' + path.devtString() + (path.dmState == DmPathState::Failed ? " F " : " A ") +
                   std::to_string(path.failCount);
            const std::vector<std::string> *given = nullptr;
            if (g < status.selectorInfo.size() && p < status.selectorInfo[g].size() &&
                status.selectorInfo[g][p].size() == static_cast<size_t>(info))
                given = &status.selectorInfo[g][p];
            for (int i = 0; i < info; ++i) {
                if (given)
                    out += ' ' + (*given)[i];
                else if (pg.selector == "service-time" && i == 1) {
                    const auto &args = path.pathArgs.empty() ? pg.pathArgs : path.pathArgs;
                    out += ' ' + (args.size() > 1 ? args[1] : std::string("1"));
                } else
                    out += " 0";
            }
        }
    }
    return out;
}

} // namespace mpath::dm
