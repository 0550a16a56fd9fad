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
    virtual ~BusCall();
    BusCall(const BusCall &) = delete;
    BusCall &operator=(const BusCall &) = delete;

    sd_bus_message *message() const { return m_; }
    /// The object path it was called on.
    const char *path() const;
    bool answered() const { return answered_; }

    virtual void ok();
    virtual void okObject(const std::string &path);
    virtual void okObjects(const std::vector<std::string> &paths);
    virtual void okString(const std::string &s);
    /// Answers the named error \a name with \a message.
    virtual void fail(const char *name, const std::string &message);
    /// Answers the named error of \a error's code (busErrorName()).
    void fail(const mpath::Error &error);

protected:
    /// Marks the call answered and signals what changed first; false when
    /// it was answered already.
    bool answer();

private:
    sd_bus_message *m_;
    std::function<void()> beforeReply_;
    bool answered_{false};
};

/// A call of the same actions from elsewhere than D-Bus (multipath-tools'
/// command socket, whose caller is root): answered once, with success or
/// the error, for its front-end to word.
class TextCall : public BusCall {
public:
    /// What a call answers: a null error name for success, or the
    /// API's error name (bus_errors.h) and its message.
    using Answer = std::function<void(const char *errorName, const std::string &message)>;

    explicit TextCall(Answer answer, std::function<void()> beforeReply = {});

    void ok() override;
    void okObject(const std::string &) override { ok(); }
    void okObjects(const std::vector<std::string> &) override { ok(); }
    void okString(const std::string &) override { ok(); }
    void fail(const char *name, const std::string &message) override;

private:
    Answer answer_;
};

using CallPtr = std::shared_ptr<BusCall>;

} // namespace mpathd
