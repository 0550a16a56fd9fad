#include "config/value_text.h"

#include "mpath/dm/features.h"
#include "mpath/dm/selectors.h"

#include <algorithm>
#include <charconv>

namespace mpath::config::detail {

namespace {

bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool parseUnsigned(std::string_view s, unsigned &out) {
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

bool parseInt(std::string_view s, int &out) {
    if (s.empty())
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

// "a number", "a number >= 1", "a number from 0 to 50".
std::string numberRule(const Range &r) {
    if (r.max >= UINT_MAX)
        return r.min <= 0 ? "a number" : "a number >= " + std::to_string(r.min);
    return "a number from " + std::to_string(r.min) + " to " + std::to_string(r.max);
}

bool inRange(unsigned v, const Range &r) {
    return static_cast<long long>(v) >= r.min && static_cast<long long>(v) <= r.max;
}

template <typename E, size_t N>
std::string parseName(std::string_view kw, const std::string &text,
                      const std::array<EnumName<E>, N> &names, E &out) {
    if (auto v = valueOf(names, text)) {
        out = *v;
        return {};
    }
    return invalidValue(kw, text, namesOf(names));
}

// "<count> word..." as features and hardware_handler write it.
std::string parseCounted(std::string_view kw, const std::string &text,
                         std::vector<std::string> &words) {
    words = splitWords(text);
    unsigned count;
    if (words.empty() || !parseUnsigned(words[0], count))
        return invalidValue(kw, text, "a word count followed by that many words, e.g. \"0\"");
    words.erase(words.begin());
    if (count != words.size())
        return "invalid value '" + text + "' for " + std::string(kw) + ": it announces " +
               std::to_string(count) + " word(s) but has " + std::to_string(words.size()) +
               "; accepted: a word count followed by that many words";
    return {};
}

} // namespace

std::string invalidValue(std::string_view kw, std::string_view text, std::string_view accepted) {
    return "invalid value '" + std::string(text) + "' for " + std::string(kw) +
           "; accepted: " + std::string(accepted);
}

std::vector<std::string> splitWords(std::string_view s) {
    std::vector<std::string> words;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && isBlank(s[i]))
            ++i;
        size_t start = i;
        while (i < s.size() && !isBlank(s[i]))
            ++i;
        if (i > start)
            words.emplace_back(s.substr(start, i - start));
    }
    return words;
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       unsigned &out) {
    unsigned v;
    if (!parseUnsigned(text, v) || !inRange(v, rule.range))
        return invalidValue(kw, text, numberRule(rule.range));
    out = v;
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &, int &out) {
    if (!parseInt(text, out))
        return invalidValue(kw, text, "a whole number (negative values allowed)");
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule, bool &out) {
    static constexpr std::array<EnumName<bool>, 2> yesNo{{{true, "yes"}, {false, "no"}}};
    const std::span<const EnumName<bool>> words = rule.words.empty() ? yesNo : rule.words;
    for (const auto &w : words) {
        if (w.name == text) {
            out = w.value;
            return {};
        }
    }
    std::string accepted;
    for (const auto &w : words)
        accepted += (accepted.empty() ? "" : ", ") + std::string(w.name);
    return invalidValue(kw, text, accepted);
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       std::string &out) {
    if (rule.validate) {
        std::string accepted = rule.validate(text);
        if (!accepted.empty())
            return invalidValue(kw, text, accepted);
    }
    out = text;
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &,
                       GroupingPolicy &out) {
    return parseName(kw, text, kGroupingPolicyNames, out);
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &,
                       FindMultipaths &out) {
    return parseName(kw, text, kFindMultipathsNames, out);
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &, RrWeight &out) {
    return parseName(kw, text, kRrWeightNames, out);
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &, QueueMode &out) {
    return parseName(kw, text, kQueueModeNames, out);
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &,
                       MarginalPathgroups &out) {
    if (text == "fpin")
        return "marginal_pathgroups fpin is not supported: mpathd does not receive the FC "
               "fabric's performance impact notifications (FPIN); accepted: off, on";
    return parseName(kw, text, kMarginalPathgroupsNames, out);
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &, DmTarget &out) {
    return parseName(kw, text, kDmTargetNames, out);
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &, Failback &out) {
    if (auto kind = valueOf(kFailbackKindNames, text))
        out = Failback{*kind, 0};
    else if (unsigned n; parseUnsigned(text, n) && n > 0)
        out = Failback::after(n);
    else
        return invalidValue(kw, text, namesOf(kFailbackKindNames) + ", or a number of seconds > 0");
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &,
                       NoPathRetry &out) {
    if (auto kind = valueOf(kNoPathRetryKindNames, text))
        out = NoPathRetry{*kind, 0};
    else if (unsigned n; parseUnsigned(text, n))
        out = n == 0 ? NoPathRetry::fail() : NoPathRetry::times(n);
    else
        return invalidValue(kw, text, namesOf(kNoPathRetryKindNames) + ", or a number of retries");
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       OffOrNumber &out) {
    if (text == "off" || text == "no") {
        out = OffOrNumber::disabled();
        return {};
    }
    unsigned n;
    if (!parseUnsigned(text, n) || !inRange(n, rule.range))
        return invalidValue(kw, text, "off, no, or " + numberRule(rule.range));
    out = OffOrNumber::number(n);
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &,
                       DevLossTmo &out) {
    if (text == "infinity") {
        out = DevLossTmo::infinite();
        return {};
    }
    unsigned n;
    if (!parseUnsigned(text, n))
        return invalidValue(kw, text, "infinity, or a number of seconds");
    out = DevLossTmo::after(n);
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       MaxFds &out) {
    if (text == "max") {
        out = MaxFds::systemLimit();
        return {};
    }
    unsigned n;
    if (!parseUnsigned(text, n) || !inRange(n, rule.range))
        return invalidValue(kw, text, "max, or " + numberRule(rule.range));
    out = MaxFds::number(n);
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &,
                       std::vector<std::string> &out) {
    std::vector<std::string> words;
    std::string err = parseCounted(kw, text, words);
    if (!err.empty())
        return err;
    // The words go to the kernel as they are: one it does not know, or an
    // argument out of its range, would keep every map that has them from
    // being made.
    if (auto r = dm::checkFeatures(words); !r)
        return "invalid value '" + text + "' for " + std::string(kw) + ": " + r.error().message +
               "; accepted: a word count followed by features of " + dm::featureNames();
    out = std::move(words);
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &,
                       HardwareHandler &out) {
    static const std::vector<std::string_view> handlers{"alua", "rdac", "emc", "hp_sw"};
    std::vector<std::string> words = splitWords(text);
    if (!words.empty() && !words[0].empty() && words[0][0] >= '0' && words[0][0] <= '9') {
        std::string err = parseCounted(kw, text, words);
        if (!err.empty())
            return err;
    }
    if (words.empty() || (words.size() == 1 && words[0] == "none")) {
        out = HardwareHandler{};
        return {};
    }
    if (std::find(handlers.begin(), handlers.end(), words[0]) == handlers.end())
        return invalidValue(kw, text,
                            "0 (none), or a handler: \"1 alua\", \"1 rdac\", \"1 emc\", "
                            "\"1 hp_sw\"");
    for (size_t i = 1; i < words.size(); ++i)
        if (!dm::isTableWord(words[i]))
            return invalidValue(kw, text,
                                "handler arguments the kernel takes as they are written (no "
                                "backslash, control or non-ASCII blank bytes)");
    out.name = words[0];
    out.args.assign(words.begin() + 1, words.end());
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, const Rule &,
                       PathSelector &out) {
    std::vector<std::string> words = splitWords(text);
    std::string accepted =
        "a selector (" + dm::selectorNames() + ") and its argument count, e.g. \"service-time 0\"";
    const dm::SelectorFacts *facts = words.empty() ? nullptr : dm::findSelector(words[0]);
    if (!facts)
        return invalidValue(kw, text, accepted);
    PathSelector ps;
    ps.name = words[0];
    if (words.size() > 1) {
        unsigned count;
        if (!parseUnsigned(words[1], count) || count != words.size() - 2)
            return invalidValue(kw, text, accepted);
        ps.args.assign(words.begin() + 2, words.end());
        // The kernel refuses what the selector does not take, or takes and
        // prints back otherwise: either way every plan of the map fails or
        // reloads it again.
        if (auto r = dm::checkSelectorArgs(*facts, ps.args); !r)
            return "invalid value '" + text + "' for " + std::string(kw) + ": " + r.error().message;
    }
    out = std::move(ps);
    return {};
}

std::string formatValue(const std::string &v) {
    return v;
}
std::string formatValue(bool v) {
    return v ? "yes" : "no";
}
std::string formatValue(unsigned v) {
    return std::to_string(v);
}
std::string formatValue(int v) {
    return std::to_string(v);
}
std::string formatValue(GroupingPolicy v) {
    return std::string(toString(v));
}
std::string formatValue(FindMultipaths v) {
    return std::string(toString(v));
}
std::string formatValue(RrWeight v) {
    return std::string(toString(v));
}
std::string formatValue(QueueMode v) {
    return std::string(toString(v));
}
std::string formatValue(MarginalPathgroups v) {
    return std::string(toString(v));
}
std::string formatValue(DmTarget v) {
    return std::string(toString(v));
}
std::string formatValue(const Failback &v) {
    return toString(v);
}
std::string formatValue(const NoPathRetry &v) {
    return toString(v);
}
std::string formatValue(const OffOrNumber &v) {
    return toString(v);
}
std::string formatValue(const DevLossTmo &v) {
    return toString(v);
}
std::string formatValue(const MaxFds &v) {
    return toString(v);
}
std::string formatValue(const PathSelector &v) {
    return toString(v);
}
std::string formatValue(const HardwareHandler &v) {
    return toString(v);
}
std::string formatValue(const std::vector<std::string> &features) {
    return featuresToString(features);
}

} // namespace mpath::config::detail
