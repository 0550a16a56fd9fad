#pragma once

// Reading files in tests: test data and what the code under test wrote.
// A file that cannot be read throws, and GoogleTest fails the test that
// asked, so a test whose data went missing fails instead of testing an
// empty text.

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace mpath_test {

/// The whole of \a path.
/// \throw std::runtime_error naming the file and the reason when it cannot
///        be opened or read
inline std::string readFile(const std::filesystem::path &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int e = errno;
        throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(e));
    }
    std::stringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw std::runtime_error("cannot read " + path.string() + ": read error");
    return text.str();
}

/// Writes \a text to \a path, making the folders on the way.
/// \throw std::runtime_error naming the file when it cannot be written
inline void writeFile(const std::filesystem::path &path, const std::string &text) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush())
        throw std::runtime_error("cannot write " + path.string());
}

} // namespace mpath_test
