#include "mpath/config/keyword_info.h"
#include "test_file.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

using mpath::config::KeywordInfo;

namespace {

// One row of the keyword table of docs/configuration.md.
struct DocRow {
    std::string multipaths, overrides, devices, defaults; ///< "—" when not accepted
    std::string builtin;                                  ///< as written, "(none)"
    std::string effect;                                   ///< "yes" or "no"
    std::string notes;
};

std::string trim(const std::string &s) {
    size_t b = s.find_first_not_of(' ');
    size_t e = s.find_last_not_of(' ');
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The text between backticks, then without one pair of double quotes.
std::string unquote(std::string s) {
    if (s.size() >= 2 && s.front() == '`' && s.back() == '`')
        s = s.substr(1, s.size() - 2);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
        s = s.substr(1, s.size() - 2);
    return s;
}

std::map<std::string, DocRow> docRows() {
    // The source tree is two folders above the test fixtures.
    const auto docs = std::filesystem::path(MPATH_FIXTURES_DIR).parent_path().parent_path() /
                      "docs" / "configuration.md";
    std::istringstream in(mpath_test::readFile(docs));
    std::map<std::string, DocRow> rows;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("| `", 0) != 0)
            continue;
        std::vector<std::string> cells;
        std::stringstream cellsIn(line.substr(1));
        for (std::string cell; std::getline(cellsIn, cell, '|');)
            cells.push_back(trim(cell));
        if (cells.size() < 8) {
            ADD_FAILURE() << "short row: " << line;
            continue;
        }
        rows[unquote(cells[0])] = {cells[1], cells[2], cells[3], cells[4],
                                   cells[5], cells[6], cells[7]};
    }
    return rows;
}

std::vector<std::string> documentedSections(const DocRow &r) {
    std::vector<std::string> out;
    const std::pair<const char *, const std::string *> columns[] = {{"defaults", &r.defaults},
                                                                    {"devices", &r.devices},
                                                                    {"multipaths", &r.multipaths},
                                                                    {"overrides", &r.overrides}};
    for (const auto &[name, cell] : columns)
        if (*cell != "—")
            out.emplace_back(name);
    return out;
}

} // namespace

TEST(KeywordDocs, ListEveryKeywordOfTheTableAndNoOther) {
    const auto rows = docRows();
    ASSERT_FALSE(rows.empty());
    std::map<std::string, bool> inCode;
    for (const KeywordInfo &k : mpath::config::keywords()) {
        inCode[k.name] = true;
        EXPECT_TRUE(rows.count(k.name)) << k.name << " is missing from docs/configuration.md";
    }
    for (const auto &[name, row] : rows)
        EXPECT_TRUE(inCode.count(name)) << name << " is documented but not in the keyword table";
}

TEST(KeywordDocs, GiveEachKeywordsSectionsDefaultAndEffectAsTheCode) {
    const auto rows = docRows();
    for (const KeywordInfo &k : mpath::config::keywords()) {
        auto it = rows.find(k.name);
        if (it == rows.end())
            continue; // reported by the test above
        const DocRow &row = it->second;
        EXPECT_EQ(documentedSections(row), k.sections) << k.name;
        EXPECT_EQ(row.effect, k.hasEffect ? "yes" : "no") << k.name;
        if (k.builtin)
            EXPECT_EQ(unquote(row.builtin), *k.builtin) << k.name;
        else
            EXPECT_EQ(row.builtin, "(none)") << k.name;
        EXPECT_EQ(row.notes.rfind("ours", 0) == 0, k.extension) << k.name;
    }
}

TEST(KeywordDocs, NumberTheLayersInTheOrderTheResolverAsksThem) {
    // multipaths, overrides, devices, defaults: the first one a keyword's
    // section takes is asked first.
    const auto rows = docRows();
    for (const KeywordInfo &k : mpath::config::keywords()) {
        auto it = rows.find(k.name);
        if (it == rows.end())
            continue;
        const DocRow &row = it->second;
        const std::string *cells[] = {&row.multipaths, &row.overrides, &row.devices, &row.defaults};
        int expected = 1;
        for (const std::string *cell : cells) {
            if (*cell == "—")
                continue;
            switch (k.kind) {
            case KeywordInfo::Kind::Setting:
            case KeywordInfo::Kind::Global:
                EXPECT_EQ(*cell, std::to_string(expected++)) << k.name;
                break;
            case KeywordInfo::Kind::NoEffect:
                EXPECT_EQ(*cell, "accepted") << k.name;
                break;
            case KeywordInfo::Kind::Deprecated:
                EXPECT_EQ(*cell, "ignored") << k.name;
                break;
            case KeywordInfo::Kind::Unsupported:
                ADD_FAILURE() << k.name << ": no section takes an unsupported keyword";
                break;
            }
        }
    }
}
