#include "log.h"

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <mpath/sys/thread_annotations.h>
#include <pthread.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

namespace mpathd {

namespace {

std::atomic<int> threshold{static_cast<int>(Level::Notice)};
std::atomic<bool> thresholdFixed{false}; ///< setup() decided it: the configuration does not

struct Line {
    Level level;
    Subject subject;
    std::string message;
};

struct Sink {
    mpath::sys::Mutex mutex; ///< protects everything below
    std::condition_variable_any wake;
    Log::Writer sink MPATH_GUARDED_BY(mutex);
    Log::Writer backend MPATH_GUARDED_BY(mutex);
    bool journal MPATH_GUARDED_BY(mutex) = false;
    std::deque<Line> queue MPATH_GUARDED_BY(mutex);
    uint64_t dropped MPATH_GUARDED_BY(mutex) = 0;    ///< in all
    uint64_t unreported MPATH_GUARDED_BY(mutex) = 0; ///< not yet said in a line
    bool writing MPATH_GUARDED_BY(mutex) = false;    ///< the writer has a line out
    bool writerStarted MPATH_GUARDED_BY(mutex) = false;
};

Sink &state() {
    static Sink *s = new Sink; // outlives every thread that logs
    return *s;
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

/// Writes one line to the journal or stderr: the writer thread's only job.
void writeOut(bool journal, Level level, const Subject &subject, const std::string &message) {
    const std::string text = prefixed(subject, message);
    if (journal) {
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

void writerLoop() {
    Sink &s = state();
    s.mutex.lock();
    for (;;) {
        while (s.queue.empty() && s.unreported == 0)
            s.wake.wait(s.mutex.native());
        Line line;
        if (s.unreported > 0 && s.queue.size() < Log::kQueueLimit / 2) {
            // The journal takes lines again: say what was lost.
            line = {Level::Warning,
                    {},
                    std::to_string(s.unreported) +
                        " log lines were dropped while the journal did not take them"};
            s.unreported = 0;
        } else {
            line = std::move(s.queue.front());
            s.queue.pop_front();
        }
        const Log::Writer backend = s.backend;
        const bool journal = s.journal;
        s.writing = true;
        s.mutex.unlock();
        if (backend)
            backend(line.level, line.subject, line.message);
        else
            writeOut(journal, line.level, line.subject, line.message);
        s.mutex.lock();
        s.writing = false;
        s.wake.notify_all(); // flush() waits for an empty queue
    }
}

void startWriter(Sink &s) MPATH_REQUIRES(s.mutex) {
    if (s.writerStarted)
        return;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_t t;
    if (pthread_create(
            &t, &attr,
            [](void *) -> void * {
                writerLoop();
                return nullptr;
            },
            nullptr) == 0)
        s.writerStarted = true;
    pthread_attr_destroy(&attr);
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
    setupDefault(max);
    thresholdFixed = true;
}

void Log::setupDefault(Level max) {
    thresholdFixed = false;
    threshold = static_cast<int>(max);
    Sink &s = state();
    mpath::sys::MutexLock lock(s.mutex);
    s.journal = stderrIsJournal();
}

void Log::setConfigured(Level max) {
    if (!thresholdFixed)
        threshold = static_cast<int>(max);
}

void Log::setSink(Writer sink) {
    Sink &s = state();
    mpath::sys::MutexLock lock(s.mutex);
    s.sink = std::move(sink);
}

void Log::setBackend(Writer backend) {
    Sink &s = state();
    mpath::sys::MutexLock lock(s.mutex);
    s.backend = std::move(backend);
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
    if (s.queue.size() >= kQueueLimit) {
        ++s.dropped;
        ++s.unreported;
        return;
    }
    s.queue.push_back({level, subject, message});
    startWriter(s);
    s.wake.notify_all();
}

void Log::flush(std::chrono::milliseconds limit) {
    Sink &s = state();
    mpath::sys::MutexLock lock(s.mutex);
    const auto until = std::chrono::steady_clock::now() + limit;
    while ((!s.queue.empty() || s.writing || s.unreported > 0) && s.writerStarted)
        if (s.wake.wait_until(s.mutex.native(), until) == std::cv_status::timeout)
            return;
}

uint64_t Log::dropped() {
    Sink &s = state();
    mpath::sys::MutexLock lock(s.mutex);
    return s.dropped;
}

} // namespace mpathd
