#include "mpath/config/parser.h"
#include "mpath/config/writer.h"
#include "test_file.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace config = mpath::config;
using namespace mpath::config;

namespace {

ConfigResult parse(std::string_view text, bool ownFile = false) {
    return config::parseString(text, "/etc/multipath.conf", ownFile);
}

std::string allDiagnostics(const ConfigResult &r) {
    std::string all;
    for (const auto &d : r.diagnostics)
        all += std::string(toString(d.severity)) + ": " + d.toString() + "\n";
    return all;
}

// The only diagnostic of \a r, as "file:line: message".
std::string onlyDiagnostic(const ConfigResult &r) {
    if (r.diagnostics.size() != 1)
        return "expected one diagnostic, got " + std::to_string(r.diagnostics.size()) + ":\n" +
               allDiagnostics(r);
    return r.diagnostics[0].toString();
}

std::string readData(const std::string &name) {
    return mpath_test::readFile(std::filesystem::path(MPATH_TEST_DATA_DIR) / "config" / name);
}

// Parses "defaults { <line> }" and returns the result.
ConfigResult defaultsLine(const std::string &line) {
    return parse("defaults {\n" + line + "\n}\n");
}

} // namespace

// ---------------------------------------------------------------------------
// Syntax
// ---------------------------------------------------------------------------

TEST(ConfigParser, ReadsAMultipathToolsFileWithItsNoticesAndRefusesWhatMpathdDoesNotApply) {
    std::string text = readData("multipath-tools-sample.conf");
    ASSERT_FALSE(text.empty());
    ConfigResult r = parse(text);
    // The notices multipath-tools gives for the same lines, and no more.
    EXPECT_EQ(allDiagnostics(r),
              "warning: /etc/multipath.conf:11: option 'features \"1 queue_if_no_path\"' is "
              "deprecated, please use 'no_path_retry queue' instead\n"
              "warning: /etc/multipath.conf:12: \"bindings_file\" is deprecated and will be "
              "disabled in a future release\n"
              "warning: /etc/multipath.conf:11: ignoring feature 'queue_if_no_path' because "
              "no_path_retry is set to '12'\n");
    EXPECT_FALSE(r.hasErrors());
    const Config &c = r.config;
    EXPECT_EQ(c.defaults.userFriendlyNames, true);
    EXPECT_EQ(c.globals.findMultipaths, FindMultipaths::Smart);
    EXPECT_EQ(c.globals.pollingInterval, 10u);
    EXPECT_EQ(c.defaults.pathSelector, (PathSelector{"round-robin", {}}));
    EXPECT_EQ(c.defaults.pathChecker, "tur");
    EXPECT_EQ(c.defaults.failback, Failback::immediate());
    EXPECT_EQ(c.defaults.noPathRetry, NoPathRetry::times(12));
    EXPECT_EQ(c.defaults.features, (std::vector<std::string>{"queue_if_no_path"}));
    EXPECT_EQ(c.globals.bindingsFile, "/etc/multipath/bindings");
    EXPECT_EQ(c.blacklist.devnodes.size(), 2u);
    EXPECT_EQ(c.blacklist.wwids.size(), 1u);
    EXPECT_EQ(c.blacklist.properties.size(), 1u);
    ASSERT_EQ(c.blacklist.devices.size(), 1u);
    EXPECT_TRUE(c.blacklist.devices[0].product.matches("HSV110 (C)COMPAQ"));
    EXPECT_EQ(c.blacklistExceptions.properties.size(), 1u);
    EXPECT_EQ(c.blacklistExceptions.protocols.size(), 1u);
    ASSERT_EQ(c.devices.size(), 2u);
    EXPECT_EQ(c.devices[1].settings.hardwareHandler, (HardwareHandler{"alua", {}}));
    EXPECT_TRUE(c.devices[1].revision.matches("2.1"));
    EXPECT_FALSE(c.devices[1].revision.matches("3.0"));
    ASSERT_EQ(c.multipaths.size(), 2u);
    EXPECT_EQ(c.multipaths[0].alias, "oradata");
    EXPECT_EQ(c.multipaths[1].settings.noPathRetry, NoPathRetry::queue());
    EXPECT_EQ(c.overrides.fastIoFailTmo, OffOrNumber::number(15));
}

TEST(ConfigParser, RecordsWhereEntriesWereWritten) {
    ConfigResult r = parse("devices {\n  device {\n    vendor X\n    product Y\n  }\n}\n"
                           "blacklist {\n devnode sda\n}\n");
    ASSERT_EQ(r.config.devices.size(), 1u);
    EXPECT_EQ(r.config.devices[0].where, (SourceLocation{"/etc/multipath.conf", 2}));
    ASSERT_EQ(r.config.blacklist.devnodes.size(), 1u);
    EXPECT_EQ(r.config.blacklist.devnodes[0].where.line, 8u);
    EXPECT_EQ(r.config.files, (std::vector<std::string>{"/etc/multipath.conf"}));
}

TEST(ConfigParser, AcceptsBraceOnTheNextLine) {
    ConfigResult r = parse("defaults\n{\n  polling_interval 7\n}\n");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    EXPECT_EQ(r.config.globals.pollingInterval, 7u);
}

TEST(ConfigParser, AcceptsBracesGluedToWords) {
    ConfigResult r = parse("defaults{\npolling_interval 7\n}\n");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    EXPECT_EQ(r.config.globals.pollingInterval, 7u);
}

TEST(ConfigParser, TreatsHashAndBangAsCommentsOutsideQuotes) {
    ConfigResult r = parse("defaults { # comment\n"
                           "  prio_args \"a#b!c\" # trailing\n"
                           "  ! a whole line\n"
                           "  path_checker directio!x\n"
                           "}\n");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    EXPECT_EQ(r.config.defaults.prioArgs, "a#b!c");
    EXPECT_EQ(r.config.defaults.pathChecker, "directio");
}

TEST(ConfigParser, ReadsDoubledQuoteInsideQuotesAsAQuote) {
    ConfigResult r = defaultsLine("prio_args \"say \"\"hi\"\"\"");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    EXPECT_EQ(r.config.defaults.prioArgs, "say \"hi\"");
}

TEST(ConfigParser, ReportsUnterminatedQuoteAndKeepsOtherLines) {
    ConfigResult r = parse("defaults {\n  prio_args \"open\n  polling_interval 3\n}\n");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:2: unterminated quoted string; line ignored");
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning)
        << "multipath-tools reads on too";
    EXPECT_EQ(r.config.globals.pollingInterval, 3u);
    EXPECT_FALSE(r.config.defaults.prioArgs);
}

TEST(ConfigParser, TakesTheRestOfTheLineForFeaturesWithoutQuotes) {
    ConfigResult r = defaultsLine("features 2 pg_init_retries 50");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    EXPECT_EQ(r.config.defaults.features, (std::vector<std::string>{"pg_init_retries", "50"}));
}

