#pragma once

#include <map>
#include <string>
#include <vector>

namespace mpathd {

class Daemon;

/// multipathd's commands, as its clients send them on its socket
/// (MultipathdSocket) -- "show maps json", "show paths", "reconfigure" --
/// answered from the daemon's state in multipathd's words and layouts, so
/// that programs which parse multipathd's answers read mpathd's the same
/// way (docs/compat.md lists each command and what differs).
///
/// The grammar is multipathd's: keywords, or unambiguous prefixes of them,
/// some followed by a parameter ("map mpatha"); `list` is `show`,
/// `multipath(s)` is `map(s)`, `remove` is `del`, `switchgroup` is
/// `switch`. A caller that is not root may only show. A command multipathd
/// knows and mpathd does not serve here answers "fail" (its client then
/// exits 1) and says in the log what to use instead.
class MultipathdCommands {
public:
    explicit MultipathdCommands(Daemon &daemon);

    /// The answer to \a command, from a caller that is root or not.
    std::string answer(const std::string &command, bool root);

    /// The commands answered here, one per line, as the help lists them.
    static std::vector<std::string> served();

private:
    /// A parsed command: its keywords, aliases resolved, joined by spaces
    /// ("show map json"), and the parameters of those that take one.
    struct Parsed {
        std::string words;
        std::map<std::string, std::string> params;
    };

    std::string help(const std::string &command, const std::string &why) const;
    std::string showMapsJson() const;
    std::string showMapJson(const std::string &name) const;
    std::string showMaps() const;
    std::string showPaths() const;
    std::string showPath(const std::string &name) const;
    std::string showStatus() const;
    std::string showDaemon() const;
    std::string showTopology(const std::string &name) const;

    /// The WWID of the map \a name names: "dm-N", its name, its WWID,
    /// with or without "/dev/" or "/dev/mapper/"; "" when none.
    std::string findMap(const std::string &name) const;

    Daemon &daemon_;
};

} // namespace mpathd
