// libmpath's one table of path selector facts (dm/selectors.h), held to
// dm-lmpath's own selectors: every selector the module registers is in the
// table with the per-path argument counts it prints, the table names no
// selector the module lacks, and the selector arguments libmpath accepts
// are exactly those the module's constructor takes and prints back. (The
// stock selectors' create functions are the same: historical-service-time
// checks its two arguments as hst_create() here does, the others ignore
// theirs and print "0".)

// The kernel sources declare C functions without extern "C" guards.
extern "C" {
#include "lmpath-ps.h"
}
#include "lmpath_map.h"
#include "mpath/dm/selectors.h"
#include "test_file.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
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

namespace {

/// The selector arguments of the first group of a TABLE status: the words
/// after the selector's name and count.
std::vector<std::string> printedSelectorArgs(const std::string &table,
                                             const std::string &selector) {
    std::istringstream in(table);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
        words.push_back(w);
    std::vector<std::string> out;
    for (size_t i = 0; i + 1 < words.size(); ++i)
        if (words[i] == selector) {
            const size_t n = std::stoul(words[i + 1]);
            out.assign(words.begin() + static_cast<long>(i) + 2,
                       words.begin() + static_cast<long>(i + 2 + n));
            break;
        }
    return out;
}

} // namespace

TEST(SelectorFacts, AcceptedSelectorArgumentsAreThoseTheModuleTakesAndPrintsBack) {
    lmpath_user_set_nr_cpus(4, 1);
    const std::vector<std::vector<std::string>> cases = {
        {},
        {"0"},
        {"972"},
        {"1023"},
        {"1024"},
        {"5000"},
        {"1023", "0"},
        {"972", "4294967295"},
        {"972", "4294967296"},
        {"0972"},
        {"972", "007"},
        {"1", "2", "3"},
        {"a"},
        {"-1"},
        {"+5"},
        {"7", "x"},
    };
    for (const auto &s : mpath::dm::kSelectors) {
        const std::string name(s.name);
        for (const auto &args : cases) {
            std::string table = "0 0 1 1 " + name + " " + std::to_string(args.size());
            for (const auto &a : args)
                table += " " + a;
            table += name == "io-affinity" ? " 1 1 8:16 1" : " 1 0 8:16";
            auto built = lmpath_test::construct(table);
            const bool kept =
                built.map && printedSelectorArgs(lmpath_test::tableOf(built.map.get()), name) ==
                                 mpath::dm::selectorArgsAsPrinted(name, args);
            EXPECT_EQ(mpath::dm::checkSelectorArgs(s, args).ok(), kept)
                << table << ": the module " << (built.map ? "prints back " : "refuses it: ")
                << (built.map ? lmpath_test::tableOf(built.map.get()) : built.what);
        }
    }
}

TEST(SelectorFacts, ARefusedArgumentIsNamedWithItsRange) {
    const auto *hst = mpath::dm::findSelector("historical-service-time");
    ASSERT_NE(hst, nullptr);
    auto r = mpath::dm::checkSelectorArgs(*hst, {"5000"});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message,
              "historical-service-time's base weight is a number from 0 to 1023, not '5000'");
    r = mpath::dm::checkSelectorArgs(*mpath::dm::findSelector("round-robin"), {"a", "b"});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "round-robin takes no selector arguments");
}
