#include "debug_command.h"

#include "arguments.h"

#include <charconv>
#include <cstring>
#include <iostream>
#include <mpath/checker.h>
#include <mpath/device_mapper_lib.h>
#include <mpath/udev_lib.h>
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
bool targetLine(const std::string &text, mpath::DmTargetLine &t) {
    std::istringstream in(text);
    std::string start, length;
    if (!(in >> start >> length >> t.type) || !number(start, t.start) || !number(length, t.length))
        return false;
    std::getline(in, t.params);
    auto b = t.params.find_first_not_of(' ');
    t.params = b == std::string::npos ? "" : t.params.substr(b);
    return true;
}

int failed(const std::string &what, int r) {
    std::cerr << "mpathctl debug: " << what << ": " << strerror(-r);
    std::string detail = mpath::DeviceMapperLib::lastError();
    if (!detail.empty())
        std::cerr << " (" << detail << ")";
    std::cerr << "\n";
    return ExitFailure;
}

void printTargets(const std::vector<mpath::DmTargetLine> &targets) {
    for (const auto &t : targets)
        std::cout << t.start << " " << t.length << " " << t.type << " " << t.params << "\n";
}

int runDm(const std::vector<std::string> &words) {
    Arguments args(words, {}, {"--deferred"});
    if (!args.error().empty())
        return usageError(args.error());
    const auto &pos = args.positional();
    if (pos.empty())
        return usageError("dm needs an operation");
    const std::string &op = pos[0];
    auto need = [&](size_t n) { return pos.size() == n + 1; };
    mpath::DeviceMapperLib dm;

    if (op == "list" && need(0)) {
        std::vector<mpath::DmDevice> devs;
        if (int r = dm.listMultipath(devs); r < 0)
            return failed("list", r);
        for (const auto &d : devs)
            std::cout << d.name << " " << d.uuid << " " << major(d.devt) << ":" << minor(d.devt)
                      << " " << d.targetType << "\n";
        return ExitOk;
    }
    if (op == "info" && need(1)) {
        mpath::DmDevice d;
        if (int r = dm.info(pos[1], d); r < 0)
            return failed("info " + pos[1], r);
        std::cout << "name=" << d.name << "\nuuid=" << d.uuid << "\ndevt=" << major(d.devt) << ":"
                  << minor(d.devt) << "\nsuspended=" << d.suspended << "\nopen=" << d.openCount
                  << "\nevent=" << d.eventNr << "\ntarget=" << d.targetType << "\n";
        return ExitOk;
    }
    if ((op == "table" || op == "status") && need(1)) {
        std::vector<mpath::DmTargetLine> t;
        int r = op == "table" ? dm.table(pos[1], t) : dm.status(pos[1], t);
        if (r < 0)
            return failed(op + " " + pos[1], r);
        printTargets(t);
        return ExitOk;
    }
    if (op == "create" && need(3)) {
        mpath::DmTargetLine t;
        if (!targetLine(pos[3], t))
            return usageError("bad table line '" + pos[3] + "'");
        if (int r = dm.create(pos[1], pos[2], {t}); r < 0)
            return failed("create " + pos[1], r);
        return ExitOk;
    }
    if (op == "reload" && need(2)) {
        mpath::DmTargetLine t;
        if (!targetLine(pos[2], t))
            return usageError("bad table line '" + pos[2] + "'");
        if (int r = dm.reload(pos[1], {t}); r < 0)
            return failed("reload " + pos[1], r);
        return ExitOk;
    }
    if (op == "message" && pos.size() >= 4) {
        uint64_t sector = 0;
        if (!number(pos[2], sector))
            return usageError("sector '" + pos[2] + "' is not a number");
        std::string text;
        for (size_t i = 3; i < pos.size(); ++i)
            text += (i > 3 ? " " : "") + pos[i];
        std::string reply;
        if (int r = dm.message(pos[1], sector, text, &reply); r < 0)
            return failed("message " + pos[1] + " '" + text + "'", r);
        if (!reply.empty())
            std::cout << reply << "\n";
        return ExitOk;
    }
    if (op == "remove" && need(1)) {
        if (int r = dm.remove(pos[1], args.flag("--deferred")); r < 0)
            return failed("remove " + pos[1], r);
        return ExitOk;
    }
    if (op == "rename" && need(2)) {
        if (int r = dm.rename(pos[1], pos[2]); r < 0)
            return failed("rename " + pos[1], r);
        return ExitOk;
    }
    return usageError("bad dm operation or argument count: '" + op + "'");
}

int runCheck(const std::vector<std::string> &words) {
    Arguments args(words, {"--timeout"}, {});
    if (!args.error().empty())
        return usageError(args.error());
    if (args.positional().size() != 2)
        return usageError("check needs CHECKER and DEVNODE");
    uint64_t ms = 5000;
    if (auto t = args.value("--timeout"); t && (!number(*t, ms) || ms == 0))
        return usageError("--timeout '" + *t + "' is not a positive number of milliseconds");
    auto checker = mpath::Checker::create(args.positional()[0], args.positional()[1]);
    if (!checker)
        return usageError("unknown checker '" + args.positional()[0] + "'");
    auto t0 = std::chrono::steady_clock::now();
    mpath::CheckerState s = checker->check(std::chrono::milliseconds(ms));
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - t0);
    // Flushed now: a hung check's thread can delay the process's exit
    // until its I/O returns, and the answer must not wait for that.
    std::cout << mpath::toString(s) << " " << took.count() << "ms " << checker->message()
              << std::endl;
    return ExitOk;
}

void printDevice(const mpath::UdevDevice &d) {
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
    mpath::UdevLib udev;
    if (!udev.valid()) {
        std::cerr << "mpathctl debug udev: libudev could not be set up\n";
        return ExitFailure;
    }
    if (words[0] == "list" && words.size() == 2) {
        std::vector<mpath::UdevDevice> devs;
        if (int r = udev.enumerate(words[1], "", devs); r < 0)
            return failed("enumerate " + words[1], r);
        for (const auto &d : devs)
            printDevice(d);
        return ExitOk;
    }
    if (words[0] == "properties" && words.size() == 2) {
        mpath::UdevPropertyMap props;
        if (int r = udev.properties(words[1], props); r < 0)
            return failed("properties " + words[1], r);
        for (const auto &[k, v] : props)
            std::cout << k << "=" << v << "\n";
        return ExitOk;
    }
    uint64_t secs = 0;
    if (words[0] == "monitor" && words.size() >= 2 && number(words[1], secs)) {
        if (int r = udev.startMonitor({words.begin() + 2, words.end()}); r < 0)
            return failed("monitor", r);
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
            mpath::UdevDevice d;
            while (udev.receive(d) == 0)
                printDevice(d);
        }
        return ExitOk;
    }
    return usageError("bad udev operation or argument count: '" + words[0] + "'");
}

} // namespace

int DebugCommand::run(const std::vector<std::string> &words) {
    if (words.empty())
        return usageError("debug needs dm or check");
    std::vector<std::string> rest(words.begin() + 1, words.end());
    if (words[0] == "dm")
        return runDm(rest);
    if (words[0] == "check")
        return runCheck(rest);
    if (words[0] == "udev")
        return runUdev(rest);
    return usageError("unknown debug command '" + words[0] + "'");
}

} // namespace mpathctl
