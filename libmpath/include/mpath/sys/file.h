#pragma once

#include "mpath/error.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace mpath::sys {

/// The whole of file \a path, read with read(2). Stops at \a maxSize
/// bytes with EFBIG, so a sysfs attribute path pointed at a large file
/// cannot make the caller read it all. A read shorter than the buffer is
/// the end (regular files and sysfs attributes), which saves a read per
/// sysfs attribute; not for pipes.
/// \return the contents, or an error naming \a path
Result<std::string> readFile(const std::string &path, std::size_t maxSize = 1 << 20);

/// Writes \a contents to \a path atomically: a temporary file in the same
/// directory, fsync, rename over \a path, fsync of the directory. Keeps
/// the mode of an existing file, else \a mode. Creates missing
/// directories (0755).
Result<void> replaceFile(const std::string &path, std::string_view contents, unsigned mode = 0600);

/// Writes \a value to sysfs attribute \a file with one write(2), as the
/// kernel wants it (no temporary file, no append).
/// \return 0, or the errno of the refusal
int writeAttribute(const std::string &file, std::string_view value);

/// mkdir -p \a directory with mode 0755.
Result<void> makeDirectories(const std::string &directory);

/// The directory part of \a path: "/etc/multipath" for
/// "/etc/multipath/wwids", "." for "wwids".
std::string directoryOf(const std::string &path);

} // namespace mpath::sys
