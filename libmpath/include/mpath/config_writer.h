#pragma once

#include "mpath/config.h"

#include <string>

namespace mpath {

/// Writes a configuration back in multipath.conf syntax: what `show
/// config` prints, and what ConfigParser reads back into an equal
/// configuration (source locations aside).
class ConfigWriter {
public:
    /// Every section that has content, every keyword that is set; values
    /// are quoted where the syntax needs it.
    static std::string write(const Config &config);

    /// \a value as one token: bare when it can be, else double-quoted with
    /// inner quotes doubled.
    static std::string quote(const std::string &value);
};

} // namespace mpath
