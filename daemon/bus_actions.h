#pragma once

#include "bus_call.h"

#include <functional>
#include <list>
#include <memory>
#include <mpath/discovery/udev.h>
#include <mpath/error.h>
#include <mpath/sys/event_loop.h>
#include <optional>
#include <string>

namespace mpathd {

class BusArguments;
class BusService;
class Daemon;
struct BusMethod;

/// What the methods of the D-Bus API do to the daemon, once a call's
/// arguments are read and checked (BusArguments): find and check its object
/// (prepare()), and, once authorized, act and answer (run()). Changes that
/// take a pass of the reconciler answer once it has carried them out.
class BusActions {
public:
    /// The object a call acts on, as prepare() found it.
    struct Target {
        std::string wwid;                    ///< the map (Map methods; a Path method's map)
        std::string mapName;                 ///< its device-mapper name
        std::string kernelName;              ///< the path (Path methods, AddPath, RemovePath)
        mpath::discovery::UdevDevice device; ///< AddPath's block device, as listed
    };

    BusActions(Daemon &daemon, BusService &service);
    ~BusActions();
    BusActions(const BusActions &) = delete;
    BusActions &operator=(const BusActions &) = delete;

    /// Finds the object of a call of \a method at \a objectPath and checks
    /// \a args against it: the map or path exists (NotFound), the map is
    /// made when the method needs it (Busy), the group is one of the map's
    /// and the path is in a map (InvalidArgument). Called before the call
    /// is authorized, and again after, since the state may have moved on.
    mpath::Result<Target> prepare(const BusMethod &method, const char *objectPath,
                                  const BusArguments &args);

    /// Carries out \a method on \a target and answers \a call.
    void run(const BusMethod &method, const Target &target, const BusArguments &args,
             const CallPtr &call);

    /// Answers the calls whose change has been carried out (after each
    /// callback of the loop).
    void check();

private:
    struct Waiter;

    std::optional<std::string> resolve(std::string name) const;
    void wait(std::function<bool()> done, std::function<void()> complete,
              std::function<void()> timedOut);
    void afterPass(const CallPtr &call, const std::string &wwid);
    void message(const CallPtr &call, const std::string &wwid, const std::string &text,
                 std::function<std::optional<std::string>(bool)> after = {});

    void getMaps(const CallPtr &call);
    void addPath(const CallPtr &call, const Target &target);
    void removePath(const CallPtr &call, const Target &target);
    void reconfigure(const CallPtr &call);
    void setting(const CallPtr &call, const BusMethod &method, const Target &target,
                 const BusArguments &args);
    void queueIfNoPath(const CallPtr &call, const Target &target, const BusArguments &args);
    void flush(const CallPtr &call, const Target &target);
    void suspend(const CallPtr &call, const Target &target, bool suspend);
    void reload(const CallPtr &call, const Target &target);
    void pathFail(const CallPtr &call, const Target &target, bool fail);

    Daemon &daemon_;
    BusService &service_;
    std::list<std::shared_ptr<Waiter>> waiters_;
};

} // namespace mpathd
