#include "mpath/config_regex.h"

#include <regex.h>

namespace mpath {

struct ConfigRegex::Compiled {
    regex_t re{};
    ~Compiled() { regfree(&re); }
};

ConfigRegex ConfigRegex::compile(std::string_view pattern, std::string *error) {
    ConfigRegex r;
    r.pattern_ = std::string(pattern);
    if (pattern.empty())
        return r;
    auto compiled = std::make_shared<Compiled>();
    int rc = regcomp(&compiled->re, r.pattern_.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        if (error) {
            char buf[256];
            regerror(rc, &compiled->re, buf, sizeof(buf));
            *error = buf;
        }
        // regcomp() leaves nothing to free on failure; keep the destructor
        // from calling regfree() on it.
        compiled->re = regex_t{};
        r.valid_ = false;
        return r;
    }
    r.compiled_ = std::move(compiled);
    return r;
}

bool ConfigRegex::matches(std::string_view text) const {
    if (!valid_)
        return false;
    if (!compiled_)
        return true;
    std::string s(text);
    return regexec(&compiled_->re, s.c_str(), 0, nullptr, 0) == 0;
}

} // namespace mpath
