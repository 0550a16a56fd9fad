#include "mpath/status.h"
#include "mpath/table.h"

#include "test_file.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/sysmacros.h>

using namespace mpath;

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
        Map map;
        std::string why;
        EXPECT_EQ(Table::parseLine(table, map, &why), 0) << why;
        std::string rebuilt;
        EXPECT_EQ(Table::buildLine(map, rebuilt, &why), 0) << why;
        EXPECT_EQ(rebuilt, table) << "the table the kernel prints must build back unchanged";

        auto statusFile = e.path();
        statusFile.replace_extension(".status");
        if (!std::filesystem::exists(statusFile))
            continue;
        const std::string status = trimmed(readFile(statusFile));
        MapStatus st;
        EXPECT_EQ(Status::parseLine(status, map, &st, &why), 0) << why;
        EXPECT_EQ(Status::build(map, st), paramsOf(status))
            << "the status the kernel prints must build back unchanged";
    }
    return cases;
}

} // namespace

TEST(Table, BuildsTheStockConstructorLineForTwoRoundRobinGroups) {
    std::string line, why;
    ASSERT_EQ(Table::buildLine(twoGroupMap(), line, &why), 0) << why;
    EXPECT_EQ(line, "0 2097152 multipath 1 queue_if_no_path 0 2 1 round-robin 0 2 1 8:16 1 8:32 1 "
                    "round-robin 0 2 1 8:48 1 8:64 1");
}

TEST(Table, BuildsTheSameParametersForLmpathAndNamesTheTarget) {
    Map m = twoGroupMap();
    std::string stock, ours, line;
    ASSERT_EQ(Table::build(m, stock), 0);
    m.target = "lmpath";
    ASSERT_EQ(Table::build(m, ours), 0);
    EXPECT_EQ(stock, ours);
    ASSERT_EQ(Table::buildLine(m, line), 0);
    EXPECT_EQ(line.rfind("0 2097152 lmpath ", 0), 0u);
}

TEST(Table, CountsTheHardwareHandlerNameAmongItsArguments) {
    Map m = twoGroupMap();
    m.hwHandler = "rdac";
    m.hwHandlerArgs = {"x"};
    std::string p;
    ASSERT_EQ(Table::build(m, p), 0);
    EXPECT_NE(p.find(" 2 rdac x 2 1 "), std::string::npos) << p;
}

TEST(Table, ParsesWhatItBuilds) {
    Map m = twoGroupMap();
    m.hwHandler = "alua";
    m.features = {"queue_if_no_path", "pg_init_retries", "50"};
    m.groups[1].selector = "service-time";
    m.groups[1].pathArgs = {"1", "2"};
    m.groups[1].selectorArgs = {};
    m.initialGroup = 2;
    std::string p, why;
    ASSERT_EQ(Table::build(m, p), 0);
    Map back;
    ASSERT_EQ(Table::parse(p, back, &why), 0) << why;
    EXPECT_EQ(back.features, m.features);
    EXPECT_EQ(back.hwHandler, "alua");
    EXPECT_EQ(back.initialGroup, 2u);
    ASSERT_EQ(back.groups.size(), 2u);
    EXPECT_EQ(back.groups[1].selector, "service-time");
    EXPECT_EQ(back.groups[1].pathArgs, (std::vector<std::string>{"1", "2"}));
    ASSERT_EQ(back.groups[1].paths.size(), 2u);
    EXPECT_EQ(back.groups[1].paths[1].devt, makedev(8, 64));
}

TEST(Table, KeepsPerPathArgumentsThatDifferFromTheGroup) {
    Map m;
    const char *params = "0 0 1 1 service-time 0 3 2 8:16 1 1 8:32 1 3 8:48 1 1";
    ASSERT_EQ(Table::parse(params, m), 0);
    const PathGroup &g = m.groups.at(0);
    EXPECT_EQ(g.pathArgs, (std::vector<std::string>{"1", "1"}));
    EXPECT_TRUE(g.paths[0].pathArgs.empty());
    EXPECT_EQ(g.paths[1].pathArgs, (std::vector<std::string>{"1", "3"}));
    EXPECT_TRUE(g.paths[2].pathArgs.empty());
    std::string back;
    ASSERT_EQ(Table::build(m, back), 0);
    EXPECT_EQ(back, params);
}

TEST(Table, RefusesAPathWhoseArgumentCountDiffersFromItsGroup) {
    Map m = twoGroupMap();
    m.groups[0].paths[1].pathArgs = {"1", "2"};
    std::string p, why;
    EXPECT_EQ(Table::build(m, p, &why), -EINVAL);
    EXPECT_NE(why.find("8:32"), std::string::npos) << why;
}

