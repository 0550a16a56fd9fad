// Configurations with the settings of published vendor configurations
// (tests/unit/data/config/vendor/*.conf), each next to what multipath-tools
// 0.9.4 prints for it with `multipath -t` (*.multipath-t: the device entries
// of the file as printed, the overrides and multipaths sections, and its
// messages on "#!" lines). A file multipath-tools runs with must be read
// without errors and with a warning where multipath-tools warns; each device
// entry must resolve to what multipath-tools printed for it.

#include "mpath/config/keyword_info.h"
#include "mpath/config/parser.h"
#include "mpath/config/regex.h"
#include "mpath/config/resolve.h"
#include "test_file.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>

namespace config = mpath::config;
using namespace mpath::config;

namespace {

/// A diagnostic of ours and the message of multipath-tools it answers ("",
/// for a warning multipath-tools does not give: a keyword that is not
/// honoured here).
struct Claim {
    std::string multipathTools;
    unsigned line;
    std::string ours;
};

/// Inquiry strings of a path that a device entry written with regular
/// expressions matches (its vendor and product read literally do not).
struct Inquiry {
    std::string vendorPattern, productPattern;
    std::string vendor, product;
};

/// A keyword mpathd reads without acting on it, and the lines of a file
/// that set it to a value that asks for something mpathd does not do:
/// each is refused with a warning (multipath-tools says nothing, it acts
/// on them).
struct Refused {
    std::string keyword;
    std::vector<unsigned> lines;
};

struct VendorFile {
    const char *name;
    std::vector<Claim> claims;
    std::vector<Inquiry> inquiries;
    std::vector<Refused> refused{};
};

const char *kMain = "/etc/multipath.conf";

std::string dataFile(const std::string &name) {
    return mpath_test::readFile(std::filesystem::path(MPATH_TEST_DATA_DIR) / "config" / "vendor" /
                                name);
}

// multipath-tools' messages recorded in a .multipath-t file.
std::vector<std::string> recordedMessages(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("#! ", 0) == 0)
            out.push_back(line.substr(3));
    return out;
}

using Block = std::map<std::string, std::string>;

// The value of a `multipath -t` line: a number, or a quoted string with
// doubled quotes inside.
std::string printedValue(const std::string &rest) {
    if (rest.size() < 2 || rest.front() != '"')
        return rest;
    std::string v;
    for (size_t i = 1; i + 1 < rest.size(); ++i) {
        v += rest[i];
        if (rest[i] == '"')
            ++i;
    }
    return v;
}

// The device blocks and the overrides of a .multipath-t file, read line by
// line as `multipath -t` prints them (one keyword and its value a line,
// tab-indented), without our parser.
void printedSections(const std::string &text, std::vector<Block> &devices, Block &overrides) {
    std::istringstream in(text);
    std::string section;
    Block *current = nullptr;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        if (line == "}") {
            section.clear();
            current = nullptr;
            continue;
        }
        if (line.back() == '{' && line[0] != '\t') {
            section = line.substr(0, line.find(' '));
            current = section == "overrides" ? &overrides : nullptr;
            continue;
        }
        if (section == "devices" && line == "\tdevice {") {
            devices.emplace_back();
            current = &devices.back();
            continue;
        }
        if (line == "\t}") {
            current = nullptr;
            continue;
        }
        if (!current)
            continue;
        size_t start = line.find_first_not_of('\t');
        size_t space = line.find(' ', start);
        current->emplace(line.substr(start, space - start), printedValue(line.substr(space + 1)));
    }
}

class VendorConfig : public ::testing::TestWithParam<VendorFile> {};

} // namespace

TEST_P(VendorConfig, ChecksWithoutErrorsAndWarnsWhereMultipathToolsWarns) {
    const VendorFile &f = GetParam();
    ConfigResult r = config::parseString(dataFile(std::string(f.name) + ".conf"), kMain);
    EXPECT_FALSE(r.hasErrors());

    // Each message multipath-tools printed is answered by one claim...
    for (const std::string &message :
         recordedMessages(dataFile(std::string(f.name) + ".multipath-t"))) {
        size_t claims = 0;
        for (const Claim &c : f.claims)
            claims += c.multipathTools == message;
        EXPECT_EQ(claims, 1u) << "multipath-tools said: " << message;
    }
    // ...each claim is one of our warnings...
    for (const Claim &c : f.claims) {
        bool found = false;
        for (const Diagnostic &d : r.diagnostics)
            found |= d.severity == Diagnostic::Severity::Warning && d.line == c.line &&
                     d.message == c.ours;
        EXPECT_TRUE(found) << "no warning at line " << c.line << ": " << c.ours;
    }
    // ...each setting mpathd does not act on is refused on its line...
    auto refusedAt = [&](const Diagnostic &d, const Refused &n, unsigned line) {
        const std::string start = "keyword '" + n.keyword + "' is refused: ";
        return d.severity == Diagnostic::Severity::Warning && d.line == line &&
               d.message.rfind(start, 0) == 0;
    };
    for (const Refused &n : f.refused)
        for (unsigned line : n.lines) {
            bool found = false;
            for (const Diagnostic &d : r.diagnostics)
                found |= refusedAt(d, n, line);
            EXPECT_TRUE(found) << "no warning that " << n.keyword << " is refused at line " << line;
        }
    // ...and we give no other warning.
    for (const Diagnostic &d : r.diagnostics) {
        if (d.severity != Diagnostic::Severity::Warning)
            continue;
        bool claimed = false;
        for (const Claim &c : f.claims)
            claimed |= d.line == c.line && d.message == c.ours;
        for (const Refused &n : f.refused)
            for (unsigned line : n.lines)
                claimed |= refusedAt(d, n, line);
        EXPECT_TRUE(claimed) << "unexpected: " << d.toString();
    }
}

