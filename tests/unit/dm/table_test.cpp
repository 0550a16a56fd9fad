#include "mpath/dm/status.h"
#include "mpath/dm/table.h"
#include "test_file.h"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/sysmacros.h>

using namespace mpath::dm;
using mpath::model::Map;
using mpath::model::Path;
using mpath::model::PathGroup;
using ::testing::HasSubstr;

namespace {

Path pathAt(unsigned maj, unsigned min) {
    Path p;
    p.devt = makedev(maj, min);
    return p;
}

Map twoGroupMap() {
    Map m;
    m.wwid = "36001405aaaa";
    m.sizeSectors = 2097152;
    m.target = "multipath";
    m.features = {"queue_if_no_path"};
    PathGroup a;
    a.selector = "round-robin";
    a.pathArgs = {"1"};
    a.paths = {pathAt(8, 16), pathAt(8, 32)};
    PathGroup b = a;
    b.paths = {pathAt(8, 48), pathAt(8, 64)};
    m.groups = {a, b};
    return m;
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

using mpath_test::readFile;

/// Words 4.. of a dmsetup line: the target's parameters.
std::string paramsOf(const std::string &line) {
    std::istringstream in(line);
    std::string w, out;
    for (int i = 0; in >> w; ++i)
        if (i >= 3)
            out += (out.empty() ? "" : " ") + w;
    return out;
}

/// Checks every <case>.table / <case>.status pair under one fixture
/// folder; returns how many cases it found.
int roundTripFolder(const std::filesystem::path &dir) {
    int cases = 0;
    if (!std::filesystem::is_directory(dir))
        return 0;
    for (const auto &e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() != ".table")
            continue;
        ++cases;
        SCOPED_TRACE(e.path().string());
        const std::string table = trimmed(readFile(e.path()));
        auto parsed = parseTableLine(table);
        EXPECT_TRUE(parsed) << parsed.error().message;
        if (!parsed)
            continue;
        Map map = *parsed;
        auto rebuilt = buildTableLine(map);
        EXPECT_TRUE(rebuilt) << rebuilt.error().message;
        if (rebuilt) {
            EXPECT_EQ(*rebuilt, table) << "the table the kernel prints must build back unchanged";
        }

        auto statusFile = e.path();
        statusFile.replace_extension(".status");
        if (!std::filesystem::exists(statusFile))
            continue;
        const std::string status = trimmed(readFile(statusFile));
        auto st = parseStatusLine(status, map);
        EXPECT_TRUE(st) << st.error().message;
        if (!st)
            continue;
        EXPECT_EQ(buildStatus(map, *st), paramsOf(status))
            << "the status the kernel prints must build back unchanged";
    }
    return cases;
}

} // namespace

TEST(Table, BuildsTheStockConstructorLineForTwoRoundRobinGroups) {
    auto line = buildTableLine(twoGroupMap());
    ASSERT_TRUE(line) << line.error().message;
    EXPECT_EQ(*line, "0 2097152 multipath 1 queue_if_no_path 0 2 1 round-robin 0 2 1 8:16 1 8:32 1 "
                     "round-robin 0 2 1 8:48 1 8:64 1");
}

TEST(Table, BuildsTheSameParametersForLmpathAndNamesTheTarget) {
    Map m = twoGroupMap();
    auto stock = buildTable(m);
    ASSERT_TRUE(stock) << stock.error().message;
    m.target = "lmpath";
    auto ours = buildTable(m);
    ASSERT_TRUE(ours) << ours.error().message;
    EXPECT_EQ(*stock, *ours);
    auto line = buildTableLine(m);
    ASSERT_TRUE(line) << line.error().message;
    EXPECT_EQ(line->rfind("0 2097152 lmpath ", 0), 0u);
}

TEST(Table, CountsTheHardwareHandlerNameAmongItsArguments) {
    Map m = twoGroupMap();
    m.hwHandler = "rdac";
    m.hwHandlerArgs = {"x"};
    auto p = buildTable(m);
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_THAT(*p, HasSubstr(" 2 rdac x 2 1 "));
}

