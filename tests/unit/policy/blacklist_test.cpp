#include "mpath/config/regex.h"
#include "mpath/policy/blacklist.h"

#include <gtest/gtest.h>

using namespace mpath::policy;
using namespace mpath::config;
using mpath::discovery::UdevPropertyMap;
using mpath::model::Path;

namespace {

// The expression of \a pattern, as the parser would compile it.
Regex regex(std::string_view pattern) {
    auto r = Regex::compile(pattern);
    EXPECT_TRUE(r) << pattern << ": " << r.error().message;
    return r.valueOr(Regex{});
}

BlacklistPattern pat(std::string_view re) {
    BlacklistPattern p;
    p.regex = regex(re);
    p.where = {"/etc/multipath.conf", 7};
    return p;
}

BlacklistDevice dev(std::string_view vendor, std::string_view product) {
    BlacklistDevice d;
    d.vendor = regex(vendor);
    d.product = regex(product);
    return d;
}

Path scsiPath(std::string name = "sdb") {
    Path p;
    p.kernelName = std::move(name);
    p.vendor = "LIO-ORG";
    p.product = "disk01";
    p.protocol = "scsi:iscsi";
    p.wwid = "36001405aabbccdd";
    return p;
}

} // namespace

TEST(BlacklistFilter, EmptyConfigurationBlacklistsNothing) {
    BlacklistFilter f;
    auto v = f.check(scsiPath(), nullptr, "ID_SERIAL");
    EXPECT_FALSE(v.blacklisted);
    EXPECT_EQ(v.rule, BlacklistVerdict::Rule::None);
    EXPECT_EQ(v.toString(), "not blacklisted");
}

TEST(BlacklistFilter, BuiltinRulesKeepOnlySdDasdAndNvme) {
    BlacklistFilter f(BlacklistFilter::builtinDevnodeRules(), {});
    EXPECT_FALSE(f.checkDevnode("sdb").blacklisted);
    EXPECT_FALSE(f.checkDevnode("nvme0n1").blacklisted);
    EXPECT_FALSE(f.checkDevnode("dasda").blacklisted);
    EXPECT_TRUE(f.checkDevnode("vda").blacklisted);
    EXPECT_TRUE(f.checkDevnode("dm-3").blacklisted);
    EXPECT_TRUE(f.checkDevnode("loop0").blacklisted);
}

TEST(BlacklistFilter, DevnodeExceptionBeatsDevnodeBlacklist) {
    Blacklist b, e;
    b.devnodes.push_back(pat("^sd"));
    e.devnodes.push_back(pat("^sdc$"));
    BlacklistFilter f(b, e);
    auto black = f.check(scsiPath("sdb"), nullptr, "");
    EXPECT_TRUE(black.blacklisted);
    EXPECT_EQ(black.rule, BlacklistVerdict::Rule::Devnode);
    EXPECT_EQ(black.toString(), "blacklisted by devnode \"^sd\" (/etc/multipath.conf:7)");
    auto kept = f.check(scsiPath("sdc"), nullptr, "");
    EXPECT_FALSE(kept.blacklisted);
    EXPECT_TRUE(kept.excepted);
}

TEST(BlacklistFilter, ExceptionOfOneRuleDoesNotLiftAnotherRule) {
    Blacklist b, e;
    e.devnodes.push_back(pat("^sdb$"));
    b.wwids.push_back(pat("^36001405"));
    BlacklistFilter f(b, e);
    auto v = f.check(scsiPath("sdb"), nullptr, "");
    EXPECT_TRUE(v.blacklisted);
    EXPECT_EQ(v.rule, BlacklistVerdict::Rule::Wwid);
}

TEST(BlacklistFilter, DeviceNeedsVendorAndProductToMatch) {
    Blacklist b;
    b.devices.push_back(dev("^LIO", "^other"));
    EXPECT_FALSE(BlacklistFilter(b, {}).check(scsiPath(), nullptr, "").blacklisted);
    b.devices.push_back(dev("^LIO", "^disk"));
    auto v = BlacklistFilter(b, {}).check(scsiPath(), nullptr, "");
    EXPECT_TRUE(v.blacklisted);
    EXPECT_EQ(v.rule, BlacklistVerdict::Rule::Device);
    EXPECT_EQ(v.pattern, "^LIO:^disk");
}

