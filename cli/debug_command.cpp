#include "debug_command.h"

#include "arguments.h"

#include <charconv>
#include <cstring>
#include <iostream>
#include <mpath/checker.h>
#include <mpath/device_mapper_lib.h>
#include <sstream>
#include <sys/sysmacros.h>

namespace mpathctl {

namespace {

const char *usageText = "usage: mpathctl debug dm list | info NAME | table NAME | status NAME\n"
                        "       mpathctl debug dm create NAME UUID 'START LENGTH TARGET PARAMS'\n"
                        "       mpathctl debug dm reload NAME 'START LENGTH TARGET PARAMS'\n"
                        "       mpathctl debug dm message NAME SECTOR TEXT...\n"
                        "       mpathctl debug dm remove NAME [--deferred] | rename NAME NEWNAME\n"
                        "       mpathctl debug check CHECKER DEVNODE [--timeout MS]\n";

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
    std::cerr << "mpathctl debug dm: " << what << ": " << strerror(-r);
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

} // namespace

int DebugCommand::run(const std::vector<std::string> &words) {
    if (words.empty())
        return usageError("debug needs dm or check");
    std::vector<std::string> rest(words.begin() + 1, words.end());
    if (words[0] == "dm")
        return runDm(rest);
    if (words[0] == "check")
        return runCheck(rest);
    return usageError("unknown debug command '" + words[0] + "'");
}

} // namespace mpathctl
