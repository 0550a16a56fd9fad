#pragma once

#include <cerrno>

namespace mpathd {

// The API's named errors (docs/dbus-api.md): the message of each names the
// object and the reason.
inline constexpr const char *kErrNotFound = "org.mpathd.Multipath1.Error.NotFound";
inline constexpr const char *kErrInvalid = "org.mpathd.Multipath1.Error.InvalidArgument";
inline constexpr const char *kErrNotAuthorized = "org.mpathd.Multipath1.Error.NotAuthorized";
inline constexpr const char *kErrBusy = "org.mpathd.Multipath1.Error.Busy";
inline constexpr const char *kErrDm = "org.mpathd.Multipath1.Error.DmError";
inline constexpr const char *kErrFailed = "org.mpathd.Multipath1.Error.Failed";
/// sd-bus's own, for a message that does not hold what its signature says.
inline constexpr const char *kErrInvalidArgs = "org.freedesktop.DBus.Error.InvalidArgs";

/// The named error for an mpath::Error's errno value: ENOENT NotFound,
/// EINVAL InvalidArgument, EACCES and EPERM NotAuthorized, EBUSY Busy,
/// EBADMSG sd-bus's InvalidArgs, anything else Failed.
inline const char *busErrorName(int code) {
    switch (code) {
    case ENOENT:
        return kErrNotFound;
    case EINVAL:
        return kErrInvalid;
    case EACCES:
    case EPERM:
        return kErrNotAuthorized;
    case EBUSY:
        return kErrBusy;
    case EBADMSG:
        return kErrInvalidArgs;
    default:
        return kErrFailed;
    }
}

} // namespace mpathd
