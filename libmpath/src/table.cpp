#include "mpath/table.h"

#include "table_tokens.h"

#include <cerrno>
#include <sys/sysmacros.h>

namespace mpath {

namespace {

// Limits of the stock target's constructor (dm-mpath.c), so a table we
// build is never one the kernel rejects for its size.
constexpr unsigned maxFeatureArgs = 8;
constexpr unsigned maxHwHandlerArgs = 1024;
constexpr unsigned maxGroups = 1024;
constexpr unsigned maxPaths = 1024;
constexpr unsigned maxSelectorArgs = 1024;

int setWhy(std::string *why, std::string message) {
    if (why)
        *why = std::move(message);
    return -EINVAL;
}

bool isWord(const std::string &s) {
    if (s.empty())
        return false;
    for (char c : s)
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0')
            return false;
    return true;
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

int Table::selectorTableArgs(std::string_view selector) {
    if (selector == "round-robin" || selector == "queue-length" ||
        selector == "historical-service-time" || selector == "io-affinity")
        return 1;
    if (selector == "service-time")
        return 2;
    return -1;
}

int Table::build(const Map &map, std::string &params, std::string *why) {
    if (map.features.size() > maxFeatureArgs)
        return setWhy(why, "map has " + std::to_string(map.features.size()) +
                               " feature words; the target takes at most 8");
    for (const auto &f : map.features)
        if (!isWord(f))
            return setWhy(why, "feature '" + f + "' is empty or contains whitespace");
    if (map.hwHandler.empty() && !map.hwHandlerArgs.empty())
        return setWhy(why, "hardware handler arguments given without a hardware handler");
    if (!map.hwHandler.empty() && !isWord(map.hwHandler))
        return setWhy(why, "hardware handler '" + map.hwHandler + "' contains whitespace");
    for (const auto &a : map.hwHandlerArgs)
        if (!isWord(a))
            return setWhy(why,
                          "hardware handler argument '" + a + "' is empty or contains whitespace");
    if (map.hwHandlerArgs.size() + 1 > maxHwHandlerArgs)
        return setWhy(why, "too many hardware handler arguments");
    if (map.groups.size() > maxGroups)
        return setWhy(why, "map has " + std::to_string(map.groups.size()) +
                               " path groups; the target takes at most 1024");
    if (map.groups.empty() ? map.initialGroup > 0
                           : (map.initialGroup < 1 || map.initialGroup > map.groups.size()))
        return setWhy(why, "initial group " + std::to_string(map.initialGroup) +
                               " is not one of the map's " + std::to_string(map.groups.size()) +
                               " groups");

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
            return setWhy(why, where + "path selector '" + g.selector + "' is not a single word");
        if (g.selectorArgs.size() > maxSelectorArgs)
            return setWhy(why, where + "too many selector arguments");
        for (const auto &a : g.selectorArgs)
            if (!isWord(a))
                return setWhy(why, where + "selector argument '" + a +
                                       "' is empty or contains whitespace");
        if (g.paths.empty())
            return setWhy(why, where + "has no paths; the target needs at least one per group");
        if (g.paths.size() > maxPaths)
            return setWhy(why, where + "has more than 1024 paths");
        int known = selectorTableArgs(g.selector);
        if (known >= 0 && g.pathArgs.size() > static_cast<size_t>(known))
            return setWhy(why, where + g.selector + " takes at most " + std::to_string(known) +
                                   " per-path arguments, " + std::to_string(g.pathArgs.size()) +
                                   " given");
        for (const auto &a : g.pathArgs)
            if (!isWord(a))
                return setWhy(why,
                              where + "path argument '" + a + "' is empty or contains whitespace");

        out += ' ' + g.selector + ' ' + std::to_string(g.selectorArgs.size());
        appendWords(out, g.selectorArgs);
        out += ' ' + std::to_string(g.paths.size()) + ' ' + std::to_string(g.pathArgs.size());
        for (const auto &p : g.paths) {
            if (p.devt == 0)
                return setWhy(why, where + "path '" + p.kernelName + "' has no device number");
            // The table has one argument count per group.
            if (!p.pathArgs.empty() && p.pathArgs.size() != g.pathArgs.size())
                return setWhy(why, where + "path " + p.devtString() + " has " +
                                       std::to_string(p.pathArgs.size()) +
                                       " selector arguments, the group " +
                                       std::to_string(g.pathArgs.size()));
            for (const auto &a : p.pathArgs)
                if (!isWord(a))
                    return setWhy(why, where + "path argument '" + a +
                                           "' is empty or contains whitespace");
            out += ' ' + p.devtString();
            appendWords(out, p.pathArgs.empty() ? g.pathArgs : p.pathArgs);
        }
    }
    params = std::move(out);
    return 0;
}

int Table::buildLine(const Map &map, std::string &line, std::string *why) {
    if (map.sizeSectors == 0)
        return setWhy(why, "map size is 0 sectors");
    if (!isWord(map.target))
        return setWhy(why, "target name '" + map.target + "' is not a single word");
    std::string params;
    if (int r = build(map, params, why); r < 0)
        return r;
    line = "0 " + std::to_string(map.sizeSectors) + ' ' + map.target + ' ' + params;
    return 0;
}

int Table::parse(std::string_view params, Map &map, std::string *why) {
    TableTokens t(params);
    auto failed = [&](int r) {
        if (why)
            *why = t.error();
        return r;
    };

    Map out = map;
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
    map = std::move(out);
    return 0;
}

int Table::parseLine(std::string_view line, Map &map, std::string *why) {
    TableTokens t(line);
    uint64_t start = 0, length = 0;
    std::string_view target;
    if (int r = t.number(start, "start sector"); r < 0)
        return setWhy(why, t.error());
    if (start != 0)
        return setWhy(why, "multipath maps start at sector 0, not " + std::to_string(start));
    if (int r = t.number(length, "length"); r < 0)
        return setWhy(why, t.error());
    if (int r = t.word(target, "target name"); r < 0)
        return setWhy(why, t.error());
    Map out = map;
    if (int r = parse(line.substr(t.offset()), out, why); r < 0)
        return r;
    out.sizeSectors = length;
    out.target = target;
    map = std::move(out);
    return 0;
}

} // namespace mpath
