#pragma once

#include "exit_code.h"

#include <stdexcept>
#include <string>

namespace mpathctl {

/// A daemon command that cannot go on: mpathd refused it (a D-Bus error)
/// or cannot be reached. Thrown by BusClient, turned into the message and
/// the exit code by DaemonCommands; never thrown through an sd-bus
/// callback.
class DaemonError : public std::runtime_error {
public:
    /// \param message what to print after "mpathctl: "
    /// \param name the D-Bus error name, "" when there is none
    DaemonError(Exit exit, const std::string &message, std::string name = {})
        : std::runtime_error(message), exit_(exit), name_(std::move(name)) {}

    Exit exit() const { return exit_; }
    const std::string &name() const { return name_; }

private:
    Exit exit_;
    std::string name_;
};

} // namespace mpathctl