TEST(Table, ParsesWhatItBuilds) {
    Map m = twoGroupMap();
    m.hwHandler = "alua";
    m.features = {"queue_if_no_path", "pg_init_retries", "50"};
    m.groups[1].selector = "service-time";
    m.groups[1].pathArgs = {"1", "2"};
    m.groups[1].selectorArgs = {};
    m.initialGroup = 2;
    auto p = buildTable(m);
    ASSERT_TRUE(p) << p.error().message;
    auto back = parseTable(*p);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->features, m.features);
    EXPECT_EQ(back->hwHandler, "alua");
    EXPECT_EQ(back->initialGroup, 2u);
    ASSERT_EQ(back->groups.size(), 2u);
    EXPECT_EQ(back->groups[1].selector, "service-time");
    EXPECT_EQ(back->groups[1].pathArgs, (std::vector<std::string>{"1", "2"}));
    ASSERT_EQ(back->groups[1].paths.size(), 2u);
    EXPECT_EQ(back->groups[1].paths[1].devt, makedev(8, 64));
}

TEST(Table, KeepsPerPathArgumentsThatDifferFromTheGroup) {
    const char *params = "0 0 1 1 service-time 0 3 2 8:16 1 1 8:32 1 3 8:48 1 1";
    auto m = parseTable(params);
    ASSERT_TRUE(m) << m.error().message;
    const PathGroup &g = m->groups.at(0);
    EXPECT_EQ(g.pathArgs, (std::vector<std::string>{"1", "1"}));
    EXPECT_TRUE(g.paths[0].pathArgs.empty());
    EXPECT_EQ(g.paths[1].pathArgs, (std::vector<std::string>{"1", "3"}));
    EXPECT_TRUE(g.paths[2].pathArgs.empty());
    auto back = buildTable(*m);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, params);
}

TEST(Table, RefusesAPathWhoseArgumentCountDiffersFromItsGroup) {
    Map m = twoGroupMap();
    m.groups[0].paths[1].pathArgs = {"1", "2"};
    auto p = buildTable(m);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.code(), EINVAL);
    EXPECT_THAT(p.error().message, HasSubstr("8:32"));
}

TEST(Table, RefusesAGroupWithoutPaths) {
    Map m = twoGroupMap();
    m.groups[1].paths.clear();
    auto p = buildTable(m);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.code(), EINVAL);
    EXPECT_THAT(p.error().message, HasSubstr("group 2"));
}

TEST(Table, RefusesMorePathArgumentsThanTheSelectorTakes) {
    Map m = twoGroupMap();
    m.groups[0].pathArgs = {"1", "2"};
    auto p = buildTable(m);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.code(), EINVAL);
    EXPECT_THAT(p.error().message, HasSubstr("round-robin takes at most 1"));
}

TEST(Table, RefusesAnInitialGroupOutsideTheMap) {
    Map m = twoGroupMap();
    m.initialGroup = 3;
    EXPECT_EQ(buildTable(m).code(), EINVAL);
    m.initialGroup = 0;
    EXPECT_EQ(buildTable(m).code(), EINVAL);
}

TEST(Table, RefusesFeatureWordsWithSpaces) {
    Map m = twoGroupMap();
    m.features = {"queue_if_no_path 1"};
    EXPECT_EQ(buildTable(m).code(), EINVAL);
}

TEST(Table, RefusesWordsTheKernelWouldSplitOrUnescape) {
    // dm_split_args() splits at the kernel's isspace(), 0xa0 and vertical
    // tab included, and drops a backslash before the next byte.
    for (const std::string &word :
         {std::string("queue_if_no_path\\"), std::string("a\\ b"), std::string("queue\xa0mode"),
          std::string("a\vb"), std::string("a\fb")}) {
        Map m = twoGroupMap();
        m.features = {word};
        auto r = buildTable(m);
        EXPECT_EQ(r.code(), EINVAL) << word;
        m = twoGroupMap();
        m.groups[0].selectorArgs = {word};
        EXPECT_EQ(buildTable(m).code(), EINVAL) << word;
        m = twoGroupMap();
        m.hwHandler = "alua";
        m.hwHandlerArgs = {word};
        EXPECT_EQ(buildTable(m).code(), EINVAL) << word;
    }
}

TEST(Table, RefusesAPathWithoutDeviceNumber) {
    Map m = twoGroupMap();
    m.groups[0].paths[0].devt = 0;
    m.groups[0].paths[0].kernelName = "sdq";
    auto p = buildTable(m);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.code(), EINVAL);
    EXPECT_THAT(p.error().message, HasSubstr("sdq"));
}