TEST(Table, RefusesAGroupWithoutPaths) {
    Map m = twoGroupMap();
    m.groups[1].paths.clear();
    std::string p, why;
    EXPECT_EQ(Table::build(m, p, &why), -EINVAL);
    EXPECT_NE(why.find("group 2"), std::string::npos) << why;
}

TEST(Table, RefusesMorePathArgumentsThanTheSelectorTakes) {
    Map m = twoGroupMap();
    m.groups[0].pathArgs = {"1", "2"};
    std::string p, why;
    EXPECT_EQ(Table::build(m, p, &why), -EINVAL);
    EXPECT_NE(why.find("round-robin takes at most 1"), std::string::npos) << why;
}

TEST(Table, RefusesAnInitialGroupOutsideTheMap) {
    Map m = twoGroupMap();
    m.initialGroup = 3;
    std::string p;
    EXPECT_EQ(Table::build(m, p), -EINVAL);
    m.initialGroup = 0;
    EXPECT_EQ(Table::build(m, p), -EINVAL);
}

TEST(Table, RefusesFeatureWordsWithSpaces) {
    Map m = twoGroupMap();
    m.features = {"queue_if_no_path 1"};
    std::string p;
    EXPECT_EQ(Table::build(m, p), -EINVAL);
}

TEST(Table, RefusesAPathWithoutDeviceNumber) {
    Map m = twoGroupMap();
    m.groups[0].paths[0].devt = 0;
    m.groups[0].paths[0].kernelName = "sdq";
    std::string p, why;
    EXPECT_EQ(Table::build(m, p, &why), -EINVAL);
    EXPECT_NE(why.find("sdq"), std::string::npos) << why;
}

TEST(Table, BuildsAMapWithoutGroupsAsInitialGroupZero) {
    Map m;
    m.initialGroup = 0;
    std::string p;
    ASSERT_EQ(Table::build(m, p), 0);
    EXPECT_EQ(p, "0 0 0 0");
}

TEST(TableParser, RejectsPathGroupCountAboveLimit) {
    Map m;
    std::string why;
    EXPECT_EQ(Table::parse("0 0 1025 1", m, &why), -EINVAL);
    EXPECT_NE(why.find("above the limit"), std::string::npos) << why;
}

TEST(TableParser, RejectsATruncatedTableNamingWhatIsMissing) {
    Map m;
    std::string why;
    EXPECT_EQ(Table::parse("0 0 1 1 round-robin 0 2 1 8:16 1", m, &why), -EINVAL);
    EXPECT_NE(why.find("missing path device"), std::string::npos) << why;
}

TEST(TableParser, RejectsTrailingWords) {
    Map m;
    std::string why;
    EXPECT_EQ(Table::parse("0 0 1 1 round-robin 0 1 1 8:16 1 extra", m, &why), -EINVAL);
    EXPECT_NE(why.find("extra"), std::string::npos) << why;
}

TEST(TableParser, RejectsADeviceThatIsNotMajorColonMinor) {
    Map m;
    std::string why;
    EXPECT_EQ(Table::parse("0 0 1 1 round-robin 0 1 0 sdb", m, &why), -EINVAL);
    EXPECT_NE(why.find("sdb"), std::string::npos) << why;
}

TEST(TableParser, LeavesTheMapUntouchedOnError) {
    Map m = twoGroupMap();
    Map before = m;
    EXPECT_EQ(Table::parse("1 queue_if_no_path 0 1 1 round-robin", m), -EINVAL);
    EXPECT_EQ(m, before);
}

TEST(TableParser, KeepsIdentityFieldsOfTheMap) {
    Map m;
    m.wwid = "3600a";
    m.alias = "mpatha";
    ASSERT_EQ(Table::parse("0 0 1 1 round-robin 0 1 1 8:16 1", m), 0);
    EXPECT_EQ(m.wwid, "3600a");
    EXPECT_EQ(m.alias, "mpatha");
}

TEST(TableParser, ReadsSizeAndTargetFromADmsetupLine) {
    Map m;
    ASSERT_EQ(Table::parseLine("0 4096 lmpath 0 0 1 1 queue-length 0 1 1 253:3 1", m), 0);
    EXPECT_EQ(m.sizeSectors, 4096u);
    EXPECT_EQ(m.target, "lmpath");
    EXPECT_EQ(m.groups.at(0).paths.at(0).devt, makedev(253, 3));
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
                int r = ext == ".table" ? Table::parse(prefix, m) : Status::parse(prefix, m);
                EXPECT_EQ(r, -EINVAL) << "accepted the truncation '" << prefix << "'";
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 100);
}