TEST_P(VendorConfig, ResolvesEachDeviceEntryAsMultipathToolsPrintsIt) {
    const VendorFile &f = GetParam();
    ConfigResult r = config::parseString(dataFile(std::string(f.name) + ".conf"), kMain);
    std::vector<Block> printed;
    Block overrides;
    printedSections(dataFile(std::string(f.name) + ".multipath-t"), printed, overrides);

    for (const Block &block : printed) {
        const std::string vendorPattern = block.at("vendor"), productPattern = block.at("product");
        std::string vendor = vendorPattern, product = productPattern;
        for (const Inquiry &i : f.inquiries)
            if (i.vendorPattern == vendorPattern && i.productPattern == productPattern) {
                vendor = i.vendor;
                product = i.product;
            }
        SCOPED_TRACE(vendor + " / " + product);
        // A path the printed entry applies to...
        ASSERT_TRUE(Regex::compile(vendorPattern)->matches(vendor));
        ASSERT_TRUE(Regex::compile(productPattern)->matches(product));
        // ...and no later entry of the file, which would come first.
        bool seen = false;
        for (const DeviceEntry &e : r.config.devices) {
            if (e.vendor.pattern() == vendorPattern && e.product.pattern() == productPattern) {
                seen = true;
                continue;
            }
            EXPECT_FALSE(seen && e.matches(vendor, product, ""))
                << "a later entry also matches: " << e.vendor.pattern() << " "
                << e.product.pattern();
        }

        std::set<std::string> refusedHere;
        for (const mpath::config::KeywordInfo &k : mpath::config::keywords())
            if (!k.hasEffect)
                refusedHere.insert(k.name);
        std::map<std::string, std::string> ours;
        for (const EffectiveEntry &e : resolve(r.config, {vendor, product, "", ""}).entries())
            ours[e.keyword] = e.value;
        unsigned compared = 0;
        for (const auto &[keyword, value] : block) {
            if (keyword == "vendor" || keyword == "product" || !ours.count(keyword) ||
                refusedHere.count(keyword))
                continue; // identity, or a keyword not implemented or refused here
            auto over = overrides.find(keyword);
            const std::string expected = over != overrides.end() ? over->second : value;
            EXPECT_EQ(ours[keyword], expected) << keyword;
            ++compared;
        }
        EXPECT_GT(compared, 0u);
    }
}

