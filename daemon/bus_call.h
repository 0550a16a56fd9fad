#pragma once

#include <functional>
#include <memory>
#include <mpath/error.h>
#include <string>
#include <vector>

struct sd_bus_message;

namespace mpathd {

/// One method call, answered exactly once: at once, or later, once it is
/// authorized and carried out. Whatever changed is signalled before the
/// answer goes (the hook the service gives), so that a client that reads
/// after the reply, or watches the signals, sees the change.
class BusCall {
public:
    BusCall(sd_bus_message *m, std::function<void()> beforeReply);
    ~BusCall();
    BusCall(const BusCall &) = delete;
    BusCall &operator=(const BusCall &) = delete;

    sd_bus_message *message() const { return m_; }
    /// The object path it was called on.
    const char *path() const;
    bool answered() const { return answered_; }

    void ok();
    void okObject(const std::string &path);
    void okObjects(const std::vector<std::string> &paths);
    void okString(const std::string &s);
    /// Answers the named error \a name with \a message.
    void fail(const char *name, const std::string &message);
    /// Answers the named error of \a error's code (busErrorName()).
    void fail(const mpath::Error &error);

private:
    bool answer();

    sd_bus_message *m_;
    std::function<void()> beforeReply_;
    bool answered_{false};
};

using CallPtr = std::shared_ptr<BusCall>;

} // namespace mpathd
