// libFuzzer target for what libmpath lets through to the kernel's table
// from a configuration (and so from D-Bus): path_selector and features
// values, and single table words. Differential, against dm-lmpath's
// constructor in its userspace build:
//  - a path_selector the parser accepts builds a table the constructor
//    accepts and prints back with the same selector arguments;
//  - one it refuses, made of plain words with a count that matches, is
//    one the constructor refuses or does not print back as given;
//  - features the parser accepts build a table the constructor accepts;
//  - isTableWord(w) holds exactly when the kernel's dm_split_args() reads
//    w back as w between two other words.
// The first input byte picks which; the rest is the value.

#include "lmpath-user.h"
#include "mpath/config/parser.h"
#include "mpath/dm/features.h"
#include "mpath/dm/selectors.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const char *what, const std::string &value, const std::string &detail) {
    std::fprintf(stderr, "%s\n  value: \"%s\"\n  %s\n", what, value.c_str(), detail.c_str());
    std::abort();
}

/// The kernel's isspace() (lib/ctype.c, Latin-1).
bool kernelSpace(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

/// drivers/md/dm-table.c dm_split_args(), with the kernel's isspace().
std::vector<std::string> kernelSplit(const std::string &in) {
    std::vector<std::string> out;
    size_t i = 0;
    while (true) {
        while (i < in.size() && kernelSpace(static_cast<unsigned char>(in[i])))
            ++i;
        if (i >= in.size() || in[i] == '\0')
            break;
        std::string word;
        while (i < in.size() && in[i] != '\0') {
            if (in[i] == '\\' && i + 1 < in.size() && in[i + 1] != '\0') {
                word += in[i + 1];
                i += 2;
                continue;
            }
            if (kernelSpace(static_cast<unsigned char>(in[i])))
                break;
            word += in[i++];
        }
        if (i < in.size())
            ++i;
        out.push_back(word);
    }
    return out;
}

/// The words of \a text as the parser splits a value (blanks only).
std::vector<std::string> words(const std::string &text) {
    std::vector<std::string> out;
    std::string w;
    for (char c : text) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
            if (!w.empty())
                out.push_back(w);
            w.clear();
        } else {
            w += c;
        }
    }
    if (!w.empty())
        out.push_back(w);
    return out;
}

std::string statusOf(lmpath *m) {
    static char buf[64 * 1024];
    lmpath_user_status(m, 1, buf, sizeof(buf));
    return buf;
}

/// The constructor's view of a one-group table with \a selector (its
/// words after the name: count and arguments) and \a features.
/// \return whether it accepted it; \a printed gets its TABLE status
bool construct(const std::string &features, const std::string &selector,
               const std::string &selectorTail, std::string &printed) {
    const bool ioa = selector == "io-affinity";
    const std::string table =
        features + " 0 1 1 " + selector + " " + selectorTail + (ioa ? " 1 1 8:16 1" : " 1 0 8:16");
    lmpath *m = nullptr;
    const char *error = nullptr;
    if (lmpath_user_create(table.c_str(), &m, &error))
        return false;
    printed = statusOf(m);
    lmpath_user_destroy(m);
    return true;
}

/// The selector arguments in a TABLE status: the words after \a name and
/// its count.
std::vector<std::string> printedArgs(const std::string &printed, const std::string &name) {
    const auto w = kernelSplit(printed);
    for (size_t i = 0; i + 1 < w.size(); ++i)
        if (w[i] == name) {
            const size_t n = std::strtoul(w[i + 1].c_str(), nullptr, 10);
            if (i + 2 + n <= w.size())
                return {w.begin() + static_cast<long>(i) + 2,
                        w.begin() + static_cast<long>(i + 2 + n)};
        }
    return {};
}

mpath::config::ConfigResult parseDefault(const std::string &keyword, const std::string &value) {
    return mpath::config::parseString("defaults {\n\t" + keyword + " \"" + value + "\"\n}\n",
                                      "fuzz.conf");
}

void checkSelector(const std::string &value) {
    auto r = parseDefault("path_selector", value);
    const auto &ps = r.config.defaults.pathSelector;
    if (ps) {
        std::string tail = std::to_string(ps->args.size());
        for (const auto &a : ps->args)
            tail += " " + a;
        std::string printed;
        if (!construct("0", ps->name, tail, printed))
            fail("an accepted path_selector is refused by the constructor", value, tail);
        if (printedArgs(printed, ps->name) != mpath::dm::selectorArgsAsPrinted(ps->name, ps->args))
            fail("an accepted path_selector is printed back otherwise", value, printed);
        return;
    }
    // Refused: if it is plain words naming a selector with the right count,
    // the kernel must refuse it or not keep it.
    const auto w = words(value);
    if (w.size() < 2 || !mpath::dm::findSelector(w[0]))
        return;
    for (const auto &x : w)
        if (!mpath::dm::isTableWord(x))
            return;
    std::string tail;
    for (size_t i = 1; i < w.size(); ++i)
        tail += (i > 1 ? " " : "") + w[i];
    if (std::strtoul(w[1].c_str(), nullptr, 10) != w.size() - 2 ||
        w[1].find_first_not_of("0123456789") != std::string::npos)
        return;
    const std::vector<std::string> args(w.begin() + 2, w.end());
    std::string printed;
    if (construct("0", w[0], tail, printed) &&
        printedArgs(printed, w[0]) == mpath::dm::selectorArgsAsPrinted(w[0], args))
        fail("a path_selector the kernel takes and keeps is refused", value, printed);
}

void checkFeatures(const std::string &value) {
    auto r = parseDefault("features", value);
    const auto &f = r.config.defaults.features;
    if (!f)
        return;
    std::string text = std::to_string(f->size());
    for (const auto &w : *f)
        text += " " + w;
    std::string printed;
    if (!construct(text, "round-robin", "0", printed))
        fail("accepted features are refused by the constructor", value, text);
}

void checkWord(const std::string &word) {
    if (word.find('\0') != std::string::npos)
        return;
    const bool kept = kernelSplit("x " + word + " y") == std::vector<std::string>{"x", word, "y"};
    if (mpath::dm::isTableWord(word) != kept)
        fail(kept ? "a word the kernel keeps is refused" : "a word the kernel splits is taken",
             word, "");
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    lmpath_user_set_nr_cpus(4, 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 512)
        return 0;
    const std::string value(reinterpret_cast<const char *>(data) + 1, size - 1);
    switch (data[0] % 3) {
    case 0:
        // A value the configuration can hold: one line, no quote.
        if (value.find_first_of("\"\n\r#!") == std::string::npos &&
            value.find('\0') == std::string::npos)
            checkSelector(value);
        break;
    case 1:
        if (value.find_first_of("\"\n\r#!") == std::string::npos &&
            value.find('\0') == std::string::npos)
            checkFeatures(value);
        break;
    default:
        checkWord(value);
        break;
    }
    return 0;
}
