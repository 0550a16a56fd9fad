#include "mpath/config/regex.h"

#include <algorithm>
#include <mutex>
#include <regex.h>
#include <vector>

namespace mpath::config {

// The compiled expression, made once: at once by compile(), at the first
// match for builtin(). ok is false when regcomp() failed (then there is
// nothing to free, and the expression matches nothing).
//
// A pattern with no special character but a leading '^' or a trailing
// '$' ("NETAPP", "^DGC", most of the hardware table's vendors) is matched
// as a string and never compiled: the same answers, without regcomp(),
// which is most of what a short-lived process like udev's helper spends.
struct Regex::Compiled {
    bool literal{false};
    bool atStart{false};
    bool atEnd{false};
    std::string text;

    mutable std::once_flag once;
    mutable regex_t re{};
    mutable bool ok{false};

    explicit Compiled(std::string_view pattern) {
        atStart = !pattern.empty() && pattern.front() == '^';
        if (atStart)
            pattern.remove_prefix(1);
        atEnd = !pattern.empty() && pattern.back() == '$';
        if (atEnd)
            pattern.remove_suffix(1);
        literal =
            !pattern.empty() && pattern.find_first_of(".[]()*+?{}|^$\\") == std::string_view::npos;
        if (literal)
            text = std::string(pattern);
    }
    ~Compiled() {
        if (ok)
            regfree(&re);
    }
    // regcomp()'s code, 0 when it compiled.
    int make(const std::string &pattern) const {
        int rc = 0;
        std::call_once(once, [&] {
            rc = regcomp(&re, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
            ok = rc == 0;
        });
        return rc;
    }
    bool matches(std::string_view s) const {
        if (atStart && atEnd)
            return s == text;
        if (atStart)
            return s.starts_with(text);
        if (atEnd)
            return s.ends_with(text);
        return s.find(text) != std::string_view::npos;
    }
};

namespace {

// Patterns longer than this, or whose estimated size after glibc expands
// repetitions exceeds kMaxCost, are refused: regcomp() copies the operand
// of '+' and of bounds, so stacked or nested repetitions ("a+++++", "(a{99}){99}")
// grow exponentially and 20 stacked '+' already take 700 MB and seconds.
// Real patterns cost tens.
constexpr size_t kMaxLength = 4096;
constexpr double kMaxCost = 10000;

// Estimates the size of the compiled expression: every atom costs 1, a
// repetition multiplies its operand (by 2 for * + ?, by the larger bound
// plus one for {n,m}) and adds the square of its optional part over 100,
// a group costs the sum of its contents.
double estimateCost(std::string_view p) {
    struct Frame {
        double sum = 0;
        double last = 0; ///< cost of the most recent atom, 0 when none
    };
    std::vector<Frame> stack(1);
    auto atom = [&](double cost) {
        stack.back().sum += cost;
        stack.back().last = cost;
    };
    // optional: how many of the copies may be skipped. glibc nests them,
    // and its epsilon closures grow with the square of their size:
    // "a{,3000}" alone takes 70 MB.
    auto repeat = [&](double factor, double optional) {
        Frame &f = stack.back();
        const double nested = optional * f.last;
        f.sum += f.last * (factor - 1) + nested * nested / 100;
        f.last *= factor;
    };
    size_t i = 0;
    while (i < p.size()) {
        char c = p[i];
        if (c == '\\') {
            i += 2;
            atom(1);
        } else if (c == '[') {
            // Bracket expression: ']' right after '[' or '[^' is literal;
            // "[:alpha:]" and friends nest one level.
            size_t j = i + 1;
            if (j < p.size() && p[j] == '^')
                ++j;
            if (j < p.size() && p[j] == ']')
                ++j;
            while (j < p.size() && p[j] != ']') {
                if (p[j] == '[' && j + 1 < p.size() &&
                    (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
                    size_t close = p.find(std::string{p[j + 1], ']'}, j + 2);
                    j = close == std::string_view::npos ? p.size() : close + 2;
                } else {
                    ++j;
                }
            }
            i = j + 1;
            atom(1);
        } else if (c == '(') {
            stack.emplace_back();
            ++i;
        } else if (c == ')') {
            if (stack.size() > 1) {
                double g = stack.back().sum + 1;
                stack.pop_back();
                atom(g);
            } else {
                atom(1);
            }
            ++i;
        } else if (c == '*' || c == '+' || c == '?') {
            repeat(2, 1);
            ++i;
        } else if (c == '{') {
            size_t j = i + 1;
            unsigned long lo = 0, hi = 0;
            bool digits = false;
            while (j < p.size() && p[j] >= '0' && p[j] <= '9' && lo < 1000000) {
                lo = lo * 10 + static_cast<unsigned long>(p[j++] - '0');
                digits = true;
            }
            hi = lo;
            // glibc also takes "{,m}" as "{0,m}": the bound counts without
            // a lower one.
            if (j < p.size() && p[j] == ',') {
                ++j;
                hi = 0;
                while (j < p.size() && p[j] >= '0' && p[j] <= '9' && hi < 1000000) {
                    hi = hi * 10 + static_cast<unsigned long>(p[j++] - '0');
                    digits = true;
                }
                hi = std::max(hi, lo);
            }
            if (digits && j < p.size() && p[j] == '}') {
                repeat(static_cast<double>(hi) + 1, static_cast<double>(hi - lo));
                i = j + 1;
            } else {
                atom(1);
                ++i;
            }
        } else {
            atom(1);
            ++i;
        }
    }
    double total = 0;
    for (const auto &f : stack)
        total += f.sum;
    return total;
}

} // namespace

Result<Regex> Regex::compile(std::string_view pattern) {
    Regex r;
    r.pattern_ = std::string(pattern);
    if (pattern.empty())
        return r;
    if (pattern.size() > kMaxLength || estimateCost(pattern) > kMaxCost)
        return Error{EINVAL, "too complex: nested or stacked repetitions"};
    auto compiled = std::make_shared<Compiled>(pattern);
    if (compiled->literal) {
        r.compiled_ = std::move(compiled);
        return r;
    }
    if (int rc = compiled->make(r.pattern_); rc != 0) {
        char buf[256];
        regerror(rc, &compiled->re, buf, sizeof(buf));
        return Error{EINVAL, buf};
    }
    r.compiled_ = std::move(compiled);
    return r;
}

Regex Regex::builtin(std::string_view pattern) {
    Regex r;
    r.pattern_ = std::string(pattern);
    if (!pattern.empty())
        r.compiled_ = std::make_shared<Compiled>(pattern);
    return r;
}

bool Regex::matches(std::string_view text) const {
    if (!compiled_)
        return true;
    if (compiled_->literal)
        return compiled_->matches(text);
    compiled_->make(pattern_);
    if (!compiled_->ok)
        return false;
    std::string s(text);
    return regexec(&compiled_->re, s.c_str(), 0, nullptr, 0) == 0;
}

} // namespace mpath::config
