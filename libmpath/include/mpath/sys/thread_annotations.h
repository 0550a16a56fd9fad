#pragma once

// clang's thread-safety analysis (-Wthread-safety) on a mutex of our own:
// the annotations expand to nothing for other compilers.

#include <mutex>

#if defined(__clang__)
#define MPATH_TSA(x) __attribute__((x))
#else
#define MPATH_TSA(x)
#endif

#define MPATH_CAPABILITY(x) MPATH_TSA(capability(x))
#define MPATH_SCOPED_CAPABILITY MPATH_TSA(scoped_lockable)
#define MPATH_GUARDED_BY(x) MPATH_TSA(guarded_by(x))
#define MPATH_REQUIRES(...) MPATH_TSA(requires_capability(__VA_ARGS__))
#define MPATH_ACQUIRE(...) MPATH_TSA(acquire_capability(__VA_ARGS__))
#define MPATH_RELEASE(...) MPATH_TSA(release_capability(__VA_ARGS__))
#define MPATH_EXCLUDES(...) MPATH_TSA(locks_excluded(__VA_ARGS__))

namespace mpath::sys {

/// std::mutex with the capability annotation clang's analysis needs.
class MPATH_CAPABILITY("mutex") Mutex {
public:
    void lock() MPATH_ACQUIRE() { m_.lock(); }
    void unlock() MPATH_RELEASE() { m_.unlock(); }
    /// For std::condition_variable_any and the like.
    std::mutex &native() { return m_; }

private:
    std::mutex m_;
};

/// Holds a Mutex for a scope.
class MPATH_SCOPED_CAPABILITY MutexLock {
public:
    explicit MutexLock(Mutex &m) MPATH_ACQUIRE(m) : m_(m) { m_.lock(); }
    ~MutexLock() MPATH_RELEASE() { m_.unlock(); }
    MutexLock(const MutexLock &) = delete;
    MutexLock &operator=(const MutexLock &) = delete;

private:
    Mutex &m_;
};

} // namespace mpath::sys