TEST(ConfigParser, TakesTheRestOfTheLineForPathSelectorAndPrioArgs) {
    ConfigResult r = parse("defaults {\n path_selector service-time 0\n"
                           " prio_args \"preferredsds foo\"\n}\n");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    EXPECT_EQ(r.config.defaults.pathSelector, (PathSelector{"service-time", {}}));
    EXPECT_EQ(r.config.defaults.prioArgs, "preferredsds foo");
}

TEST(ConfigParser, LaterValueOfTheSameKeywordWins) {
    ConfigResult r = parse("defaults {\n polling_interval 3\n polling_interval 9\n}\n");
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_EQ(r.config.globals.pollingInterval, 9u);
}

TEST(ConfigParser, AcceptsAnEmptyFile) {
    ConfigResult r = parse("");
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_EQ(r.config.devices.size(), 0u);
}

TEST(ConfigParser, AcceptsDosLineEndings) {
    ConfigResult r = parse("defaults {\r\n polling_interval 4\r\n}\r\n");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    EXPECT_EQ(r.config.globals.pollingInterval, 4u);
}

TEST(ConfigParser, AcceptsDmTargetOnlyInItsOwnFile) {
    ConfigResult own = parse("defaults {\n dm_target multipath\n}\n", true);
    EXPECT_TRUE(own.diagnostics.empty()) << allDiagnostics(own);
    EXPECT_EQ(own.config.globals.dmTarget, DmTarget::Multipath);

    ConfigResult compat = parse("defaults {\n dm_target multipath\n}\n", false);
    EXPECT_EQ(onlyDiagnostic(compat),
              "/etc/multipath.conf:2: unknown keyword 'dm_target' (only mpathd.conf accepts it); "
              "ignored");
    EXPECT_EQ(compat.diagnostics[0].severity, Diagnostic::Severity::Warning);
    EXPECT_FALSE(compat.config.globals.dmTarget);
}

// ---------------------------------------------------------------------------
// Structure errors
// ---------------------------------------------------------------------------

TEST(ConfigParser, WarnsAboutUnknownKeywordWithFileAndLine) {
    ConfigResult r = parse("defaults {\n  polling_interval 5\n  frobnicate yes\n}\n");
    EXPECT_EQ(onlyDiagnostic(r),
              "/etc/multipath.conf:3: unknown keyword 'frobnicate' in section defaults; ignored");
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning);
    EXPECT_FALSE(r.hasErrors());
    EXPECT_EQ(r.config.globals.pollingInterval, 5u);
}

TEST(ConfigParser, SaysWhenAMultipathToolsKeywordIsNotSupported) {
    ConfigResult r = defaultsLine("reassign_maps yes");
    EXPECT_EQ(onlyDiagnostic(r),
              "/etc/multipath.conf:2: keyword 'reassign_maps' is not supported; ignored");
    EXPECT_FALSE(r.hasErrors());
}

TEST(ConfigParser, WarnsAboutKeywordInTheWrongSection) {
    ConfigResult r = parse("multipaths {\n multipath {\n  wwid 1\n  path_checker tur\n }\n}\n"
                           "overrides {\n polling_interval 3\n}\n");
    ASSERT_EQ(r.diagnostics.size(), 2u) << allDiagnostics(r);
    EXPECT_EQ(r.diagnostics[0].toString(),
              "/etc/multipath.conf:4: keyword 'path_checker' is not valid in section multipath; "
              "ignored");
    EXPECT_EQ(r.diagnostics[1].toString(),
              "/etc/multipath.conf:8: keyword 'polling_interval' is only valid in section "
              "defaults; ignored");
    ASSERT_EQ(r.config.multipaths.size(), 1u);
    EXPECT_FALSE(r.config.multipaths[0].settings.pathChecker);
    EXPECT_FALSE(r.config.globals.pollingInterval);
}

TEST(ConfigParser, SkipsUnknownSectionWithAWarning) {
    ConfigResult r = parse("weird {\n  nested {\n    x y\n  }\n  z 1\n}\n"
                           "defaults {\n polling_interval 2\n}\n");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:1: unknown section 'weird' in top level; "
                                 "ignored");
    EXPECT_EQ(r.config.globals.pollingInterval, 2u);
}

TEST(ConfigParser, ReportsKeywordOutsideAnySection) {
    ConfigResult r = parse("polling_interval 3\n");
    EXPECT_EQ(onlyDiagnostic(r),
              "/etc/multipath.conf:1: keyword 'polling_interval' outside any section; ignored");
}

TEST(ConfigParser, ReportsUnclosedSectionAndKeepsItsContent) {
    ConfigResult r = parse("defaults {\n polling_interval 3\n");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:1: section 'defaults' is not closed");
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning);
    EXPECT_EQ(r.config.globals.pollingInterval, 3u);
}

TEST(ConfigParser, ReportsUnmatchedClosingBrace) {
    ConfigResult r = parse("defaults {\n}\n}\n");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:3: unmatched '}'");
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning);
}

TEST(ConfigParser, ReportsSectionWithoutBrace) {
    ConfigResult r = parse("defaults\npolling_interval 3\n");
    ASSERT_GE(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].toString(), "/etc/multipath.conf:1: expected '{' after 'defaults'");
    EXPECT_FALSE(r.hasErrors());
}

TEST(ConfigParser, DropsDeviceEntryWithoutProductWithAWarning) {
    // As multipath-tools: the entry and all it sets are dropped, the rest
    // of the file applies.
    ConfigResult r = parse("devices {\n device {\n  vendor ACME\n  no_path_retry 3\n }\n"
                           " device {\n  product Rocket\n }\n"
                           " device {\n  vendor ACME\n  product Rocket\n  prio alua\n }\n}\n");
    ASSERT_EQ(r.diagnostics.size(), 2u) << allDiagnostics(r);
    EXPECT_EQ(r.diagnostics[0].toString(),
              "/etc/multipath.conf:2: device entry missing vendor or product parameter; ignored");
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning);
    EXPECT_EQ(r.diagnostics[1].toString(),
              "/etc/multipath.conf:6: device entry missing vendor or product parameter; ignored");
    EXPECT_FALSE(r.hasErrors());
    ASSERT_EQ(r.config.devices.size(), 1u);
    EXPECT_EQ(r.config.devices[0].settings.prio, "alua");
}

TEST(ConfigParser, RejectsMultipathEntryWithoutWwid) {
    ConfigResult r = parse("multipaths {\n multipath {\n  alias data\n }\n}\n");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:2: multipath entry without wwid; ignored");
    EXPECT_TRUE(r.config.multipaths.empty());
}

TEST(ConfigParser, RejectsAliasWithSlash) {
    ConfigResult r = parse("multipaths {\n multipath {\n  wwid 36001\n  alias a/b\n }\n}\n");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:4: invalid value 'a/b' for alias; accepted: "
                                 "a non-empty word without '/'");
    EXPECT_TRUE(r.config.multipaths.empty());
}

