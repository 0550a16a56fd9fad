#include "mpath/dm/selectors.h"

#include <algorithm>
#include <charconv>

namespace mpath::dm {

const SelectorFacts *findSelector(std::string_view name) {
    for (const auto &s : kSelectors)
        if (s.name == name)
            return &s;
    return nullptr;
}

std::string selectorNames() {
    std::string out;
    for (const auto &s : kSelectors) {
        if (!out.empty())
            out += ", ";
        out += s.name;
    }
    return out;
}

Result<void> checkSelectorArgs(const SelectorFacts &selector,
                               const std::vector<std::string> &args) {
    const std::string name(selector.name);
    const size_t most = selector.selectorArgs.size();
    if (most == 0 && !args.empty())
        return Error{EINVAL, name + " takes no selector arguments"};
    if (args.size() > most) {
        std::string names;
        for (const auto &a : selector.selectorArgs)
            names += (names.empty() ? "" : ", ") + std::string(a.name);
        return Error{EINVAL, name + " takes at most " + std::to_string(most) +
                                 " selector arguments (" + names + "), not " +
                                 std::to_string(args.size())};
    }
    for (size_t i = 0; i < args.size(); ++i) {
        const SelectorArgument &a = selector.selectorArgs[i];
        const std::string &w = args[i];
        // Digits only: the kernel's sscanf("%u") would also take a sign or
        // leading blanks, and wrap a negative number around.
        uint32_t v = 0;
        const bool digits = !w.empty() && std::all_of(w.begin(), w.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
        auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
        if (!digits || ec != std::errc() || end != w.data() + w.size() || v < a.min || v > a.max)
            return Error{EINVAL, name + "'s " + std::string(a.name) + " is a number from " +
                                     std::to_string(a.min) + " to " + std::to_string(a.max) +
                                     ", not '" + w + "'"};
        // The kernel prints the number back without them: the table would
        // never read back as built.
        if (w.size() > 1 && w[0] == '0')
            return Error{EINVAL, name + "'s " + std::string(a.name) +
                                     " is written without leading zeros: '" + std::to_string(v) +
                                     "', not '" + w + "'"};
    }
    return ok();
}

std::vector<std::string> pathArgsAsPrinted(std::string_view selector, unsigned repeat) {
    const std::string kept = std::to_string(std::min(repeat, 1u));
    if (selector == "round-robin" || selector == "queue-length")
        return {kept};
    if (selector == "service-time")
        return {kept, "1"};
    if (selector == "historical-service-time")
        return {"0"};
    return {std::to_string(repeat)};
}

std::vector<std::string> selectorArgsAsPrinted(std::string_view selector,
                                               std::vector<std::string> args) {
    if (selector == "historical-service-time" && args.size() < 2) {
        if (args.empty())
            args.push_back("972");
        args.push_back("0");
    }
    return args;
}

} // namespace mpath::dm
