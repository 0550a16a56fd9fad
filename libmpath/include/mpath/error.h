#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace mpath {

/// Why an operation failed: an errno value for programs and a sentence for
/// people. The sentence names what failed and why, e.g. "block/sdb/size: No
/// such file or directory"; a caller that knows more adds it in front with
/// context() ("path sdb: block/sdb/size: ...") before it reports the error.
/// The one way libmpath reports failures.
struct Error {
    int code{EIO};       ///< a positive errno value (ENOENT, EINVAL, ...)
    std::string message; ///< what failed and why, without a trailing period

    /// An error of \a code whose message is \a what, ": " and
    /// strerror(code); just strerror(code) when \a what is empty.
    static Error fromErrno(int code, std::string_view what = {});

    /// The same error with "\a prefix: " in front of the message.
    [[nodiscard]] Error context(std::string_view prefix) const &;
    [[nodiscard]] Error context(std::string_view prefix) &&;

    bool operator==(const Error &) const = default;
};

/// A value or the Error that kept it from being made (std::expected, as
/// far as libmpath needs it). Converts implicitly from either, so a
/// function returns `value` or `Error{...}`.
template <typename T>
class [[nodiscard]] Result {
public:
    Result(const T &value) : v_(std::in_place_index<0>, value) {}
    Result(T &&value) : v_(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    /// The value; asking a failed result for it is a bug and aborts. A
    /// temporary result hands its value out by value, so that
    /// `for (auto &x : *f())` does not outlive what it iterates.
    T &value() & { return check(), std::get<0>(v_); }
    const T &value() const & { return check(), std::get<0>(v_); }
    T value() && { return check(), std::get<0>(std::move(v_)); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }
    T operator*() && { return std::move(*this).value(); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }

    /// The value, or \a fallback when the operation failed.
    T valueOr(T fallback) const & { return ok() ? std::get<0>(v_) : std::move(fallback); }
    T valueOr(T fallback) && { return ok() ? std::get<0>(std::move(v_)) : std::move(fallback); }

    /// The error; asking a successful result for it is a bug and aborts.
    const Error &error() const {
        if (ok())
            misuse("error() of a successful Result");
        return std::get<1>(v_);
    }
    /// 0 on success, else the error's errno value.
    int code() const { return ok() ? 0 : std::get<1>(v_).code; }

private:
    void check() const {
        if (!ok())
            misuse(std::get<1>(v_).message.c_str());
    }
    [[noreturn]] static void misuse(const char *what) {
        std::fprintf(stderr, "mpath::Result: value of a failed result: %s\n", what);
        std::abort();
    }

    std::variant<T, Error> v_;
};

/// Success without a value, or an Error.
template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : error_(std::move(error)), failed_(true) {}

    bool ok() const { return !failed_; }
    explicit operator bool() const { return ok(); }
    const Error &error() const {
        if (!failed_) {
            std::fprintf(stderr, "mpath::Result: error() of a successful Result\n");
            std::abort();
        }
        return error_;
    }
    int code() const { return failed_ ? error_.code : 0; }

private:
    Error error_;
    bool failed_{false};
};

/// A successful Result<void>.
inline Result<void> ok() {
    return {};
}

} // namespace mpath