TEST(ConfigParser, RejectsBlacklistDeviceWithNeitherVendorNorProduct) {
    ConfigResult r = parse("blacklist {\n device {\n }\n}\n");
    EXPECT_EQ(onlyDiagnostic(r),
              "/etc/multipath.conf:2: blacklist device entry without vendor or product; ignored");
}

TEST(ConfigParser, PutsBlacklistExceptionDevicesInTheExceptions) {
    ConfigResult r = parse("blacklist_exceptions {\n device {\n  vendor IBM\n }\n}\n");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    EXPECT_EQ(r.config.blacklistExceptions.devices.size(), 1u);
    EXPECT_TRUE(r.config.blacklist.devices.empty());
}

TEST(ConfigParser, RejectsInvalidRegularExpression) {
    ConfigResult r = parse("blacklist {\n devnode \"^(sd\"\n devnode ^vd\n}\n");
    ASSERT_EQ(r.diagnostics.size(), 1u) << allDiagnostics(r);
    EXPECT_EQ(r.diagnostics[0].line, 2u);
    EXPECT_NE(r.diagnostics[0].message.find("invalid value '^(sd' for devnode; accepted: a POSIX "
                                            "extended regular expression"),
              std::string::npos)
        << r.diagnostics[0].message;
    ASSERT_EQ(r.config.blacklist.devnodes.size(), 1u);
    EXPECT_EQ(r.config.blacklist.devnodes[0].regex.pattern(), "^vd");
}

TEST(ConfigParser, DropsDeviceEntryWithInvalidVendorRegex) {
    ConfigResult r = parse("devices {\n device {\n  vendor \"[\"\n  product X\n }\n}\n");
    ASSERT_EQ(r.diagnostics.size(), 2u) << allDiagnostics(r);
    EXPECT_EQ(r.diagnostics[0].line, 3u);
    EXPECT_EQ(r.diagnostics[1].toString(), "/etc/multipath.conf:2: device entry with an invalid "
                                           "vendor, product or revision; ignored");
    EXPECT_TRUE(r.config.devices.empty());
}

TEST(ConfigParser, ReportsMissingValue) {
    ConfigResult r = defaultsLine("failback");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:2: missing value for failback");
    EXPECT_FALSE(r.hasErrors());
}

TEST(ConfigParser, WarnsAboutExtraWordsAfterASingleValue) {
    ConfigResult r = defaultsLine("polling_interval 5 6");
    EXPECT_EQ(onlyDiagnostic(r),
              "/etc/multipath.conf:2: extra text after the value of polling_interval ignored");
    EXPECT_EQ(r.config.globals.pollingInterval, 5u);
}

// ---------------------------------------------------------------------------
// Values: every accepted spelling and every rejection
// ---------------------------------------------------------------------------

TEST(ConfigParser, RejectsUnknownFindMultipathsValue) {
    ConfigResult r = parse("defaults {\n\n\n\n\n\n\n\n\n\n\n find_multipaths sometimes\n}\n");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:12: invalid value 'sometimes' for "
                                 "find_multipaths; accepted: strict, off, on, greedy, smart, "
                                 "yes, no");
    // multipath-tools ignores the value and goes on: so do we.
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning);
    EXPECT_FALSE(r.hasErrors());
    EXPECT_FALSE(r.config.globals.findMultipaths);
}

TEST(ConfigParser, MapsFindMultipathsYesAndNoToOnAndOff) {
    EXPECT_EQ(defaultsLine("find_multipaths yes").config.globals.findMultipaths,
              FindMultipaths::On);
    EXPECT_EQ(defaultsLine("find_multipaths no").config.globals.findMultipaths,
              FindMultipaths::Off);
    EXPECT_EQ(defaultsLine("find_multipaths greedy").config.globals.findMultipaths,
              FindMultipaths::Greedy);
    EXPECT_EQ(defaultsLine("find_multipaths strict").config.globals.findMultipaths,
              FindMultipaths::Strict);
}

TEST(ConfigParser, ReadsEveryGroupingPolicy) {
    struct {
        const char *word;
        GroupingPolicy policy;
    } cases[] = {{"failover", GroupingPolicy::Failover},
                 {"multibus", GroupingPolicy::Multibus},
                 {"group_by_serial", GroupingPolicy::GroupBySerial},
                 {"group_by_prio", GroupingPolicy::GroupByPrio},
                 {"group_by_node_name", GroupingPolicy::GroupByNodeName},
                 {"group_by_tpg", GroupingPolicy::GroupByTpg}};
    for (const auto &c : cases) {
        ConfigResult r = defaultsLine(std::string("path_grouping_policy ") + c.word);
        EXPECT_TRUE(r.diagnostics.empty()) << c.word;
        EXPECT_EQ(r.config.defaults.pathGroupingPolicy, c.policy) << c.word;
    }
}

TEST(ConfigParser, RejectsUnknownGroupingPolicy) {
    ConfigResult r = defaultsLine("path_grouping_policy round_robin");
    EXPECT_EQ(onlyDiagnostic(r),
              "/etc/multipath.conf:2: invalid value 'round_robin' for path_grouping_policy; "
              "accepted: failover, multibus, group_by_serial, group_by_prio, group_by_node_name, "
              "group_by_tpg");
}

TEST(ConfigParser, ReadsEveryFailbackForm) {
    EXPECT_EQ(defaultsLine("failback immediate").config.defaults.failback, Failback::immediate());
    EXPECT_EQ(defaultsLine("failback manual").config.defaults.failback, Failback::manual());
    EXPECT_EQ(defaultsLine("failback followover").config.defaults.failback, Failback::followover());
    EXPECT_EQ(defaultsLine("failback 30").config.defaults.failback, Failback::after(30));
}

TEST(ConfigParser, RejectsFailbackZeroNegativeAndWords) {
    for (const char *bad : {"0", "-5", "soon", "10s"}) {
        ConfigResult r = defaultsLine(std::string("failback ") + bad);
        EXPECT_EQ(onlyDiagnostic(r), std::string("/etc/multipath.conf:2: invalid value '") + bad +
                                         "' for failback; accepted: immediate, manual, "
                                         "followover, or a number of seconds > 0");
        EXPECT_FALSE(r.config.defaults.failback);
    }
}

TEST(ConfigParser, ReadsEveryNoPathRetryForm) {
    EXPECT_EQ(defaultsLine("no_path_retry fail").config.defaults.noPathRetry, NoPathRetry::fail());
    EXPECT_EQ(defaultsLine("no_path_retry queue").config.defaults.noPathRetry,
              NoPathRetry::queue());
    EXPECT_EQ(defaultsLine("no_path_retry 0").config.defaults.noPathRetry, NoPathRetry::fail());
    EXPECT_EQ(defaultsLine("no_path_retry 18").config.defaults.noPathRetry, NoPathRetry::times(18));
}

