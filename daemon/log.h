#pragma once

#include <functional>
#include <string>
#include <string_view>

/// mpathd: the daemon that assembles, heals and adopts multipath maps.
namespace mpathd {

/// Log levels, by name; the numbers are syslog's.
enum class Level { Error = 3, Warning = 4, Notice = 5, Info = 6, Debug = 7 };

std::string_view toString(Level level);

/// What a log line is about, as structured journal fields (MPATH_MAP=,
/// MPATH_PATH=, MPATH_WWID=) and in front of the message on stderr.
struct Subject {
    std::string map;  ///< map name
    std::string path; ///< path device, "sdb"
    std::string wwid;
};

/// Where log lines go: the journal with structured fields when stderr is
/// connected to it (under systemd), else stderr. Lines above the
/// threshold are dropped. Thread-safe: libdevmapper logs from workers.
class Log {
public:
    /// Sets the threshold and the destination.
    static void setup(Level threshold);
    /// Routes every line to \a sink instead (tests), or back to the default
    /// with an empty function.
    static void setSink(std::function<void(Level, const Subject &, const std::string &)> sink);
    static bool enabled(Level level);
    static void write(Level level, const Subject &subject, const std::string &message);
};

inline void logError(const Subject &s, const std::string &m) {
    Log::write(Level::Error, s, m);
}
inline void logWarning(const Subject &s, const std::string &m) {
    Log::write(Level::Warning, s, m);
}
inline void logNotice(const Subject &s, const std::string &m) {
    Log::write(Level::Notice, s, m);
}
inline void logInfo(const Subject &s, const std::string &m) {
    Log::write(Level::Info, s, m);
}
inline void logDebug(const Subject &s, const std::string &m) {
    Log::write(Level::Debug, s, m);
}

/// Subjects, for brevity at call sites.
inline Subject aboutMap(std::string name, std::string wwid = {}) {
    return Subject{std::move(name), {}, std::move(wwid)};
}
inline Subject aboutPath(std::string path, std::string map = {}) {
    return Subject{std::move(map), std::move(path), {}};
}

} // namespace mpathd
