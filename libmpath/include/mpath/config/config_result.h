#pragma once

#include "mpath/config/config.h"
#include "mpath/config/diagnostic.h"

#include <vector>

namespace mpath::config {

/// Result of reading configuration: a usable Config even when some lines
/// were bad (they are ignored), and what was wrong.
struct ConfigResult {
    Config config;
    std::vector<Diagnostic> diagnostics;

    /// True when at least one diagnostic is an error: multipath-tools
    /// would refuse this configuration (the caller decides whether to).
    bool hasErrors() const;
};

} // namespace mpath::config
