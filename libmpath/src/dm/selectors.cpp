#include "mpath/dm/selectors.h"

#include <algorithm>

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
