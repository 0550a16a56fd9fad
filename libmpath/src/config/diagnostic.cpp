#include "mpath/config/diagnostic.h"

namespace mpath::config {

std::string Diagnostic::toString() const {
    if (line == 0)
        return file + ": " + message;
    return file + ":" + std::to_string(line) + ": " + message;
}

} // namespace mpath::config
