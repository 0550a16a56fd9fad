#pragma once

#include <mpath/discovery/udev.h>
#include <mpath/error.h>
#include <mpath/sys/event_loop.h>

namespace mpathd {

class Daemon;

/// udev's events for block devices, on the loop: path devices that come,
/// change and go; device-mapper's PATH_FAILED / PATH_REINSTATED on maps;
/// maps that go. Each event changes the state at once; planning follows
/// once a burst is over.
class UeventSource {
public:
    explicit UeventSource(Daemon &daemon) : daemon_(daemon) {}

    /// Starts the monitor; events that arrive before start() returns are
    /// kept by the kernel until they are read.
    mpath::Result<void> start();

    /// Applies one event (also what the monitor delivers).
    void handle(const mpath::discovery::UdevDevice &event);

private:
    void onReadable();
    /// Events were lost: the block devices present are described again and
    /// the paths no longer there forgotten.
    void rescan();
    void mapEvent(const mpath::discovery::UdevDevice &event);
    /// Map \a wwid is gone from device-mapper: so from the state.
    void forget(const std::string &wwid);

    Daemon &daemon_;
    mpath::sys::EventLoop::SourcePtr source_;
};

} // namespace mpathd
