#pragma once

#include <chrono>
#include <cstdint>
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
///
/// Writing never blocks the caller: lines go to a queue that a thread of
/// its own writes out. A journal that does not take them (journald stalled
/// behind a file system that queues I/O, on the multipath device whose
/// failover is being logged) fills the queue; lines past kQueueLimit are
/// dropped and counted, and the count is written once the journal takes
/// lines again.
class Log {
public:
    using Writer = std::function<void(Level, const Subject &, const std::string &)>;

    /// Lines waiting for the writer, at most.
    static constexpr size_t kQueueLimit = 4096;

    /// Sets the threshold and the destination. A threshold given here
    /// (mpathd -v, a test) stays: setConfigured() does not change it.
    static void setup(Level threshold);
    /// Same, with a threshold the configuration may change (mpathd
    /// without -v).
    static void setupDefault(Level threshold);
    /// The threshold the configuration asks for (verbosity), unless
    /// setup() fixed one.
    static void setConfigured(Level threshold);
    /// Routes every line to \a sink instead, at once and on the caller's
    /// thread (tests), or back to the queue with an empty function.
    static void setSink(Writer sink);
    /// What the writer thread calls for each line (tests; an empty
    /// function: the journal or stderr again).
    static void setBackend(Writer backend);
    static bool enabled(Level level);
    static void write(Level level, const Subject &subject, const std::string &message);
    /// Waits up to \a limit for the queue to be written out (before exit).
    static void flush(std::chrono::milliseconds limit);
    /// Lines dropped so far because the queue was full.
    static uint64_t dropped();
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
