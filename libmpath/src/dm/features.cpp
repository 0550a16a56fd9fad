#include "mpath/dm/features.h"

#include <algorithm>
#include <charconv>

namespace mpath::dm {

namespace {

/// The kernel's isspace() (lib/ctype.c): Latin-1, so 0xa0 is a blank too.
bool isKernelSpace(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

const FeatureFacts *findFeature(std::string_view name) {
    for (const auto &f : kFeatures)
        if (f.name == name)
            return &f;
    return nullptr;
}

std::string argumentText(const FeatureFacts &f) {
    if (f.args == 0)
        return {};
    if (!f.words.empty()) {
        std::string out;
        for (auto w : f.words)
            out += (out.empty() ? "" : "|") + std::string(w);
        return " <" + out + ">";
    }
    return " <" + std::to_string(f.min) + ".." + std::to_string(f.max) + ">";
}

} // namespace

bool isTableWord(std::string_view word) {
    if (word.empty())
        return false;
    return std::none_of(word.begin(), word.end(), [](char c) {
        return c == '\0' || c == '\\' || isKernelSpace(static_cast<unsigned char>(c));
    });
}

std::string featureNames() {
    std::string out;
    for (const auto &f : kFeatures)
        out += (out.empty() ? "" : ", ") + std::string(f.name) + argumentText(f);
    return out;
}

Result<void> checkFeatures(const std::vector<std::string> &words) {
    if (words.size() > kMaxFeatureWords)
        return Error{EINVAL, std::to_string(words.size()) +
                                 " feature words; the target takes at most " +
                                 std::to_string(kMaxFeatureWords)};
    for (size_t i = 0; i < words.size(); ++i) {
        const FeatureFacts *f = findFeature(words[i]);
        if (!f)
            return Error{EINVAL, "'" + words[i] + "' is not a feature of the target"};
        if (f->args == 0)
            continue;
        const std::string usage = std::string(f->name) + argumentText(*f);
        if (i + 1 == words.size())
            return Error{EINVAL, std::string(f->name) + " needs its argument: " + usage};
        const std::string &arg = words[++i];
        if (!f->words.empty()) {
            if (std::find(f->words.begin(), f->words.end(), arg) == f->words.end())
                return Error{EINVAL, "'" + arg + "' is not an argument of " + usage};
            continue;
        }
        uint32_t v = 0;
        const bool digits =
            std::all_of(arg.begin(), arg.end(), [](char c) { return c >= '0' && c <= '9'; });
        auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), v);
        if (arg.empty() || !digits || ec != std::errc() || end != arg.data() + arg.size() ||
            v < f->min || v > f->max)
            return Error{EINVAL, "'" + arg + "' is not an argument of " + usage};
    }
    return ok();
}

} // namespace mpath::dm