TEST(ConfigParser, RejectsBadNoPathRetry) {
    for (const char *bad : {"forever", "-1", "1.5", "99999999999"}) {
        ConfigResult r = defaultsLine(std::string("no_path_retry ") + bad);
        EXPECT_EQ(onlyDiagnostic(r), std::string("/etc/multipath.conf:2: invalid value '") + bad +
                                         "' for no_path_retry; accepted: fail, queue, or a "
                                         "number of retries");
    }
}

TEST(ConfigParser, ReadsYesNoKeywordsAndRejectsOtherWords) {
    EXPECT_EQ(defaultsLine("user_friendly_names yes").config.defaults.userFriendlyNames, true);
    EXPECT_EQ(defaultsLine("user_friendly_names no").config.defaults.userFriendlyNames, false);
    ConfigResult r = defaultsLine("detect_prio maybe");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:2: invalid value 'maybe' for detect_prio; "
                                 "accepted: yes, no");
}

TEST(ConfigParser, ReadsFlushOnLastDelInBothVocabularies) {
    EXPECT_EQ(defaultsLine("flush_on_last_del always").config.defaults.flushOnLastDel, true);
    EXPECT_EQ(defaultsLine("flush_on_last_del never").config.defaults.flushOnLastDel, false);
    EXPECT_EQ(defaultsLine("flush_on_last_del yes").config.defaults.flushOnLastDel, true);
}

TEST(ConfigParser, ChecksNumericRanges) {
    EXPECT_EQ(onlyDiagnostic(defaultsLine("verbosity 7")),
              "/etc/multipath.conf:2: invalid value '7' for verbosity; accepted: a number from 0 "
              "to 6");
    EXPECT_EQ(onlyDiagnostic(defaultsLine("polling_interval 0")),
              "/etc/multipath.conf:2: invalid value '0' for polling_interval; accepted: a number "
              ">= 1");
    EXPECT_EQ(onlyDiagnostic(defaultsLine("pg_init_retries 51")),
              "/etc/multipath.conf:2: invalid value '51' for pg_init_retries; accepted: a number "
              "from 0 to 50");
    EXPECT_EQ(onlyDiagnostic(defaultsLine("checker_timeout ten")),
              "/etc/multipath.conf:2: invalid value 'ten' for checker_timeout; accepted: a "
              "number");
    EXPECT_EQ(defaultsLine("pg_init_retries 50").config.defaults.pgInitRetries, 50u);
}

TEST(ConfigParser, AcceptsNegativeFindMultipathsTimeout) {
    ConfigResult r = defaultsLine("find_multipaths_timeout -10");
    EXPECT_TRUE(r.diagnostics.empty());
    EXPECT_EQ(r.config.globals.findMultipathsTimeout, -10);
    ConfigResult bad = defaultsLine("find_multipaths_timeout x");
    EXPECT_EQ(onlyDiagnostic(bad), "/etc/multipath.conf:2: invalid value 'x' for "
                                   "find_multipaths_timeout; accepted: a whole number (negative "
                                   "values allowed)");
    EXPECT_FALSE(bad.config.globals.findMultipathsTimeout);
}

TEST(ConfigParser, ReadsOffOrNumberKeywords) {
    EXPECT_EQ(defaultsLine("pg_init_delay_msecs off").config.defaults.pgInitDelayMsecs,
              OffOrNumber::disabled());
    EXPECT_EQ(defaultsLine("pg_init_delay_msecs 0").config.defaults.pgInitDelayMsecs,
              OffOrNumber::number(0));
    EXPECT_EQ(defaultsLine("marginal_path_double_failed_time no")
                  .config.defaults.marginalPathDoubleFailedTime,
              OffOrNumber::disabled());
    EXPECT_EQ(onlyDiagnostic(defaultsLine("marginal_path_err_sample_time 60")),
              "/etc/multipath.conf:2: invalid value '60' for marginal_path_err_sample_time; "
              "accepted: off, no, or a number >= 120");
    EXPECT_EQ(onlyDiagnostic(defaultsLine("ghost_delay soon")),
              "/etc/multipath.conf:2: invalid value 'soon' for ghost_delay; accepted: off, no, or "
              "a number");
}

TEST(ConfigParser, ChecksDevLossTmoAndKeepsIt) {
    for (const char *value : {"infinity", "60"}) {
        ConfigResult r = defaultsLine(std::string("dev_loss_tmo ") + value);
        EXPECT_TRUE(r.diagnostics.empty()) << onlyDiagnostic(r);
        EXPECT_EQ(r.config.defaults.devLossTmo,
                  std::string(value) == "60" ? DevLossTmo::after(60) : DevLossTmo::infinite());
    }
    EXPECT_EQ(onlyDiagnostic(defaultsLine("dev_loss_tmo forever")),
              "/etc/multipath.conf:2: invalid value 'forever' for dev_loss_tmo; accepted: "
              "infinity, or a number of seconds");
}

TEST(ConfigParser, ChecksFeatureWordCount) {
    ConfigResult r = defaultsLine("features \"2 queue_if_no_path\"");
    EXPECT_EQ(onlyDiagnostic(r),
              "/etc/multipath.conf:2: invalid value '2 queue_if_no_path' for features: it "
              "announces 2 word(s) but has 1; accepted: a word count followed by that many "
              "words");
    EXPECT_FALSE(r.config.defaults.features);
    ConfigResult noCount = defaultsLine("features queue_if_no_path");
    EXPECT_EQ(onlyDiagnostic(noCount),
              "/etc/multipath.conf:2: invalid value 'queue_if_no_path' for features; accepted: a "
              "word count followed by that many words, e.g. \"0\"");
    EXPECT_FALSE(noCount.config.defaults.features);
    EXPECT_EQ(defaultsLine("features \"0\"").config.defaults.features, std::vector<std::string>{});
}

TEST(ConfigParser, ReadsHardwareHandlerWithOrWithoutCount) {
    ConfigResult r = parse("devices {\n device {\n vendor A\n product B\n"
                           " hardware_handler \"1 alua\"\n }\n device {\n vendor C\n product D\n"
                           " hardware_handler rdac\n }\n device {\n vendor E\n product F\n"
                           " hardware_handler 0\n }\n}\n");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    ASSERT_EQ(r.config.devices.size(), 3u);
    EXPECT_EQ(r.config.devices[0].settings.hardwareHandler, (HardwareHandler{"alua", {}}));
    EXPECT_EQ(r.config.devices[1].settings.hardwareHandler, (HardwareHandler{"rdac", {}}));
    EXPECT_EQ(r.config.devices[2].settings.hardwareHandler, HardwareHandler{});
}

TEST(ConfigParser, RejectsUnknownHardwareHandler) {
    ConfigResult r = parse("devices {\n device {\n vendor A\n product B\n"
                           " hardware_handler \"1 magic\"\n }\n}\n");
    ASSERT_EQ(r.diagnostics.size(), 1u) << allDiagnostics(r);
    EXPECT_EQ(r.diagnostics[0].line, 5u);
    EXPECT_NE(r.diagnostics[0].message.find("invalid value '1 magic' for hardware_handler"),
              std::string::npos);
    ASSERT_EQ(r.config.devices.size(), 1u);
    EXPECT_FALSE(r.config.devices[0].settings.hardwareHandler);
}

