#pragma once

#include <cctype>
#include <string_view>

namespace mpath::model {

/// Whether \a a comes before \a b in the order the kernel names devices:
/// "sdz" before "sdaa", "nvme0n2" before "nvme0n10", "mpathz" before
/// "mpathaa". Runs of digits compare as numbers, runs of letters shorter
/// first, then alphabetically. The daemon's JSON and mpathctl's listings
/// both sort by it, so that they agree.
inline bool kernelNameLess(std::string_view a, std::string_view b) {
    size_t i = 0, j = 0;
    auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    while (i < a.size() && j < b.size()) {
        const bool digitA = digit(a[i]);
        const bool digitB = digit(b[j]);
        size_t endA = i, endB = j;
        while (endA < a.size() && digit(a[endA]) == digitA)
            ++endA;
        while (endB < b.size() && digit(b[endB]) == digitB)
            ++endB;
        std::string_view runA = a.substr(i, endA - i), runB = b.substr(j, endB - j);
        if (digitA != digitB)
            return digitA; // numbers first, as "sd" < "sda"
        if (digitA) {
            // Numerically: no leading zeroes matter, then the longer one.
            while (runA.size() > 1 && runA[0] == '0')
                runA.remove_prefix(1);
            while (runB.size() > 1 && runB[0] == '0')
                runB.remove_prefix(1);
        }
        // Shorter first ("z" < "aa"), then alphabetically.
        if (runA.size() != runB.size())
            return runA.size() < runB.size();
        if (runA != runB)
            return runA < runB;
        i = endA;
        j = endB;
    }
    if ((i < a.size()) != (j < b.size()))
        return j < b.size();
    return a < b;
}

} // namespace mpath::model
