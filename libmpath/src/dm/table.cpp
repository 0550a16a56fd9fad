#include "mpath/dm/table.h"

#include "dm/table_tokens.h"
#include "mpath/dm/features.h"
#include "mpath/dm/selectors.h"

#include <cerrno>
#include <sys/sysmacros.h>

namespace mpath::dm {

using model::Map;
using model::Path;
using model::PathGroup;

namespace {

// Limits of the stock target's constructor (dm-mpath.c), so a table we
// build is never one the kernel rejects for its size.
constexpr unsigned maxFeatureArgs = 8;
constexpr unsigned maxHwHandlerArgs = 1024;
constexpr unsigned maxGroups = 1024;
constexpr unsigned maxPaths = 1024;
constexpr unsigned maxSelectorArgs = 1024;

Error invalid(std::string message) {
    return Error{EINVAL, std::move(message)};
}

/// A word the kernel splits out of the table as it is (dm_split_args()).
bool isWord(const std::string &s) {
    return isTableWord(s);
}

void appendWords(std::string &out, const std::vector<std::string> &words) {
    for (const auto &w : words) {
        out += ' ';
        out += w;
    }
}

int parseDevt(std::string_view w, dev_t &devt) {
    auto colon = w.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == w.size())
        return -EINVAL;
    unsigned long maj = 0, min = 0;
    for (char c : w.substr(0, colon)) {
        if (c < '0' || c > '9')
            return -EINVAL;
        maj = maj * 10 + static_cast<unsigned>(c - '0');
        if (maj > 0xfff)
            return -EINVAL;
    }
    for (char c : w.substr(colon + 1)) {
        if (c < '0' || c > '9')
            return -EINVAL;
        min = min * 10 + static_cast<unsigned>(c - '0');
        if (min > 0xfffff)
            return -EINVAL;
    }
    devt = makedev(maj, min);
    return 0;
}

} // namespace

Result<dev_t> parseDeviceNumber(std::string_view text) {
    dev_t devt = 0;
    if (parseDevt(text, devt) < 0)
        return invalid("'" + std::string(text) + "' is not a device number (major:minor)");
    return devt;
}

Result<std::string> buildTable(const Map &map) {
    if (map.features.size() > maxFeatureArgs)
        return invalid("map has " + std::to_string(map.features.size()) +
                       " feature words; the target takes at most 8");
    for (const auto &f : map.features)
        if (!isWord(f))
            return invalid("feature '" + f + "' is empty or has a blank or a backslash");
    if (map.hwHandler.empty() && !map.hwHandlerArgs.empty())
        return invalid("hardware handler arguments given without a hardware handler");
    if (!map.hwHandler.empty() && !isWord(map.hwHandler))
        return invalid("hardware handler '" + map.hwHandler + "' has a blank or a backslash");
    for (const auto &a : map.hwHandlerArgs)
        if (!isWord(a))
            return invalid("hardware handler argument '" + a +
                           "' is empty or has a blank or a backslash");
    if (map.hwHandlerArgs.size() + 1 > maxHwHandlerArgs)
        return invalid("too many hardware handler arguments");
    if (map.groups.size() > maxGroups)
        return invalid("map has " + std::to_string(map.groups.size()) +
                       " path groups; the target takes at most 1024");
    if (map.groups.empty() ? map.initialGroup > 0
                           : (map.initialGroup < 1 || map.initialGroup > map.groups.size()))
        return invalid("initial group " + std::to_string(map.initialGroup) +
                       " is not one of the map's " + std::to_string(map.groups.size()) + " groups");

    std::string out = std::to_string(map.features.size());
    appendWords(out, map.features);
    if (map.hwHandler.empty()) {
        out += " 0";
    } else {
        out += ' ' + std::to_string(map.hwHandlerArgs.size() + 1) + ' ' + map.hwHandler;
        appendWords(out, map.hwHandlerArgs);
    }
    out += ' ' + std::to_string(map.groups.size()) + ' ' + std::to_string(map.initialGroup);

    unsigned gi = 0;
    for (const auto &g : map.groups) {
        ++gi;
        const std::string where = "group " + std::to_string(gi) + ": ";
        if (!isWord(g.selector))
            return invalid(where + "path selector '" + g.selector + "' is not a single word");
        if (g.selectorArgs.size() > maxSelectorArgs)
            return invalid(where + "too many selector arguments");
        for (const auto &a : g.selectorArgs)
            if (!isWord(a))
                return invalid(where + "selector argument '" + a +
                               "' is empty or has a blank or a backslash");
        if (g.paths.empty())
            return invalid(where + "has no paths; the target needs at least one per group");
        if (g.paths.size() > maxPaths)
            return invalid(where + "has more than 1024 paths");
        const SelectorFacts *facts = findSelector(g.selector);
        const size_t known = facts ? facts->tableArgs : 0;
        if (facts && g.pathArgs.size() > known)
            return invalid(where + g.selector + " takes at most " + std::to_string(known) +
                           " per-path arguments, " + std::to_string(g.pathArgs.size()) + " given");
        for (const auto &a : g.pathArgs)
            if (!isWord(a))
                return invalid(where + "path argument '" + a +
                               "' is empty or has a blank or a backslash");

        out += ' ' + g.selector + ' ' + std::to_string(g.selectorArgs.size());
        appendWords(out, g.selectorArgs);
        out += ' ' + std::to_string(g.paths.size()) + ' ' + std::to_string(g.pathArgs.size());
        for (const auto &p : g.paths) {
            if (p.devt == 0)
                return invalid(where + "path '" + p.kernelName + "' has no device number");
            // The table has one argument count per group.
            if (!p.pathArgs.empty() && p.pathArgs.size() != g.pathArgs.size())
                return invalid(
                    where + "path " + p.devtString() + " has " + std::to_string(p.pathArgs.size()) +
                    " selector arguments, the group " + std::to_string(g.pathArgs.size()));
            for (const auto &a : p.pathArgs)
                if (!isWord(a))
                    return invalid(where + "path argument '" + a +
                                   "' is empty or has a blank or a backslash");
            out += ' ' + p.devtString();
            appendWords(out, p.pathArgs.empty() ? g.pathArgs : p.pathArgs);
        }
    }
    return out;
}