TEST(ConfigParser, RejectsHardwareHandlerArgumentsTheKernelWouldSplitOtherwise) {
    // A backslash is the kernel's escape: "a\\b" reaches it as "ab".
    ConfigResult r = parse("devices {\n device {\n vendor A\n product B\n"
                           " hardware_handler \"2 alua a\\b\"\n }\n}\n");
    ASSERT_EQ(r.diagnostics.size(), 1u) << allDiagnostics(r);
    EXPECT_EQ(r.diagnostics[0].line, 5u);
    EXPECT_NE(r.diagnostics[0].message.find("hardware_handler"), std::string::npos)
        << r.diagnostics[0].message;
    ASSERT_EQ(r.config.devices.size(), 1u);
    EXPECT_FALSE(r.config.devices[0].settings.hardwareHandler) << "the built-in stays";
}

TEST(ConfigParser, ReadsPathSelectorArguments) {
    EXPECT_EQ(defaultsLine("path_selector \"queue-length 0\"").config.defaults.pathSelector,
              (PathSelector{"queue-length", {}}));
    EXPECT_EQ(defaultsLine("path_selector \"historical-service-time 2 10 20\"")
                  .config.defaults.pathSelector,
              (PathSelector{"historical-service-time", {"10", "20"}}));
    EXPECT_EQ(defaultsLine("path_selector round-robin").config.defaults.pathSelector,
              (PathSelector{"round-robin", {}}));
}

TEST(ConfigParser, RejectsUnknownPathSelectorAndWrongCount) {
    EXPECT_EQ(onlyDiagnostic(defaultsLine("path_selector \"fastest 0\"")),
              "/etc/multipath.conf:2: invalid value 'fastest 0' for path_selector; accepted: a "
              "selector (round-robin, queue-length, service-time, historical-service-time, "
              "io-affinity) and its argument count, e.g. \"service-time 0\"");
    ConfigResult wrongCount = defaultsLine("path_selector \"service-time 1\"");
    ASSERT_EQ(wrongCount.diagnostics.size(), 1u) << allDiagnostics(wrongCount);
    EXPECT_NE(wrongCount.diagnostics[0].message.find("invalid value 'service-time 1' for "
                                                     "path_selector"),
              std::string::npos);
    EXPECT_FALSE(wrongCount.config.defaults.pathSelector);
}

TEST(ConfigParser, RejectsSelectorArgumentsTheKernelWouldRefuseOrNotKeep) {
    // historical-service-time's base weight is below 1024: the kernel
    // refuses 5000, and the map would never be made again.
    ConfigResult r = parse("defaults {\n path_selector \"service-time 0\"\n}\n"
                           "multipaths {\n multipath {\n  wwid 36001405aaaa\n"
                           "  path_selector \"historical-service-time 1 5000\"\n }\n}\n");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:7: invalid value 'historical-service-time 1 "
                                 "5000' for path_selector: historical-service-time's base weight "
                                 "is a number from 0 to 1023, not '5000'");
    ASSERT_EQ(r.config.multipaths.size(), 1u);
    EXPECT_FALSE(r.config.multipaths[0].settings.pathSelector);
    // round-robin takes arguments and prints "round-robin 0" back: every
    // pass would reload the map.
    EXPECT_EQ(onlyDiagnostic(defaultsLine("path_selector \"round-robin 2 a b\"")),
              "/etc/multipath.conf:2: invalid value 'round-robin 2 a b' for path_selector: "
              "round-robin takes no selector arguments");
    for (const char *bad : {"historical-service-time 3 1 2 3", "historical-service-time 1 -1",
                            "historical-service-time 1 +5", "historical-service-time 2 972 x",
                            "historical-service-time 1 1024", "service-time 1 0",
                            "historical-service-time 2 972 4294967296"}) {
        ConfigResult b = defaultsLine(std::string("path_selector \"") + bad + "\"");
        EXPECT_EQ(b.diagnostics.size(), 1u) << bad << ": " << allDiagnostics(b);
        EXPECT_FALSE(b.config.defaults.pathSelector) << bad;
    }
    EXPECT_EQ(defaultsLine("path_selector \"historical-service-time 2 1023 4294967295\"")
                  .config.defaults.pathSelector,
              (PathSelector{"historical-service-time", {"1023", "4294967295"}}));
}

TEST(ConfigParser, RejectsWordsTheKernelSplitsOtherwise) {
    // The kernel splits a table at 0xa0 too, and takes a backslash as an
    // escape: neither may hide in a selector or a feature.
    for (const std::string &bad : {std::string("path_selector \"service-time\xa0"
                                               "0\""),
                                   std::string("path_selector \"historical-service-time 1 5\xa0\""),
                                   std::string("path_selector \"historical-service-time 1 5\\\""),
                                   std::string("features \"1 queue_if_no_path\\\""),
                                   std::string("features \"1 queue_if_no_path\xa0\"")}) {
        ConfigResult r = defaultsLine(bad);
        EXPECT_EQ(r.diagnostics.size(), 1u) << bad << ": " << allDiagnostics(r);
        EXPECT_FALSE(r.config.defaults.pathSelector) << bad;
        EXPECT_FALSE(r.config.defaults.features) << bad;
    }
}

TEST(ConfigParser, RejectsFeaturesTheTargetDoesNotKnowOrTakes) {
    EXPECT_EQ(onlyDiagnostic(defaultsLine("features \"1 frobnicate\"")),
              "/etc/multipath.conf:2: invalid value '1 frobnicate' for features: 'frobnicate' is "
              "not a feature of the target; accepted: a word count followed by features of "
              "queue_if_no_path, retain_attached_hw_handler, pg_init_retries <1..50>, "
              "pg_init_delay_msecs <0..60000>, queue_mode <bio|rq|mq>");
    for (const char *bad : {"2 pg_init_retries 51", "2 pg_init_retries 0", "1 pg_init_retries",
                            "2 pg_init_delay_msecs 60001", "2 queue_mode fast",
                            "9 queue_if_no_path queue_if_no_path queue_if_no_path "
                            "queue_if_no_path queue_if_no_path queue_if_no_path "
                            "queue_if_no_path queue_if_no_path queue_if_no_path"}) {
        ConfigResult r = defaultsLine(std::string("features \"") + bad + "\"");
        EXPECT_EQ(r.diagnostics.size(), 1u) << bad << ": " << allDiagnostics(r);
        EXPECT_FALSE(r.config.defaults.features) << bad;
    }
    EXPECT_EQ(defaultsLine("features \"8 queue_if_no_path retain_attached_hw_handler "
                           "pg_init_retries 50 pg_init_delay_msecs 60000 queue_mode bio\"")
                  .config.defaults.features,
              (std::vector<std::string>{"queue_if_no_path", "retain_attached_hw_handler",
                                        "pg_init_retries", "50", "pg_init_delay_msecs", "60000",
                                        "queue_mode", "bio"}));
}

