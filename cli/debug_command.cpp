#include "debug_command.h"

#include "exit_code.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstring>
#include <iostream>
#include <mpath/checkers/checker.h>
#include <mpath/sys/device_mapper_lib.h>
#include <mpath/sys/udev_lib.h>
#include <optional>
#include <poll.h>
#include <sstream>
#include <sys/sysmacros.h>

namespace mpathctl {

namespace {

const char *usageText = "usage: mpathctl debug dm list | info NAME | table NAME | status NAME\n"
                        "       mpathctl debug dm create NAME UUID 'START LENGTH TARGET PARAMS'\n"
                        "       mpathctl debug dm reload NAME 'START LENGTH TARGET PARAMS'\n"
                        "       mpathctl debug dm message NAME SECTOR TEXT...\n"
                        "       mpathctl debug dm remove NAME [--deferred] | rename NAME NEWNAME\n"
                        "       mpathctl debug check CHECKER DEVNODE [--timeout MS]\n"
                        "       mpathctl debug udev list SUBSYSTEM | properties NAME\n"
                        "       mpathctl debug udev monitor SECONDS [SUBSYSTEM...]\n";

int usageError(const std::string &what) {
    std::cerr << "mpathctl debug: " << what << "\n" << usageText;
    return ExitUsage;
}

bool number(const std::string &s, uint64_t &out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

/// "START LENGTH TARGET PARAMS" into a target line.
bool targetLine(const std::string &text, mpath::dm::TargetLine &t) {
    std::istringstream in(text);
    std::string start, length;
    if (!(in >> start >> length >> t.type) || !number(start, t.start) || !number(length, t.length))
        return false;
    std::getline(in, t.params);
    auto b = t.params.find_first_not_of(' ');
    t.params = b == std::string::npos ? "" : t.params.substr(b);
    return true;
}

int failed(const mpath::Error &e) {
    std::cerr << "mpathctl debug: " << e.message << "\n";
    return ExitFailure;
}

void printTargets(const std::vector<mpath::dm::TargetLine> &targets) {
    for (const auto &t : targets)
        std::cout << t.start << " " << t.length << " " << t.type << " " << t.params << "\n";
}

int runDm(const std::vector<std::string> &pos, bool deferred) {
    if (pos.empty())
        return usageError("dm needs an operation");
    const std::string &op = pos[0];
    auto need = [&](size_t n) { return pos.size() == n + 1; };
    mpath::sys::DeviceMapperLib dm;

    if (op == "list" && need(0)) {
        auto devs = dm.listMultipath();
        if (!devs)
            return failed(devs.error());
        for (const auto &d : *devs)
            std::cout << d.name << " " << d.uuid << " " << major(d.devt) << ":" << minor(d.devt)
                      << " " << d.targetType << "\n";
        return ExitOk;
    }
    if (op == "info" && need(1)) {
        auto d = dm.info(pos[1]);
        if (!d)
            return failed(d.error());
        std::cout << "name=" << d->name << "\nuuid=" << d->uuid << "\ndevt=" << major(d->devt)
                  << ":" << minor(d->devt) << "\nsuspended=" << d->suspended
                  << "\nopen=" << d->openCount << "\nevent=" << d->eventNr
                  << "\ntarget=" << d->targetType << "\n";
        return ExitOk;
    }
    if ((op == "table" || op == "status") && need(1)) {
        auto t = op == "table" ? dm.table(pos[1]) : dm.status(pos[1]);
        if (!t)
            return failed(t.error());
        printTargets(*t);
        return ExitOk;
    }
    if (op == "create" && need(3)) {
        mpath::dm::TargetLine t;
        if (!targetLine(pos[3], t))
            return usageError("bad table line '" + pos[3] + "'");
        if (auto r = dm.create(pos[1], pos[2], {t}); !r)
            return failed(r.error());
        return ExitOk;
    }
    if (op == "reload" && need(2)) {
        mpath::dm::TargetLine t;
        if (!targetLine(pos[2], t))
            return usageError("bad table line '" + pos[2] + "'");
        if (auto r = dm.reload(pos[1], {t}); !r)
            return failed(r.error());
        return ExitOk;
    }
    if (op == "message" && pos.size() >= 4) {
        uint64_t sector = 0;
        if (!number(pos[2], sector))
            return usageError("sector '" + pos[2] + "' is not a number");
        std::string text;
        for (size_t i = 3; i < pos.size(); ++i)
            text += (i > 3 ? " " : "") + pos[i];
        auto reply = dm.message(pos[1], sector, text);
        if (!reply)
            return failed(reply.error());
        if (!reply->empty())
            std::cout << *reply << "\n";
        return ExitOk;
    }
    if (op == "remove" && need(1)) {
        if (auto r = dm.remove(pos[1], deferred); !r)
            return failed(r.error());
        return ExitOk;
    }
    if (op == "rename" && need(2)) {
        if (auto r = dm.rename(pos[1], pos[2]); !r)
            return failed(r.error());
        return ExitOk;
    }
    return usageError("bad dm operation or argument count: '" + op + "'");
}

int runCheck(const std::vector<std::string> &words, const std::optional<std::string> &timeout) {
    if (words.size() != 2)
        return usageError("check needs CHECKER and DEVNODE");
    uint64_t ms = 5000;
    if (timeout && (!number(*timeout, ms) || ms == 0))
        return usageError("--timeout '" + *timeout + "' is not a positive number of milliseconds");
    auto checker = mpath::checkers::Checker::create(words[0], words[1]);
    if (!checker)
        return usageError(checker.error().message);
    auto t0 = std::chrono::steady_clock::now();
    mpath::checkers::CheckOutcome o =
        mpath::checkers::checkNow(**checker, std::chrono::milliseconds(ms));
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - t0);
    // Flushed now: a hung check's thread can delay the process's exit
    // until its I/O returns, and the answer must not wait for that.
    std::cout << mpath::model::toString(o.state) << " " << took.count() << "ms " << o.message
              << std::endl;
    return ExitOk;
}

void printDevice(const mpath::discovery::UdevDevice &d) {
    std::cout << (d.action.empty() ? "" : d.action + " ") << d.sysname << " " << d.subsystem << " "
              << (d.devtype.empty() ? "-" : d.devtype) << " " << major(d.devnum) << ":"
              << minor(d.devnum);
    for (const char *key : {"DM_ACTION", "DM_PATH", "DM_UUID", "ID_SERIAL"}) {
        auto it = d.properties.find(key);
        if (it != d.properties.end())
            std::cout << " " << key << "=" << it->second;
    }
    std::cout << std::endl;
}

int runUdev(const std::vector<std::string> &words) {
    if (words.empty())
        return usageError("udev needs list, properties or monitor");
    auto lib = mpath::sys::UdevLib::create();
    if (!lib)
        return failed(lib.error());
    mpath::sys::UdevLib &udev = **lib;
    if (words[0] == "list" && words.size() == 2) {
        auto devs = udev.enumerate(words[1], "");
        if (!devs)
            return failed(devs.error());
        for (const auto &d : *devs)
            printDevice(d);
        return ExitOk;
    }
    if (words[0] == "properties" && words.size() == 2) {
        auto props = udev.properties(words[1]);
        if (!props)
            return failed(props.error());
        for (const auto &[k, v] : *props)
            std::cout << k << "=" << v << "\n";
        return ExitOk;
    }
    uint64_t secs = 0;
    if (words[0] == "monitor" && words.size() >= 2 && number(words[1], secs)) {
        if (auto r = udev.startMonitor({words.begin() + 2, words.end()}); !r)
            return failed(r.error());
        std::cout << "monitoring" << std::endl;
        auto end = std::chrono::steady_clock::now() + std::chrono::seconds(secs);
        while (std::chrono::steady_clock::now() < end) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                end - std::chrono::steady_clock::now());
            struct pollfd p {
                udev.monitorFd(), POLLIN, 0
            };
            if (poll(&p, 1, static_cast<int>(left.count()) + 1) <= 0)
                continue;
            for (auto d = udev.receive(); d; d = udev.receive())
                printDevice(*d);
        }
        return ExitOk;
    }
    return usageError("bad udev operation or argument count: '" + words[0] + "'");
}

} // namespace

