#pragma once

#include <string>

namespace CLI {
class App;
}

namespace mpathctl {

/// `mpathctl is-path DEVICE [--export] [--config FILE]`: whether a block
/// device is (or will be) a path of a multipath map, decided the way mpathd
/// decides it — the configuration's blacklist and find_multipaths, the wwids
/// file, the maps set up, the other devices with the same WWID — without
/// asking the daemon. udev's rules run it for every disk as it appears.
///
/// Exit status 0: a path; 1: not a path (the reason on stdout); 2: a
/// usage error. With --export it prints udev properties instead and exits
/// 0 whatever it decided:
///   DM_MULTIPATH_DEVICE_PATH=1  a path (claim it)
///   DM_MULTIPATH_DEVICE_PATH=0  not a path
///   DM_MULTIPATH_DEVICE_PATH=2  find_multipaths smart: held back until
///                               FIND_MULTIPATHS_WAIT_UNTIL (seconds since
///                               the epoch); MPATH_WAIT_SECS says how long
///                               from now
///   FIND_MULTIPATHS_WAIT_UNTIL=0  the wait ended without a second path:
///                               the device was released and stays so
/// Under udev (the environment names the device) the event's properties
/// are used, so the decision needs no udev database entry yet.
///
/// Hidden options for tests: `--sysfs-root DIR` (udev properties from
/// DIR/../udev), `--now SECS` (the clock).
class IsPathCommand {
public:
    explicit IsPathCommand(CLI::App &app);

    bool given() const;
    int run() const;

private:
    CLI::App *command_;
    std::string device_;
    std::string config_;
    std::string sysfsRoot_;
    long long now_{-1};
    bool export_{false};
    bool multipathTools_{false};
    bool uevent_{false};
};

/// `mpathctl is-ready MAP`: whether a multipath map (name as in
/// /dev/mapper) has a path that can do I/O now, from its device-mapper
/// status. udev's rules run it on a map's reload or resume events to decide
/// whether the map may be probed (MPATH_DEVICE_READY). Exit status 0:
/// ready; 1: no usable path, or not a multipath map (said on stdout);
/// 2: usage error.
class IsReadyCommand {
public:
    explicit IsReadyCommand(CLI::App &app);

    bool given() const;
    int run() const;

private:
    CLI::App *command_;
    std::string map_;
};

/// Whether a multipath map has a path that can do I/O now, and why.
struct Readiness {
    bool ready{false};
    std::string why; ///< "mpatha: ready: 2 of 2 paths active", "...: not ready: ..."
};

/// What is-ready decides for \a map (a name, or /dev/mapper/NAME), from
/// its device-mapper status.
Readiness mapReadiness(const std::string &map);

/// Whether argv asks for is-path or is-ready: main() then builds only that command,
/// which udev runs for every disk and map and which must start fast.
bool wantsIsPath(int argc, char **argv);

} // namespace mpathctl