TEST(ConfigParser, RejectsUnknownCheckerAndPrio) {
    EXPECT_EQ(onlyDiagnostic(defaultsLine("path_checker ping")),
              "/etc/multipath.conf:2: invalid value 'ping' for path_checker; accepted: tur, "
              "directio, readsector0, none, emc_clariion, hp_sw, rdac, cciss_tur");
    ConfigResult r = defaultsLine("prio fastest");
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_NE(r.diagnostics[0].message.find("accepted: const, alua, ontap"), std::string::npos);
}

TEST(ConfigParser, RejectsRelativeStateFilePaths) {
    EXPECT_EQ(onlyDiagnostic(defaultsLine("bindings_file bindings")),
              "/etc/multipath.conf:2: invalid value 'bindings' for bindings_file; accepted: an "
              "absolute path");
    EXPECT_EQ(onlyDiagnostic(defaultsLine("wwids_file \"\"")),
              "/etc/multipath.conf:2: invalid value '' for wwids_file; accepted: an absolute "
              "path");
}

TEST(ConfigParser, RejectsOtherEnumeratedValues) {
    EXPECT_EQ(onlyDiagnostic(defaultsLine("rr_weight heavy")),
              "/etc/multipath.conf:2: invalid value 'heavy' for rr_weight; accepted: uniform, "
              "priorities");
    EXPECT_EQ(onlyDiagnostic(defaultsLine("queue_mode fast")),
              "/etc/multipath.conf:2: invalid value 'fast' for queue_mode; accepted: bio, rq, mq");
    EXPECT_EQ(onlyDiagnostic(defaultsLine("marginal_pathgroups maybe")),
              "/etc/multipath.conf:2: invalid value 'maybe' for marginal_pathgroups; accepted: "
              "off, on, fpin, no, yes");
    EXPECT_EQ(onlyDiagnostic(parse("defaults {\n dm_target dm\n}\n", true)),
              "/etc/multipath.conf:2: invalid value 'dm' for dm_target; accepted: lmpath, "
              "multipath");
    EXPECT_EQ(onlyDiagnostic(defaultsLine("alias_prefix \"\"")),
              "/etc/multipath.conf:2: invalid value '' for alias_prefix; accepted: a non-empty "
              "word without '/'");
}

TEST(ConfigParser, KeepsTheRestOfAFileWithErrors) {
    ConfigResult r = parse("defaults {\n failback never\n no_path_retry queue\n}\n"
                           "devices {\n device {\n vendor X\n product Y\n rr_weight z\n"
                           " prio alua\n }\n}\n");
    EXPECT_FALSE(r.hasErrors());
    EXPECT_EQ(r.diagnostics.size(), 2u) << allDiagnostics(r);
    EXPECT_EQ(r.config.defaults.noPathRetry, NoPathRetry::queue());
    ASSERT_EQ(r.config.devices.size(), 1u);
    EXPECT_EQ(r.config.devices[0].settings.prio, "alua");
    EXPECT_FALSE(r.config.devices[0].settings.rrWeight);
}

TEST(ConfigParser, TakesRrWeightPrioritiesAndWarnsWhereTheSelectorKeepsNoWeight) {
    // service-time, named or built in, weighs paths: no word.
    ConfigResult quiet = parse("defaults {\n rr_weight priorities\n}\n"
                               "devices {\n device {\n  vendor A\n  product B\n"
                               "  rr_weight priorities\n  path_selector \"service-time 0\"\n"
                               " }\n}\n");
    EXPECT_TRUE(quiet.diagnostics.empty()) << allDiagnostics(quiet);
    EXPECT_EQ(quiet.config.defaults.rrWeight, RrWeight::Priorities);
    // A selector without weights draws a warning on the rr_weight line,
    // whichever section gives the selector in force there: overrides win
    // over defaults and devices, a map's entry over all.
    ConfigResult r = parse("defaults {\n rr_weight priorities\n}\n"
                           "overrides {\n path_selector \"round-robin 0\"\n}\n"
                           "devices {\n device {\n  vendor A\n  product B\n"
                           "  rr_weight priorities\n  path_selector \"service-time 0\"\n"
                           " }\n}\n"
                           "multipaths {\n multipath {\n  wwid 3600a\n"
                           "  rr_weight priorities\n  path_selector \"service-time 0\"\n"
                           " }\n multipath {\n  wwid 3600b\n  rr_weight priorities\n }\n}\n");
    EXPECT_EQ(allDiagnostics(r),
              "warning: /etc/multipath.conf:2: rr_weight priorities has no effect with "
              "path_selector 'round-robin 0': the kernel keeps a per-path weight only for "
              "service-time\n"
              "warning: /etc/multipath.conf:11: rr_weight priorities has no effect with "
              "path_selector 'round-robin 0': the kernel keeps a per-path weight only for "
              "service-time\n"
              "warning: /etc/multipath.conf:23: rr_weight priorities has no effect with "
              "path_selector 'round-robin 0': the kernel keeps a per-path weight only for "
              "service-time\n");
    // Kept all the same: the map entries that name service-time weigh.
    EXPECT_EQ(r.config.multipaths.at(0).settings.rrWeight, RrWeight::Priorities);
}

TEST(ConfigParser, RefusesAKeywordWithoutEffectUnlessItAsksForWhatMpathdDoes) {
    // What mpathd does anyway: taken, no warning.
    ConfigResult quiet =
        parse("defaults {\n rr_weight uniform\n retain_attached_hw_handler yes\n"
              " deferred_remove yes\n flush_on_last_del no\n all_tg_pt no\n"
              " max_sectors_kb off\n ghost_delay no\n marginal_path_err_sample_time no\n"
              " marginal_pathgroups off\n marginal_pathgroups on\n}\n");
    EXPECT_TRUE(quiet.diagnostics.empty()) << allDiagnostics(quiet);
    EXPECT_EQ(quiet.config.globals.marginalPathgroups, MarginalPathgroups::On);
    EXPECT_EQ(quiet.config.defaults.deferredRemove, true);
    // Anything else is refused on its line, naming the keyword and why...
    ConfigResult r = parse("defaults {\n marginal_pathgroups fpin\n}\n"
                           "devices {\n device {\n  vendor ACME\n  product Rocket\n"
                           "  retain_attached_hw_handler no\n  all_tg_pt yes\n }\n}\n");
    EXPECT_EQ(allDiagnostics(r),
              "warning: /etc/multipath.conf:2: marginal_pathgroups fpin is not supported: mpathd "
              "does not receive the FC fabric's performance impact notifications (FPIN); "
              "accepted: off, on\n"
              "warning: /etc/multipath.conf:8: keyword 'retain_attached_hw_handler' is "
              "refused: the kernel always keeps a hardware handler already attached; ignored\n"
              "warning: /etc/multipath.conf:9: keyword 'all_tg_pt' is refused: mpathd "
              "registers no persistent reservation keys; ignored\n");
    // ...and not kept: nothing shows it as if it were in force.
    EXPECT_FALSE(r.config.globals.marginalPathgroups);
    ASSERT_EQ(r.config.devices.size(), 1u);
    EXPECT_FALSE(r.config.devices[0].settings.retainAttachedHwHandler);
    EXPECT_FALSE(r.config.devices[0].settings.allTgPt);
    // A refused value leaves an earlier accepted one in place.
    ConfigResult twice = parse("defaults {\n all_tg_pt no\n all_tg_pt yes\n}\n");
    EXPECT_EQ(twice.config.defaults.allTgPt, false);
}

