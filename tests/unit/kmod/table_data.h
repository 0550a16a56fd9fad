#pragma once

// The table lists shared with the VM scenarios (tests/vm/data/*.txt):
// "<target arguments>|<expected text>" per line, '#' comments, $P1..$P4
// standing for path devices.

#include "test_file.h"

#include <fstream>
#include <sstream>
#include <ostream>
#include <string>
#include <vector>

namespace lmpath_test {

struct TableCase {
    int line;             // line number in the file, for the test name
    std::string args;     // constructor arguments, paths substituted
    std::string expected; // ti->error or TABLE status, paths substituted
};

// The fake devices of the userspace build stand for $P1..$P4.
inline std::string substitutePaths(std::string s) {
    static const char *const devs[] = {"8:16", "8:32", "8:48", "8:64"};
    for (int i = 4; i >= 1; --i) {
        const std::string key = "$P" + std::to_string(i);
        for (size_t pos = s.find(key); pos != std::string::npos; pos = s.find(key, pos))
            s.replace(pos, key.size(), devs[i - 1]);
    }
    return s;
}

// What GoogleTest prints for a failing case: the file line and the table.
inline void PrintTo(const TableCase &c, std::ostream *os) {
    *os << "line " << c.line << ": \"" << c.args << "\"";
}

inline std::vector<TableCase> loadTableCases(const std::string &file) {
    std::vector<TableCase> cases;
    std::istringstream in(mpath_test::readFile(std::string(MPATH_VM_DATA_DIR) + "/" + file));
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        if (text.empty() || text[0] == '#')
            continue;
        const size_t bar = text.find('|');
        if (bar == std::string::npos)
            continue;
        cases.push_back(
            {line, substitutePaths(text.substr(0, bar)), substitutePaths(text.substr(bar + 1))});
    }
    return cases;
}

} // namespace lmpath_test