Result<std::string> buildTableLine(const Map &map) {
    if (map.sizeSectors == 0)
        return invalid("map size is 0 sectors");
    if (!isWord(map.target))
        return invalid("target name '" + map.target + "' is not a single word");
    auto params = buildTable(map);
    if (!params)
        return params;
    return "0 " + std::to_string(map.sizeSectors) + ' ' + map.target + ' ' + *params;
}

Result<Map> parseTable(std::string_view params, Map base) {
    TableTokens t(params);
    auto failed = [&](int) { return invalid(t.error()); };

    Map out = std::move(base);
    out.features.clear();
    out.hwHandler.clear();
    out.hwHandlerArgs.clear();
    out.groups.clear();

    unsigned n = 0;
    std::string_view w;
    if (int r = t.number(n, "feature count", maxFeatureArgs); r < 0)
        return failed(r);
    for (unsigned i = 0; i < n; ++i) {
        if (int r = t.word(w, "feature word"); r < 0)
            return failed(r);
        out.features.emplace_back(w);
    }

    if (int r = t.number(n, "hardware handler argument count", maxHwHandlerArgs); r < 0)
        return failed(r);
    if (n > 0) {
        if (int r = t.word(w, "hardware handler name"); r < 0)
            return failed(r);
        out.hwHandler = w;
        for (unsigned i = 1; i < n; ++i) {
            if (int r = t.word(w, "hardware handler argument"); r < 0)
                return failed(r);
            out.hwHandlerArgs.emplace_back(w);
        }
    }

    unsigned groups = 0;
    if (int r = t.number(groups, "path group count", maxGroups); r < 0)
        return failed(r);
    if (int r = t.number(out.initialGroup, "initial path group", maxGroups); r < 0)
        return failed(r);
    if (groups > 0 && (out.initialGroup < 1 || out.initialGroup > groups))
        return failed(t.fail("initial path group " + std::to_string(out.initialGroup) +
                             " is not between 1 and " + std::to_string(groups)));

    for (unsigned g = 0; g < groups; ++g) {
        PathGroup pg;
        pg.pathArgs.clear();
        if (int r = t.word(w, "path selector name"); r < 0)
            return failed(r);
        pg.selector = w;
        if (int r = t.number(n, "selector argument count", maxSelectorArgs); r < 0)
            return failed(r);
        for (unsigned i = 0; i < n; ++i) {
            if (int r = t.word(w, "selector argument"); r < 0)
                return failed(r);
            pg.selectorArgs.emplace_back(w);
        }
        unsigned paths = 0, pathArgs = 0;
        if (int r = t.number(paths, "path count", maxPaths); r < 0)
            return failed(r);
        if (paths == 0)
            return failed(t.fail("path group " + std::to_string(g + 1) + " has no paths"));
        if (int r = t.number(pathArgs, "per-path argument count", maxSelectorArgs); r < 0)
            return failed(r);
        for (unsigned p = 0; p < paths; ++p) {
            Path path;
            if (int r = t.word(w, "path device"); r < 0)
                return failed(r);
            if (parseDevt(w, path.devt) < 0)
                return failed(t.fail("path device '" + std::string(w) + "' is not major:minor"));
            // The first path's arguments stand for the group; a path
            // whose arguments differ keeps its own.
            std::vector<std::string> args;
            for (unsigned a = 0; a < pathArgs; ++a) {
                if (int r = t.word(w, "per-path argument"); r < 0)
                    return failed(r);
                args.emplace_back(w);
            }
            if (p == 0)
                pg.pathArgs = args;
            else if (args != pg.pathArgs)
                path.pathArgs = std::move(args);
            pg.paths.push_back(std::move(path));
        }
        out.groups.push_back(std::move(pg));
    }
    if (!t.atEnd()) {
        (void)t.word(w, "");
        return failed(t.fail("unexpected '" + std::string(w) + "' after the last path group"));
    }
    return out;
}

Result<Map> parseTableLine(std::string_view line, Map base) {
    TableTokens t(line);
    uint64_t start = 0, length = 0;
    std::string_view target;
    if (t.number(start, "start sector") < 0)
        return invalid(t.error());
    if (start != 0)
        return invalid("multipath maps start at sector 0, not " + std::to_string(start));
    if (t.number(length, "length") < 0 || t.word(target, "target name") < 0)
        return invalid(t.error());
    auto out = parseTable(line.substr(t.offset()), std::move(base));
    if (!out)
        return out;
    out->sizeSectors = length;
    out->target = target;
    return out;
}

} // namespace mpath::dm
