// libmpath's one table of path selector facts (dm/selectors.h), held to
// dm-lmpath's own selectors: every selector the module registers is in the
// table with the per-path argument counts it prints, and the table names no
// selector the module lacks.

// The kernel sources declare C functions without extern "C" guards.
extern "C" {
#include "lmpath-ps.h"
}
#include "mpath/dm/selectors.h"
#include "test_file.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <regex>
#include <string>
#include <vector>

namespace {

/// The selectors kmod/lmpath-ps.c registers, by their type variable.
std::vector<std::string> registeredTypes() {
    const std::string source = mpath_test::readFile(std::string(MPATH_KMOD_DIR) + "/lmpath-ps.c");
    const auto start = source.find("lmpath_ps_types[] = {");
    const auto end = source.find("};", start);
    std::vector<std::string> out;
    if (start == std::string::npos || end == std::string::npos)
        return out;
    const std::string block = source.substr(start, end - start);
    const std::regex entry("&lmpath_ps_(\\w+)");
    for (auto it = std::sregex_iterator(block.begin(), block.end(), entry);
         it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1]);
    return out;
}

} // namespace

TEST(SelectorFacts, EverySelectorOfTheTableIsTheModulesWithItsArgumentCounts) {
    for (const auto &s : mpath::dm::kSelectors) {
        const struct lmpath_ps_type *t = lmpath_ps_lookup(std::string(s.name).c_str());
        ASSERT_NE(t, nullptr) << s.name << " is not a dm-lmpath selector";
        EXPECT_EQ(s.tableArgs, t->table_args) << s.name;
        EXPECT_EQ(s.statusArgs, t->info_args) << s.name;
    }
}

TEST(SelectorFacts, TheTableHasEverySelectorTheModuleRegisters) {
    const std::vector<std::string> types = registeredTypes();
    ASSERT_FALSE(types.empty()) << "lmpath-ps.c has no lmpath_ps_types[] list";
    EXPECT_EQ(types.size(), mpath::dm::kSelectors.size());
    for (const auto &type : types) {
        std::string name = type;
        std::replace(name.begin(), name.end(), '_', '-');
        EXPECT_NE(mpath::dm::findSelector(name), nullptr)
            << "dm-lmpath registers " << name << ", libmpath's table does not have it";
    }
}

TEST(SelectorFacts, UnknownSelectorsAreNotFound) {
    EXPECT_EQ(mpath::dm::findSelector("least-pending"), nullptr);
    EXPECT_EQ(mpath::dm::findSelector(""), nullptr);
}
