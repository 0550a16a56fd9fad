#include "mpath/config/values.h"

namespace mpath::config {

namespace {

// "<head> <count> word..." as path_selector, hardware_handler and features
// write their words.
std::string countedWords(const std::string &head, const std::vector<std::string> &words) {
    std::string s = head;
    if (!s.empty())
        s += ' ';
    s += std::to_string(words.size());
    for (const auto &w : words)
        s += ' ' + w;
    return s;
}

} // namespace

std::string toString(const Failback &v) {
    if (v.kind == Failback::Kind::Seconds)
        return std::to_string(v.seconds);
    return std::string(nameOf(kFailbackKindNames, v.kind));
}

std::string toString(const NoPathRetry &v) {
    if (v.kind == NoPathRetry::Kind::Retries)
        return std::to_string(v.retries);
    return std::string(nameOf(kNoPathRetryKindNames, v.kind));
}

std::string toString(const OffOrNumber &v) {
    return v.off ? "off" : std::to_string(v.value);
}

std::string toString(const DevLossTmo &v) {
    return v.infinity ? "infinity" : std::to_string(v.seconds);
}

std::string toString(const MaxFds &v) {
    return v.max ? "max" : std::to_string(v.value);
}

std::string toString(const PathSelector &v) {
    return countedWords(v.name, v.args);
}

std::string toString(const HardwareHandler &v) {
    if (v.name.empty())
        return "0";
    std::vector<std::string> words{v.name};
    words.insert(words.end(), v.args.begin(), v.args.end());
    return countedWords("", words);
}

std::string featuresToString(const std::vector<std::string> &words) {
    return countedWords("", words);
}

} // namespace mpath::config
