#include "mpath/model/path.h"

#include <sys/sysmacros.h>

namespace mpath::model {

std::string Path::devtString() const {
    return std::to_string(major(devt)) + ":" + std::to_string(minor(devt));
}

} // namespace mpath::model