namespace {

const std::string kPureSaphana = "unknown section 'device' in top level; ignored";

/// rr_weight priorities next to a selector that keeps no per-path weight:
/// multipath-tools says nothing (the kernel takes its repeat counts as 1).
std::string kNoWeight(const std::string &selector) {
    return "rr_weight priorities has no effect with path_selector '" + selector +
           "': the kernel keeps a per-path weight only for service-time";
}

const VendorFile kVendorFiles[] = {
    {"citrix-xenserver-sm",
     {{"device config in /etc/multipath.conf missing vendor or product parameter", 108,
       "device entry missing vendor or product parameter; ignored"},
      {"", 83, kNoWeight("round-robin 0")}},
     {{"DELL", "MD3(2|4|6|8)xx(i|f)?", "DELL", "MD38xxi"},
      {"DellEMC", "ME(4|5)", "DellEMC", "ME4"},
      {"(HP|HPE)", "MSA [12]0[456]0 .*", "HPE", "MSA 2050 SAN"}}},
    {"dell-powermax-cinder",
     {{"/etc/multipath.conf line 14: ignoring deprecated option \"getuid_callout\"", 14,
       "ignoring deprecated option \"getuid_callout\""}},
     {}},
    {"dell-powerstore-csm", {}, {{".*", "dellemc-powerstore", "NVME", "dellemc-powerstore"}}},
    {"dell-unity-cinder", {}, {}},
    {"hpe-csi-driver",
     {{"", 14, "keyword 'uxsock_timeout' is not supported; ignored"},
      {"", 80, kNoWeight("queue-length 0")},
      {"", 89, kNoWeight("queue-length 0")}},
     {}},
    {"hpe-nimble-cinder",
     {{"Nimble/Server: option 'features \"1 queue_if_no_path\"' is deprecated, please use "
       "'no_path_retry queue' instead",
       39,
       "option 'features \"1 queue_if_no_path\"' is deprecated, please use 'no_path_retry "
       "queue' instead"},
      {"Nimble/Server: ignoring feature 'queue_if_no_path' because no_path_retry is set to '30'",
       39, "ignoring feature 'queue_if_no_path' because no_path_retry is set to '30'"}},
     {}},
    {"ibm-block-csi-attach", {}, {}},
    {"infinidat-infinibox-csi", {{"", 23, kNoWeight("round-robin 0")}}, {}},
    {"netapp-eseries-nvme-sles12", {}, {}},
    {"netapp-ontap-olvm-ha-dropin", {}, {}},
    {"netapp-ontap-override-example", {}, {}},
    {"pure-flasharray-cbs-ansible", {}, {}},
    // multipath-tools reports each line of the misplaced entry, we the entry.
    {"pure-flasharray-saphana-rhel8",
     {{"/etc/multipath.conf line 10, invalid keyword: device", 10, kPureSaphana},
      {"/etc/multipath.conf line 11, invalid keyword: vendor", 10, kPureSaphana},
      {"/etc/multipath.conf line 12, invalid keyword: product", 10, kPureSaphana},
      {"/etc/multipath.conf line 13, invalid keyword: fast_io_fail_tmo", 10, kPureSaphana},
      {"/etc/multipath.conf line 14, invalid keyword: path_grouping_policy", 10, kPureSaphana},
      {"/etc/multipath.conf line 15, invalid keyword: failback", 10, kPureSaphana},
      {"/etc/multipath.conf line 16, invalid keyword: prio", 10, kPureSaphana},
      {"/etc/multipath.conf line 17, invalid keyword: hardware_handler", 10, kPureSaphana},
      {"/etc/multipath.conf line 18, invalid keyword: max_sectors_kb", 10, kPureSaphana},
      {"unmatched '}' at line 19 of /etc/multipath.conf", 10, kPureSaphana},
      {"/etc/multipath.conf line 19, invalid keyword: }", 10, kPureSaphana}},
     {}},
    {"redhat-refarch-oracle",
     {{"missing '}' at end of /etc/multipath.conf", 33, "section 'multipaths' is not closed"}},
     {}},
    {"ubuntu-defaults-example",
     {{"/etc/multipath.conf line 32: ignoring deprecated option \"getuid_callout\"", 32,
       "ignoring deprecated option \"getuid_callout\""},
      {"/etc/multipath.conf line 50, invalid value for gid: \"disk\"", 50,
       "keyword 'gid' is not supported; ignored"},
      {"", 48, "keyword 'mode' is not supported; ignored"},
      {"", 49, "keyword 'uid' is not supported; ignored"},
      {"", 54, "keyword 'force_sync' is not supported; ignored"},
      {"", 43, kNoWeight("round-robin 0")}},
     {}},
};

std::string testName(const ::testing::TestParamInfo<VendorFile> &info) {
    std::string name = info.param.name;
    for (char &c : name)
        if (c == '-')
            c = '_';
    return name;
}

} // namespace

INSTANTIATE_TEST_SUITE_P(PublishedConfigurations, VendorConfig, ::testing::ValuesIn(kVendorFiles),
                         testName);

TEST(VendorConfig, EveryDataFileIsTested) {
    size_t files = 0;
    for (const auto &entry : std::filesystem::directory_iterator(
             std::filesystem::path(MPATH_TEST_DATA_DIR) / "config" / "vendor")) {
        if (entry.path().extension() != ".conf")
            continue;
        ++files;
        bool listed = false;
        for (const VendorFile &f : kVendorFiles)
            listed |= entry.path().stem() == f.name;
        EXPECT_TRUE(listed) << entry.path();
    }
    EXPECT_EQ(files, std::size(kVendorFiles));
}

TEST(VendorConfig, TheTranslatedFeatureLeavesTheEntrysNoPathRetry) {
    // Nimble's entry: features "1 queue_if_no_path" with no_path_retry 30
    // queues 30 checks, then fails, and the word leaves the features.
    ConfigResult r = config::parseString(dataFile("hpe-nimble-cinder.conf"), kMain);
    EffectiveSettings e = resolve(r.config, {"Nimble", "Server", "", ""});
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::times(30));
    EXPECT_EQ(e.noPathRetry.where, (SourceLocation{kMain, 40}));
    EXPECT_TRUE(e.features.value.empty());
}

TEST(VendorConfig, AMultipathsSectionNeverClosedStillNamesItsMaps) {
    ConfigResult r = config::parseString(dataFile("redhat-refarch-oracle.conf"), kMain);
    ASSERT_EQ(r.config.multipaths.size(), 4u);
    EXPECT_EQ(resolve(r.config, {"", "", "", "3648171b7c4ab6748059b257fa2f528f0"}).alias.value,
              "db1");
    ASSERT_EQ(r.config.blacklist.wwids.size(), 1u);
    EXPECT_EQ(r.config.blacklist.wwids[0].regex.pattern(), "3644a84200205ec001d8d87ad30d9610b");
}