TEST(ConfigParser, ReportsBrokenStructureWithoutCrashing) {
    const char *inputs[] = {"}}}}{{{{",
                            "\"",
                            "{ } { }",
                            "defaults { { { \n",
                            "devices {\n device {\n device {\n",
                            "multipaths { multipath { wwid"};
    for (const char *in : inputs)
        EXPECT_FALSE(parse(in).diagnostics.empty()) << in;
}

TEST(ConfigParser, SaysProtocolSubsectionIsNotSupported) {
    ConfigResult r = parse("overrides {\n protocol {\n  type scsi:fcp\n  dev_loss_tmo 5\n }\n"
                           " no_path_retry 60\n}\n");
    EXPECT_EQ(onlyDiagnostic(r),
              "/etc/multipath.conf:2: section 'protocol' is not supported; ignored");
    EXPECT_EQ(r.config.overrides.noPathRetry, NoPathRetry::times(60));
}

TEST(ConfigParser, ReadsSectionsWrittenOnOneLine) {
    ConfigResult r = parse("defaults { polling_interval 5 }\n"
                           "blacklist { devnode ^sda$ }\n"
                           "multipaths { multipath { wwid 36001 } }\n");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    EXPECT_EQ(r.config.globals.pollingInterval, 5u);
    EXPECT_EQ(r.config.blacklist.devnodes.size(), 1u);
    ASSERT_EQ(r.config.multipaths.size(), 1u);
    EXPECT_EQ(r.config.multipaths[0].wwid, "36001");
}

TEST(ConfigParser, ClosesASectionOnTheLineOfItsLastValue) {
    ConfigResult r =
        parse("defaults {\n polling_interval 5 }\noverrides {\n no_path_retry queue\n}\n");
    EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r);
    EXPECT_EQ(r.config.globals.pollingInterval, 5u);
    EXPECT_EQ(r.config.overrides.noPathRetry, NoPathRetry::queue());
}

TEST(ConfigParser, SurvivesAVeryLongLineOfBraces) {
    std::string braces(200000, '}');
    ConfigResult r = parse("defaults {\n" + braces + "\n");
    EXPECT_EQ(r.diagnostics.size(), 199999u);
}

TEST(ConfigParser, RejectsAliasPrefixWithSlash) {
    EXPECT_EQ(onlyDiagnostic(defaultsLine("alias_prefix a/b")),
              "/etc/multipath.conf:2: invalid value 'a/b' for alias_prefix; accepted: a non-empty "
              "word without '/'");
}

TEST(ConfigParser, ReadsAnMpathconfGeneratedFileWithOnlyAnUnsupportedWarning) {
    ConfigResult r = parse(readData("mpathconf-generated.conf"));
    EXPECT_EQ(onlyDiagnostic(r),
              "/etc/multipath.conf:14: keyword 'enable_foreign' is not supported; ignored");
    EXPECT_FALSE(r.hasErrors());
    EXPECT_EQ(r.config.defaults.userFriendlyNames, true);
    EXPECT_EQ(r.config.globals.findMultipaths, FindMultipaths::On);
    EXPECT_EQ(r.config.blacklistExceptions.properties.size(), 1u);
}

TEST(ConfigParser, ReadsValuesAsMultipathToolsPrintsThemInShowConfig) {
    ConfigResult r = parse("defaults {\n"
                           "\tverbosity 2\n"
                           "\tpolling_interval 5\n"
                           "\tmax_polling_interval 20\n"
                           "\tpath_selector \"service-time 0\"\n"
                           "\tpath_grouping_policy \"failover\"\n"
                           "\tuid_attribute \"ID_SERIAL\"\n"
                           "\tprio \"const\"\n"
                           "\tprio_args \"\"\n"
                           "\tfeatures \"0\"\n"
                           "\tpath_checker \"tur\"\n"
                           "\talias_prefix \"mpath\"\n"
                           "\tfailback \"manual\"\n"
                           "\trr_min_io 1000\n"
                           "\trr_min_io_rq 1\n"
                           "\trr_weight \"uniform\"\n"
                           "\tno_path_retry \"fail\"\n"
                           "\tqueue_without_daemon \"no\"\n"
                           "\tflush_on_last_del \"never\"\n"
                           "\tuser_friendly_names \"no\"\n"
                           "\tfast_io_fail_tmo 5\n"
                           "\tdev_loss_tmo 600\n"
                           "\tbindings_file \"/etc/multipath/bindings\"\n"
                           "\twwids_file \"/etc/multipath/wwids\"\n"
                           "\tchecker_timeout 30\n"
                           "\tfind_multipaths \"strict\"\n"
                           "\tfind_multipaths_timeout -10\n"
                           "\tretain_attached_hw_handler \"yes\"\n"
                           "\tdetect_prio \"yes\"\n"
                           "\tdetect_checker \"yes\"\n"
                           "\tdeferred_remove \"no\"\n"
                           "\tconfig_dir \"/etc/multipath/conf.d\"\n"
                           "\tmarginal_path_err_sample_time \"no\"\n"
                           "\tmarginal_path_err_rate_threshold \"no\"\n"
                           "\tmarginal_path_err_recheck_gap_time \"no\"\n"
                           "\tmarginal_path_double_failed_time \"no\"\n"
                           "\tskip_kpartx \"no\"\n"
                           "\tghost_delay \"no\"\n"
                           "\tall_tg_pt \"no\"\n"
                           "\tmarginal_pathgroups \"off\"\n"
                           "}\n"
                           "devices {\n"
                           "\tdevice {\n"
                           "\t\tvendor \"DGC\"\n"
                           "\t\tproduct \".*\"\n"
                           "\t\tproduct_blacklist \"LUNZ\"\n"
                           "\t\tpath_grouping_policy \"group_by_prio\"\n"
                           "\t\tpath_checker \"emc_clariion\"\n"
                           "\t\thardware_handler \"1 emc\"\n"
                           "\t\tprio \"emc\"\n"
                           "\t\tfailback \"immediate\"\n"
                           "\t\tno_path_retry 60\n"
                           "\t}\n"
                           "}\n"
                           "overrides {\n"
                           "}\n");
    // multipath-tools gives the same notices for its own output.
    EXPECT_EQ(allDiagnostics(r),
              "warning: /etc/multipath.conf:23: \"bindings_file\" is deprecated and will be "
              "disabled in a future release\n"
              "warning: /etc/multipath.conf:24: \"wwids_file\" is deprecated and will be "
              "disabled in a future release\n");
}

