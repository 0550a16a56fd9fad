#include "prio/weighted_path_prioritizer.h"

#include <cstdlib>
#include <sstream>

namespace mpath {

std::unique_ptr<WeightedPathPrioritizer> WeightedPathPrioritizer::fromArgs(std::string_view args,
                                                                           std::string *error) {
    auto fail = [&](const std::string &why) {
        if (error)
            *error = "weightedpath: " + why;
        return nullptr;
    };
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
        std::string why;
        ConfigRegex re = ConfigRegex::compile(regex, &why);
        if (!re.valid())
            return fail("invalid regular expression '" + regex + "': " + why);
        p->rules_.emplace_back(std::move(re), static_cast<int>(value));
    }
    if (p->rules_.empty())
        return fail("no REGEX PRIO pairs");
    return p;
}

int WeightedPathPrioritizer::priority(const Path &path) const {
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

} // namespace mpath
