#include "log.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mpath/sys/thread_annotations.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

namespace mpathd {

namespace {

std::atomic<int> threshold{static_cast<int>(Level::Notice)};

struct Sink {
    mpath::sys::Mutex mutex; ///< protects sink and journal
    std::function<void(Level, const Subject &, const std::string &)> sink MPATH_GUARDED_BY(mutex);
    bool journal MPATH_GUARDED_BY(mutex) = false;
};

Sink &state() {
    static Sink s;
    return s;
}

// stderr goes to the journal when systemd says so: JOURNAL_STREAM names
// the device and inode of the stream it connected us to.
bool stderrIsJournal() {
    const char *stream = std::getenv("JOURNAL_STREAM");
    if (!stream)
        return false;
    unsigned long dev = 0, ino = 0;
    if (std::sscanf(stream, "%lu:%lu", &dev, &ino) != 2)
        return false;
    struct stat st {};
    return ::fstat(STDERR_FILENO, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

std::string prefixed(const Subject &s, const std::string &message) {
    std::string out;
    if (!s.map.empty())
        out += "map " + s.map + ": ";
    if (!s.path.empty())
        out += "path " + s.path + ": ";
    if (s.map.empty() && s.path.empty() && !s.wwid.empty())
        out += "wwid " + s.wwid + ": ";
    return out + message;
}

} // namespace

std::string_view toString(Level level) {
    switch (level) {
    case Level::Error:
        return "error";
    case Level::Warning:
        return "warning";
    case Level::Notice:
        return "notice";
    case Level::Info:
        return "info";
    case Level::Debug:
        return "debug";
    }
    return "unknown";
}

void Log::setup(Level max) {
    threshold = static_cast<int>(max);
    Sink &s = state();
    mpath::sys::MutexLock lock(s.mutex);
    s.journal = stderrIsJournal();
}

void Log::setSink(std::function<void(Level, const Subject &, const std::string &)> sink) {
    Sink &s = state();
    mpath::sys::MutexLock lock(s.mutex);
    s.sink = std::move(sink);
}

bool Log::enabled(Level level) {
    return static_cast<int>(level) <= threshold;
}

void Log::write(Level level, const Subject &subject, const std::string &message) {
    if (!enabled(level))
        return;
    Sink &s = state();
    mpath::sys::MutexLock lock(s.mutex);
    if (s.sink) {
        s.sink(level, subject, message);
        return;
    }
    const std::string text = prefixed(subject, message);
    if (s.journal) {
        sd_journal_send("MESSAGE=%s", text.c_str(), "PRIORITY=%d", static_cast<int>(level),
                        "SYSLOG_IDENTIFIER=mpathd", "MPATH_MAP=%s", subject.map.c_str(),
                        "MPATH_PATH=%s", subject.path.c_str(), "MPATH_WWID=%s",
                        subject.wwid.c_str(), nullptr);
        return;
    }
    // On a terminal or in a file, each line says when (local time, ms).
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    tm local{};
    ::localtime_r(&now.tv_sec, &local);
    char when[32];
    const size_t n = std::strftime(when, sizeof(when), "%H:%M:%S", &local);
    std::snprintf(when + n, sizeof(when) - n, ".%03ld", now.tv_nsec / 1000000);
    std::fprintf(stderr, "%s mpathd: %s: %s\n", when, std::string(toString(level)).c_str(),
                 text.c_str());
}

} // namespace mpathd
