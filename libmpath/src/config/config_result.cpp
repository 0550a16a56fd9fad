#include "mpath/config/config_result.h"

#include <algorithm>

namespace mpath::config {

bool ConfigResult::hasErrors() const {
    return std::any_of(diagnostics.begin(), diagnostics.end(), [](const Diagnostic &d) {
        return d.severity == Diagnostic::Severity::Error;
    });
}

} // namespace mpath::config
