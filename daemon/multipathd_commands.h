#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mpathd {

class BusArguments;
class BusService;
class Daemon;
enum class BusAct;

/// multipathd's commands, as its clients send them on its socket
/// (MultipathdSocket) -- "show maps json", "show paths", "reconfigure" --
/// answered from the daemon's state in multipathd's words and layouts, so
/// that programs which parse multipathd's answers read mpathd's the same
/// way (docs/compat.md lists each command and what differs).
///
/// The grammar is multipathd's: keywords, or unambiguous prefixes of them,
/// some followed by a parameter ("map mpatha"); `list` is `show`,
/// `multipath(s)` is `map(s)`, `remove` is `del`, `switchgroup` is
/// `switch`. A caller that is not root may only show. Commands that act
/// (fail path, switch map group, del map, ...) go the way the D-Bus API's
/// methods go (BusService::act()) and answer "ok" once carried out, or
/// "fail" with the reason in the log. A command multipathd knows and
/// mpathd does not serve here answers "fail" (its client then exits 1)
/// and says in the log what to use instead.
class MultipathdCommands {
public:
    using Reply = std::function<void(std::string answer)>;

    /// \a shutdown stops the daemon (the "shutdown" command).
    MultipathdCommands(Daemon &daemon, BusService &service, std::function<void()> shutdown = {});

    /// Answers \a command, from a caller that is root or not, through
    /// \a reply: at once for a show, once carried out for a change.
    void answer(const std::string &command, bool root, Reply reply);

    /// The commands answered here, one per line, as the help lists them.
    static std::vector<std::string> served();

private:
    /// A parsed command: its keywords, aliases resolved, joined by spaces
    /// ("show map json"), and the parameters of those that take one.
    struct Parsed {
        std::string text; ///< as given, its words one blank apart, for the log
        std::string words;
        std::map<std::string, std::string> params;
    };

    std::string help(const std::string &command, const std::string &why) const;
    /// The answer of a show, or nullopt when \a parsed is not one served.
    std::optional<std::string> show(const Parsed &parsed);
    /// Carries out the change \a parsed asks; false when it is not one
    /// served.
    bool change(const Parsed &parsed, const Reply &reply);
    /// \a act on \a objectPath through the D-Bus API's way, answered
    /// "ok" or "fail" (the reason logged, naming \a command).
    void act(BusAct act, const std::string &objectPath, const BusArguments &args,
             const std::string &command, Reply reply);
    /// \a each for every map, answered "ok" when all are.
    void forEveryMap(const std::string &command,
                     const std::function<void(const std::string &wwid, Reply)> &each, Reply reply);
    void resize(const std::string &wwid, const std::string &command, Reply reply);
    /// The kernel name of the path \a given names ("sdb", "/dev/sdb"),
    /// "" when the daemon has none.
    std::string findPath(const std::string &given) const;
    std::string showMapsJson() const;
    std::string showMapJson(const std::string &name) const;
    /// The maps (only map \a only, by WWID, if given) or the paths
    /// printed by \a format's wildcards; \a pretty: with a header and
    /// padded (not for "raw format").
    std::string showMaps(const std::string &format, bool pretty,
                         const std::string &only = {}) const;
    std::string showPaths(const std::string &format, bool pretty) const;
    static std::string showWildcards();
    std::string showPath(const std::string &name) const;
    std::string showStatus() const;
    std::string showDaemon() const;
    std::string showTopology(const std::string &name) const;

    /// The WWID of the map \a name names: "dm-N", its name, its WWID,
    /// with or without "/dev/" or "/dev/mapper/"; "" when none.
    std::string findMap(const std::string &name) const;

    Daemon &daemon_;
    BusService &service_;
    std::function<void()> shutdown_;
};

} // namespace mpathd
