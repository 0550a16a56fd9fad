#pragma once

#include "mpath/config/config.h"
#include "mpath/config/config_result.h"

#include <string>
#include <vector>

namespace mpath::config {

/// Finds and reads the configuration files under a root directory.
///
/// When <root>/etc/mpathd/mpathd.conf exists it is read, then the *.conf
/// files of <root>/etc/mpathd/conf.d. Otherwise multipath-tools' files
/// are read: <root>/etc/multipath.conf and <root>/etc/multipath/conf.d,
/// so an existing setup works unchanged. A config_dir keyword in the main
/// file names another conf.d (taken under the root too). conf.d files are
/// read in alphabetical order; a later file's scalars replace earlier
/// ones. No file at all is not an error: the built-in defaults apply.
class Loader {
public:
    /// \param rootDir prefix of every path read, "/" on a real system
    explicit Loader(std::string rootDir = "/");

    /// Read the files. Unreadable files are errors in the diagnostics.
    ConfigResult load() const;

    /// The main file that load() reads, or "" when there is none. A file
    /// whose presence cannot be told (a folder on the way that cannot be
    /// searched) is named, so that load() reports why it cannot read it.
    std::string mainFile() const;

    /// The conf.d folder for \a config's main file.
    std::string confdDirectory(const Config &config) const;

    /// The conf.d files load() would read after \a config's main file, in
    /// order; none when the folder does not exist.
    /// \return the files, or the error of a folder that exists but cannot
    ///         be read
    Result<std::vector<std::string>> confdFiles(const Config &config) const;

    /// \a absolute (a path from the configuration, such as bindings_file)
    /// under the root directory, so state files of a test root stay in it.
    std::string underRoot(const std::string &absolute) const;

private:
    std::string root_;
};

} // namespace mpath::config
