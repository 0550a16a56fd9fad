#include "mpath/error.h"

#include <cstring>

namespace mpath {

Error Error::fromErrno(int code, std::string_view what) {
    std::string message(what);
    if (!message.empty())
        message += ": ";
    message += std::strerror(code);
    return Error{code, std::move(message)};
}

Error Error::context(std::string_view prefix) const & {
    return Error(*this).context(prefix);
}

Error Error::context(std::string_view prefix) && {
    if (!prefix.empty())
        message.insert(0, std::string(prefix) + ": ");
    return std::move(*this);
}

} // namespace mpath
