#include "config/keyword_table.h"

#include <algorithm>
#include <vector>

namespace mpath::config::detail {

namespace {

bool hasBlank(const std::string &text) {
    return std::any_of(text.begin(), text.end(), [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
    });
}

std::string oneOf(const std::string &text, const std::vector<std::string_view> &names) {
    if (std::find(names.begin(), names.end(), text) != names.end())
        return {};
    std::string accepted;
    for (auto n : names)
        accepted += (accepted.empty() ? "" : ", ") + std::string(n);
    return accepted;
}

} // namespace

std::string anyText(const std::string &) {
    return {};
}

std::string word(const std::string &text) {
    return text.empty() || hasBlank(text) ? "a non-empty word" : "";
}

std::string wordWithoutSlash(const std::string &text) {
    return text.empty() || hasBlank(text) || text.find('/') != std::string::npos
               ? "a non-empty word without '/'"
               : "";
}

std::string absolutePath(const std::string &text) {
    return text.empty() || text[0] != '/' ? "an absolute path" : "";
}

std::string checkerName(const std::string &text) {
    static const std::vector<std::string_view> checkers{
        "tur", "directio", "readsector0", "none", "emc_clariion", "hp_sw", "rdac", "cciss_tur"};
    return oneOf(text, checkers);
}

std::string prioName(const std::string &text) {
    static const std::vector<std::string_view> prios{
        "const",  "alua",         "ontap",        "rdac", "emc",      "hp_sw", "hds",
        "random", "weightedpath", "path_latency", "ana",  "datacore", "iet",   "sysfs"};
    return oneOf(text, prios);
}

const OtherKeyword *findOtherKeyword(std::string_view name) {
    for (const auto &k : kOtherKeywords)
        if (k.name == name)
            return &k;
    return nullptr;
}

std::string_view canonicalKeyword(std::string_view name) {
    for (const auto &s : kSynonyms)
        if (s.name == name)
            return s.keyword;
    return name;
}

} // namespace mpath::config::detail
