#pragma once

// A scratch directory for one test: made unique below $TMPDIR (or /tmp),
// removed with everything in it when its owner goes away.

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace mpath_test {

/// A new, empty directory named "<prefix>-XXXXXX" below $TMPDIR, or /tmp
/// when that is unset. If it cannot be made, the running test fails fatally
/// and path() is empty: as a fixture member that stops the test before
/// SetUp(); in a test body, check with ASSERT_NO_FATAL_FAILURE.
class TempDir {
public:
    explicit TempDir(std::string_view prefix = "mpath") { create(prefix); }
    ~TempDir() { remove(); }

    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    TempDir(TempDir &&other) noexcept : path_(std::exchange(other.path_, {})) {}
    TempDir &operator=(TempDir &&other) noexcept {
        if (this != &other) {
            remove();
            path_ = std::exchange(other.path_, {});
        }
        return *this;
    }

    const std::filesystem::path &path() const { return path_; }
    const std::string &str() const { return path_.native(); }
    /// \a name ("bindings", "etc/multipath.conf") below the directory; the
    /// file need not exist.
    std::string file(std::string_view name) const { return (path_ / name).string(); }

private:
    void create(std::string_view prefix) {
        const char *env = std::getenv("TMPDIR");
        const std::string base = env && *env ? env : "/tmp";
        std::string tmpl = base + "/" + std::string(prefix) + "-XXXXXX";
        if (!::mkdtemp(tmpl.data())) {
            int e = errno;
            FAIL() << "cannot make a temporary directory in " << base << ": " << std::strerror(e);
        }
        path_ = tmpl;
    }

    // Reported, not thrown: this runs in destructors.
    void remove() {
        if (path_.empty())
            return;
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
        if (ec)
            ADD_FAILURE() << "cannot remove " << path_ << ": " << ec.message();
        path_.clear();
    }

    std::filesystem::path path_;
};

} // namespace mpath_test