TEST(BlacklistFilter, DeviceExceptionKeepsTheDevice) {
    Blacklist b, e;
    b.devices.push_back(dev(".*", ""));
    e.devices.push_back(dev("^LIO-ORG$", ""));
    EXPECT_FALSE(BlacklistFilter(b, e).check(scsiPath(), nullptr, "").blacklisted);
}

TEST(BlacklistFilter, ProtocolMatchesTheMultipathToolsName) {
    Blacklist b;
    b.protocols.push_back(pat("scsi:iscsi"));
    EXPECT_TRUE(BlacklistFilter(b, {}).check(scsiPath(), nullptr, "").blacklisted);
    Path fc = scsiPath();
    fc.protocol = "scsi:fcp";
    EXPECT_FALSE(BlacklistFilter(b, {}).check(fc, nullptr, "").blacklisted);
}

TEST(BlacklistFilter, InvertedPatternMatchesWhatTheRestDoesNot) {
    Blacklist b;
    b.wwids.push_back(pat("!^3600a098"));
    EXPECT_TRUE(BlacklistFilter(b, {}).check(scsiPath(), nullptr, "").blacklisted);
    Path netapp = scsiPath();
    netapp.wwid = "3600a0980000";
    EXPECT_FALSE(BlacklistFilter(b, {}).check(netapp, nullptr, "").blacklisted);
}

TEST(BlacklistFilter, PropertyExceptionsBlacklistDevicesWithoutAMatchingProperty) {
    Blacklist e;
    e.properties.push_back(pat("(SCSI_IDENT_|ID_WWN)"));
    BlacklistFilter f({}, e);
    UdevPropertyMap withWwn{{"ID_SERIAL", "3600"}, {"ID_WWN", "0x600"}};
    UdevPropertyMap without{{"ID_SERIAL", "3600"}, {"ID_BUS", "ata"}};
    EXPECT_FALSE(f.check(scsiPath(), &withWwn, "ID_SERIAL").blacklisted);
    auto v = f.check(scsiPath(), &without, "ID_SERIAL");
    EXPECT_TRUE(v.blacklisted);
    EXPECT_EQ(v.rule, BlacklistVerdict::Rule::PropertyMissing);
}

TEST(BlacklistFilter, MissingUidAttributeDoesNotBlacklistByMissingProperty) {
    Blacklist e;
    e.properties.push_back(pat("ID_WWN"));
    UdevPropertyMap unprocessed{{"DEVNAME", "/dev/sdb"}};
    EXPECT_FALSE(BlacklistFilter({}, e).check(scsiPath(), &unprocessed, "ID_SERIAL").blacklisted);
}

TEST(BlacklistFilter, PropertyBlacklistMatchesPropertyNames) {
    Blacklist b;
    b.properties.push_back(pat("^ID_ATA$"));
    UdevPropertyMap ata{{"ID_ATA", "1"}, {"ID_SERIAL", "x"}};
    auto v = BlacklistFilter(b, {}).check(scsiPath(), &ata, "ID_SERIAL");
    EXPECT_TRUE(v.blacklisted);
    EXPECT_EQ(v.rule, BlacklistVerdict::Rule::Property);
}

TEST(BlacklistFilter, FromConfigAddsBuiltinDevnodeRules) {
    Config c;
    c.blacklist.wwids.push_back(pat("^3600"));
    auto f = BlacklistFilter::fromConfig(c);
    EXPECT_TRUE(f.checkDevnode("loop1").blacklisted);
    EXPECT_TRUE(f.check(scsiPath(), nullptr, "").blacklisted);
    c.blacklistExceptions.devnodes.push_back(pat("^vd"));
    EXPECT_FALSE(BlacklistFilter::fromConfig(c).checkDevnode("vda").blacklisted);
}

