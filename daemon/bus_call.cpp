#include "bus_call.h"

#include "bus_errors.h"

#include <systemd/sd-bus.h>

namespace mpathd {

BusCall::BusCall(sd_bus_message *m, std::function<void()> beforeReply)
    : m_(sd_bus_message_ref(m)), beforeReply_(std::move(beforeReply)) {}

BusCall::~BusCall() {
    sd_bus_message_unref(m_);
}

const char *BusCall::path() const {
    return sd_bus_message_get_path(m_);
}

bool BusCall::answer() {
    if (answered_)
        return false;
    answered_ = true;
    if (beforeReply_)
        beforeReply_();
    return true;
}

void BusCall::ok() {
    if (answer())
        (void)sd_bus_reply_method_return(m_, nullptr);
}

void BusCall::okObject(const std::string &path) {
    if (answer())
        (void)sd_bus_reply_method_return(m_, "o", path.c_str());
}

void BusCall::okString(const std::string &s) {
    if (answer())
        (void)sd_bus_reply_method_return(m_, "s", s.c_str());
}

void BusCall::okObjects(const std::vector<std::string> &paths) {
    if (!answer())
        return;
    sd_bus_message *reply = nullptr;
    int r = sd_bus_message_new_method_return(m_, &reply);
    if (r >= 0)
        r = sd_bus_message_open_container(reply, 'a', "o");
    for (const auto &p : paths)
        if (r >= 0)
            r = sd_bus_message_append(reply, "o", p.c_str());
    if (r >= 0)
        r = sd_bus_message_close_container(reply);
    if (r >= 0)
        (void)sd_bus_send(nullptr, reply, nullptr);
    else
        (void)sd_bus_reply_method_errnof(m_, -r, "cannot build the reply: %m");
    sd_bus_message_unref(reply);
}

void BusCall::fail(const char *name, const std::string &message) {
    if (answer())
        (void)sd_bus_reply_method_errorf(m_, name, "%s", message.c_str());
}

void BusCall::fail(const mpath::Error &error) {
    fail(busErrorName(error.code), error.message);
}

TextCall::TextCall(Answer answer, std::function<void()> beforeReply)
    : BusCall(nullptr, std::move(beforeReply)), answer_(std::move(answer)) {}

void TextCall::ok() {
    if (answer())
        answer_(nullptr, {});
}

void TextCall::fail(const char *name, const std::string &message) {
    if (answer())
        answer_(name, message);
}

} // namespace mpathd
