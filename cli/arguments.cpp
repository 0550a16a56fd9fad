#include "arguments.h"

#include <algorithm>

namespace mpathctl {

namespace {

bool contains(const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

Arguments::Arguments(std::vector<std::string> words, std::vector<std::string> valued,
                     std::vector<std::string> flags) {
    bool optionsEnded = false;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string &w = words[i];
        if (optionsEnded || w.size() < 2 || w[0] != '-' || w == "-") {
            positional_.push_back(w);
            continue;
        }
        if (w == "--") {
            optionsEnded = true;
            continue;
        }
        std::string name = w, value;
        bool inlineValue = false;
        if (auto eq = w.find('='); eq != std::string::npos && w.rfind("--", 0) == 0) {
            name = w.substr(0, eq);
            value = w.substr(eq + 1);
            inlineValue = true;
        }
        if (contains(valued, name)) {
            if (!inlineValue) {
                if (i + 1 >= words.size()) {
                    error_ = "option " + name + " needs a value";
                    return;
                }
                value = words[++i];
            }
            values_.emplace_back(name, value);
        } else if (contains(flags, name)) {
            if (inlineValue) {
                error_ = "option " + name + " takes no value";
                return;
            }
            flags_.push_back(name);
        } else {
            error_ = "unknown option " + name;
            return;
        }
    }
}

bool Arguments::flag(const std::string &name) const {
    return contains(flags_, name);
}

std::optional<std::string> Arguments::value(const std::string &name) const {
    std::optional<std::string> v;
    for (const auto &[n, val] : values_)
        if (n == name)
            v = val; // the last one wins
    return v;
}

} // namespace mpathctl
