#pragma once

#include <string>

// multipath -a, -w and -W: the wwids file, as multipath-tools' multipath
// changes it. The file and the configuration are read below
// MPATH_CONFIG_ROOT when it is set (tests), else below /.

namespace mpathcompat {

/// `-a DEVICE` (\a add) or `-w DEVICE`: lists or unlists the WWID of
/// DEVICE: a path's node or major:minor (its WWID as discovery gives it),
/// else a map's name, an alias of the bindings file or of multipaths {},
/// else DEVICE itself as a WWID. Prints multipath-tools' lines
/// ("wwid 'W' added", "wwid 'W' removed", "wwid 'W' not in wwids file").
/// \return the exit status
int changeWwid(const std::string &device, bool add, const char *program);

/// `-W`: the wwids file lists the WWIDs of the multipath maps present, and
/// no other. \return the exit status
int resetWwids(const char *program);

} // namespace mpathcompat
