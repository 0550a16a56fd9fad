#include "prio/weighted_path_prioritizer.h"

#include <cstdlib>
#include <sstream>

namespace mpath::prio {

Result<std::unique_ptr<WeightedPathPrioritizer>>
WeightedPathPrioritizer::fromArgs(std::string_view args) {
    auto fail = [](const std::string &why) { return Error{EINVAL, "weightedpath: " + why}; };
    std::istringstream in{std::string(args)};
    std::string key;
    if (!(in >> key))
        return fail("missing hbtl|devname|serial|wwn");
    auto p = std::make_unique<WeightedPathPrioritizer>();
    if (key == "hbtl")
        p->key_ = Key::Hbtl;
    else if (key == "devname")
        p->key_ = Key::Devname;
    else if (key == "serial")
        p->key_ = Key::Serial;
    else if (key == "wwn")
        p->key_ = Key::Wwn;
    else
        return fail("unknown key '" + key + "'");
    std::string regex, prio;
    while (in >> regex) {
        if (!(in >> prio))
            return fail("regular expression '" + regex + "' has no priority");
        char *end = nullptr;
        long value = std::strtol(prio.c_str(), &end, 10);
        if (*end != '\0' || value < 0 || value > 1000000)
            return fail("invalid priority '" + prio + "'");
        auto re = config::Regex::compile(regex);
        if (!re)
            return fail("invalid regular expression '" + regex + "': " + re.error().message);
        p->rules_.emplace_back(std::move(*re), static_cast<int>(value));
    }
    if (p->rules_.empty())
        return fail("no REGEX PRIO pairs");
    return p;
}

int WeightedPathPrioritizer::priority(const model::Path &path) const {
    std::string subject;
    switch (key_) {
    case Key::Hbtl:
        subject = path.scsiAddress;
        break;
    case Key::Devname:
        subject = path.kernelName;
        break;
    case Key::Serial:
        subject = path.serial;
        break;
    case Key::Wwn:
        subject = path.ids.hostWwnn + ":" + path.ids.hostWwpn + ":" + path.ids.targetWwnn + ":" +
                  path.ids.targetWwpn;
        break;
    }
    for (const auto &[re, prio] : rules_)
        if (re.matches(subject))
            return prio;
    return 0;
}

std::function<Result<int>()> WeightedPathPrioritizer::job(const model::Path &path) const {
    // The rules share their compiled expressions; the copy is cheap.
    auto self = std::make_shared<WeightedPathPrioritizer>(*this);
    return [self, path]() -> Result<int> { return self->priority(path); };
}

} // namespace mpath::prio