// ---------------------------------------------------------------------------
// Keywords that real configurations use
// ---------------------------------------------------------------------------

TEST(ConfigParser, ReadsMaxFdsAndAcceptsDisableChangedWwidsWithOnlyANote) {
    ConfigResult r = parse("defaults {\n max_fds 8192\n disable_changed_wwids yes\n}\n");
    ASSERT_EQ(r.diagnostics.size(), 1u) << allDiagnostics(r);
    EXPECT_EQ(r.config.globals.maxFds, MaxFds::number(8192));
    EXPECT_EQ(r.diagnostics[0].toString(), "/etc/multipath.conf:3: keyword "
                                           "'disable_changed_wwids' is accepted; it has no "
                                           "effect here");
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Info);
    EXPECT_FALSE(r.hasErrors());
    EXPECT_EQ(defaultsLine("max_fds max").config.globals.maxFds, MaxFds::systemLimit());
    ConfigResult bad = defaultsLine("max_fds 0");
    EXPECT_EQ(onlyDiagnostic(bad), "/etc/multipath.conf:2: invalid value '0' for max_fds; "
                                   "accepted: max, or a number >= 1");
    EXPECT_FALSE(bad.config.globals.maxFds);
}

TEST(ConfigParser, IgnoresGetuidCalloutWithMultipathToolsNotice) {
    ConfigResult r = parse("defaults {\n getuid_callout \"/lib/udev/scsi_id -g -u -d /dev/%n\"\n}\n"
                           "devices {\n device {\n vendor EMC\n product SYMMETRIX\n"
                           " getuid_callout \"/lib/udev/scsi_id --page=pre-spc3-83 "
                           "--device=/dev/%n\"\n }\n}\n"
                           "overrides {\n getuid_callout /bin/true\n}\n"
                           "multipaths {\n multipath {\n wwid 1\n getuid_callout /bin/true\n"
                           " }\n}\n");
    ASSERT_EQ(r.diagnostics.size(), 4u) << allDiagnostics(r);
    EXPECT_EQ(r.diagnostics[0].toString(),
              "/etc/multipath.conf:2: ignoring deprecated option \"getuid_callout\"");
    EXPECT_EQ(r.diagnostics[1].toString(),
              "/etc/multipath.conf:8: ignoring deprecated option \"getuid_callout\"");
    EXPECT_EQ(r.diagnostics[2].toString(),
              "/etc/multipath.conf:12: ignoring deprecated option \"getuid_callout\"");
    // multipath-tools has no such keyword in a multipath entry.
    EXPECT_EQ(r.diagnostics[3].toString(), "/etc/multipath.conf:17: keyword 'getuid_callout' is "
                                           "not valid in section multipath; ignored");
    for (const auto &d : r.diagnostics)
        EXPECT_EQ(d.severity, Diagnostic::Severity::Warning);
    // The entry stays, and the callout sets nothing.
    ASSERT_EQ(r.config.devices.size(), 1u);
    EXPECT_EQ(config::write(r.config).find("getuid_callout"), std::string::npos);
    EXPECT_EQ(r.config.defaults, Settings{});
    EXPECT_EQ(r.config.overrides, Settings{});
}

TEST(ConfigParser, IgnoresOtherDeprecatedKeywordsWithTheirNotice) {
    ConfigResult r = parse("defaults {\n multipath_dir /lib64/multipath\n pg_timeout 10\n}\n");
    EXPECT_EQ(allDiagnostics(r),
              "warning: /etc/multipath.conf:2: ignoring deprecated option \"multipath_dir\"\n"
              "warning: /etc/multipath.conf:3: ignoring deprecated option \"pg_timeout\"\n");
}

TEST(ConfigParser, AppliesDeprecatedStateFileKeywordsWithTheirNotice) {
    ConfigResult r = defaultsLine("bindings_file /var/lib/multipath/bindings");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:2: \"bindings_file\" is deprecated and "
                                 "will be disabled in a future release");
    EXPECT_EQ(r.config.globals.bindingsFile, "/var/lib/multipath/bindings");
}

TEST(ConfigParser, ReadsCheckerAsPathChecker) {
    ConfigResult r = parse("defaults {\n checker directio\n}\n"
                           "multipaths {\n multipath {\n wwid 1\n checker tur\n }\n}\n");
    EXPECT_EQ(onlyDiagnostic(r), "/etc/multipath.conf:7: keyword 'checker' is not valid in "
                                 "section multipath; ignored");
    EXPECT_EQ(r.config.defaults.pathChecker, "directio");
    EXPECT_EQ(r.config.defaults.where.at("path_checker"),
              (SourceLocation{"/etc/multipath.conf", 2}));
}

TEST(ConfigParser, GivesQueueIfNoPathFeatureMultipathToolsNotices) {
    ConfigResult alone = defaultsLine("features \"1 queue_if_no_path\"");
    EXPECT_EQ(onlyDiagnostic(alone),
              "/etc/multipath.conf:2: option 'features \"1 queue_if_no_path\"' is deprecated, "
              "please use 'no_path_retry queue' instead");
    EXPECT_EQ(alone.diagnostics[0].severity, Diagnostic::Severity::Warning);

    // With a no_path_retry other than queue in the same entry the word is
    // ignored, and that is said too.
    ConfigResult r = parse("devices {\n device {\n vendor Nimble\n product Server\n"
                           " features \"1 queue_if_no_path\"\n no_path_retry 30\n }\n}\n");
    EXPECT_EQ(allDiagnostics(r),
              "warning: /etc/multipath.conf:5: option 'features \"1 queue_if_no_path\"' is "
              "deprecated, please use 'no_path_retry queue' instead\n"
              "warning: /etc/multipath.conf:5: ignoring feature 'queue_if_no_path' because "
              "no_path_retry is set to '30'\n");
    ConfigResult queue = parse("overrides {\n no_path_retry queue\n"
                               " features \"1 queue_if_no_path\"\n}\n");
    EXPECT_EQ(queue.diagnostics.size(), 1u) << allDiagnostics(queue);
}

TEST(ConfigParser, RecordsTheLineOfEachKeyword) {
    ConfigResult r = parse("defaults {\n polling_interval 7\n no_path_retry 3\n}\n"
                           "devices {\n device {\n vendor A\n product B\n prio alua\n }\n}\n");
    EXPECT_EQ(r.config.globals.where.at("polling_interval"),
              (SourceLocation{"/etc/multipath.conf", 2}));
    EXPECT_EQ(r.config.defaults.where.at("no_path_retry"),
              (SourceLocation{"/etc/multipath.conf", 3}));
    ASSERT_EQ(r.config.devices.size(), 1u);
    EXPECT_EQ(r.config.devices[0].settings.where.at("prio"),
              (SourceLocation{"/etc/multipath.conf", 9}));
}