TEST(BlacklistFilter, InvertedDevicePatternsKeepTheirMeaningInCopiesOfTheFilter) {
    Blacklist b;
    b.devices.push_back(dev("!^LIO-ORG$", ""));
    const BlacklistFilter original(b, {});
    const BlacklistFilter copy = original;
    Path other = scsiPath();
    other.vendor = "ACME";
    for (const BlacklistFilter *f : {&original, &copy}) {
        EXPECT_FALSE(f->check(scsiPath(), nullptr, "").blacklisted);
        auto v = f->check(other, nullptr, "");
        EXPECT_TRUE(v.blacklisted);
        EXPECT_EQ(v.pattern, "!^LIO-ORG$:") << "the verdict names the pattern as configured";
    }
}

TEST(BlacklistFilter, InvertedPatternWhoseRestDoesNotCompileMatchesNothing) {
    // A pattern that does not compile as a whole ("!(unclosed") never gets
    // this far: the parser refuses it. "!*36001405" compiles as a whole,
    // but the rest after the '!' does not.
    EXPECT_FALSE(Regex::compile("!(unclosed"));
    ASSERT_FALSE(Regex::compile("*36001405"));
    Blacklist b;
    b.wwids.push_back(pat("!*36001405"));
    EXPECT_FALSE(BlacklistFilter(b, {}).check(scsiPath(), nullptr, "").blacklisted);
}

TEST(BlacklistFilter, BuiltinProductBlacklistLeavesOutTheDgcGatekeeperLun) {
    auto f = BlacklistFilter::fromConfig(Config{});
    Path lunz = scsiPath();
    lunz.vendor = "DGC";
    lunz.product = "LUNZ";
    auto v = f.check(lunz, nullptr, "");
    EXPECT_TRUE(v.blacklisted);
    EXPECT_EQ(v.rule, BlacklistVerdict::Rule::Device);
    EXPECT_TRUE(v.productBlacklist);
    EXPECT_EQ(
        v.toString(),
        "blacklisted by device \"^DGC:LUNZ\" (product_blacklist of the built-in device table)");
    Path data = lunz;
    data.product = "VRAID";
    EXPECT_FALSE(f.check(data, nullptr, "").blacklisted);
}

TEST(BlacklistFilter, ProductBlacklistOfADevicesEntryNamesThatEntry) {
    Config c;
    DeviceEntry e;
    e.vendor = regex("^LIO-ORG$");
    e.product = regex("^disk");
    e.productBlacklist = regex("^disk01$");
    e.where = {"/etc/multipath.conf", 12};
    c.devices.push_back(e);
    auto v = BlacklistFilter::fromConfig(c).check(scsiPath(), nullptr, "");
    EXPECT_TRUE(v.blacklisted);
    EXPECT_EQ(v.toString(), "blacklisted by device \"^LIO-ORG$:^disk01$\" (product_blacklist of "
                            "the device entry at /etc/multipath.conf:12)");
}

TEST(BlacklistFilter, BlacklistExceptionsTakeBackAProductBlacklistedDevice) {
    Config c;
    BlacklistDevice keep = dev("^DELL", "Universal Xport");
    keep.where = {"/etc/multipath.conf", 3};
    c.blacklistExceptions.devices.push_back(keep);
    Path xport = scsiPath();
    xport.vendor = "DELL";
    xport.product = "Universal Xport";
    auto v = BlacklistFilter::fromConfig(c).check(xport, nullptr, "");
    EXPECT_FALSE(v.blacklisted);
    EXPECT_TRUE(v.excepted);
    EXPECT_EQ(v.rule, BlacklistVerdict::Rule::Device);
}

TEST(BlacklistFilter, ProductBlacklistRulesComeFromEveryEntryThatHasOne) {
    auto rules = BlacklistFilter::productBlacklistRules(Config{});
    auto has = [&rules](std::string_view vendor, std::string_view product) {
        for (const auto &r : rules)
            if (r.vendor.pattern() == vendor && r.product.pattern() == product)
                return r.where.file.empty();
        return false;
    };
    EXPECT_TRUE(has("DELL", "Universal Xport"));
    EXPECT_TRUE(has("^DGC", "LUNZ"));
    EXPECT_TRUE(has("IBM", "Universal Xport"));
}