DebugCommand::DebugCommand(CLI::App &app)
    : command_(app.add_subcommand("debug", "drive one library part directly")) {
    // Hidden: for the VM lab and for debugging, not an interface.
    command_->group("");
    command_->require_subcommand(1);
    dm_ = command_->add_subcommand("dm", "device-mapper: list, info, table, status, create, "
                                         "reload, message, remove, rename");
    dm_->add_option("WORDS", dmWords_, "the operation and its arguments");
    dm_->add_flag("--deferred", deferred_, "remove: when the map is closed");
    check_ = command_->add_subcommand("check", "run a path checker once");
    check_->add_option("WORDS", checkWords_, "CHECKER DEVNODE");
    check_->add_option("--timeout", timeout_, "milliseconds (5000)")->type_name("MS");
    udev_ = command_->add_subcommand("udev", "udev: list, properties, monitor");
    udev_->add_option("WORDS", udevWords_, "the operation and its arguments");
}

bool DebugCommand::given() const {
    return command_->parsed();
}

int DebugCommand::run() const {
    if (dm_->parsed())
        return runDm(dmWords_, deferred_);
    if (check_->parsed())
        return runCheck(checkWords_,
                        check_->count("--timeout") ? std::optional(timeout_) : std::nullopt);
    return runUdev(udevWords_);
}

} // namespace mpathctl