TEST(Table, BuildsAMapWithoutGroupsAsInitialGroupZero) {
    Map m;
    m.initialGroup = 0;
    auto p = buildTable(m);
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_EQ(*p, "0 0 0 0");
}

TEST(TableParser, RejectsPathGroupCountAboveLimit) {
    auto m = parseTable("0 0 1025 1");
    ASSERT_FALSE(m);
    EXPECT_EQ(m.code(), EINVAL);
    EXPECT_THAT(m.error().message, HasSubstr("above the limit"));
}

TEST(TableParser, RejectsATruncatedTableNamingWhatIsMissing) {
    auto m = parseTable("0 0 1 1 round-robin 0 2 1 8:16 1");
    ASSERT_FALSE(m);
    EXPECT_EQ(m.code(), EINVAL);
    EXPECT_THAT(m.error().message, HasSubstr("missing path device"));
}

TEST(TableParser, RejectsTrailingWords) {
    auto m = parseTable("0 0 1 1 round-robin 0 1 1 8:16 1 extra");
    ASSERT_FALSE(m);
    EXPECT_EQ(m.code(), EINVAL);
    EXPECT_THAT(m.error().message, HasSubstr("extra"));
}

TEST(TableParser, RejectsADeviceThatIsNotMajorColonMinor) {
    auto m = parseTable("0 0 1 1 round-robin 0 1 0 sdb");
    ASSERT_FALSE(m);
    EXPECT_EQ(m.code(), EINVAL);
    EXPECT_THAT(m.error().message, HasSubstr("sdb"));
}

TEST(TableParser, KeepsIdentityFieldsOfTheMap) {
    Map base;
    base.wwid = "3600a";
    base.alias = "mpatha";
    auto m = parseTable("0 0 1 1 round-robin 0 1 1 8:16 1", base);
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->wwid, "3600a");
    EXPECT_EQ(m->alias, "mpatha");
}

TEST(TableParser, ReadsSizeAndTargetFromADmsetupLine) {
    auto m = parseTableLine("0 4096 lmpath 0 0 1 1 queue-length 0 1 1 253:3 1");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->sizeSectors, 4096u);
    EXPECT_EQ(m->target, "lmpath");
    EXPECT_EQ(m->groups.at(0).paths.at(0).devt, makedev(253, 3));
}

TEST(TableFixtures, HandWrittenCasesRoundTrip) {
    if (roundTripFolder(MPATH_FIXTURES_DIR "/dm/hand") == 0)
        FAIL() << "no hand-written fixtures found";
}

TEST(TableFixtures, CasesRecordedOnLinux61RoundTrip) {
    EXPECT_GT(roundTripFolder(MPATH_FIXTURES_DIR "/dm/6.1"), 0)
        << "no cases recorded on 6.1 (tests/vm/libmpath-dm-fixtures.sh records them)";
}

TEST(TableFixtures, CasesRecordedOnLinux612RoundTrip) {
    EXPECT_GT(roundTripFolder(MPATH_FIXTURES_DIR "/dm/6.12"), 0)
        << "no cases recorded on 6.12 (tests/vm/libmpath-dm-fixtures.sh records them)";
}

TEST(TableFixtures, EveryTruncationOfARecordedLineIsRejectedNotMisread) {
    int checked = 0;
    for (const char *kernel : {"/dm/6.1", "/dm/6.12", "/dm/hand"}) {
        const std::filesystem::path dir = std::string(MPATH_FIXTURES_DIR) + kernel;
        if (!std::filesystem::is_directory(dir))
            continue;
        for (const auto &e : std::filesystem::directory_iterator(dir)) {
            const auto ext = e.path().extension();
            if (ext != ".table" && ext != ".status")
                continue;
            SCOPED_TRACE(e.path().string());
            std::istringstream in(trimmed(readFile(e.path())));
            std::vector<std::string> words;
            for (std::string w; in >> w;)
                words.push_back(w);
            // Drop 1..n-4 trailing words; the first three are start,
            // length and target. An empty map ("0 0 0 0") has no proper
            // prefix that parses, nor does any other line.
            std::string prefix;
            for (size_t n = 3; n + 1 < words.size(); ++n) {
                prefix += (prefix.empty() ? "" : " ") + words[n];
                Map m;
                int code =
                    ext == ".table" ? parseTable(prefix).code() : parseStatus(prefix, m).code();
                EXPECT_EQ(code, EINVAL) << "accepted the truncation '" << prefix << "'";
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 100);
}
