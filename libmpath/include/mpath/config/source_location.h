#pragma once

#include <string>

namespace mpath::config {

/// A place in a configuration file. Empty file: built in.
struct SourceLocation {
    std::string file;
    unsigned line{0}; ///< 0 when the place is the whole file

    bool empty() const { return file.empty(); }
    /// "file:line", "file" without a line, "" when built in.
    std::string toString() const {
        if (file.empty() || line == 0)
            return file;
        return file + ":" + std::to_string(line);
    }

    bool operator==(const SourceLocation &) const = default;
};

} // namespace mpath::config
