#include "mpath/config/config.h"
#include "mpath/config/hwtable.h"
#include "mpath/config/parser.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

using namespace mpath::config;

namespace {

EffectiveSettings builtinFor(const char *vendor, const char *product) {
    return Config{}.effective(vendor, product, "", "");
}

} // namespace

TEST(Hwtable, HasAtLeastTwentyArrays) {
    EXPECT_GE(Hwtable::builtin().entries().size(), 20u);
}

TEST(Hwtable, EveryBuiltinEntryHasValidRegexes) {
    for (const auto &e : Hwtable::builtin().entries()) {
        // The built-in patterns are compiled when first matched (a broken
        // one would then match nothing, silently): compiling each now shows
        // none is broken.
        for (const Regex *re : {&e.vendor, &e.product, &e.productBlacklist}) {
            auto again = Regex::compile(re->pattern());
            EXPECT_TRUE(again) << re->pattern() << ": " << (again ? "" : again.error().message);
        }
        EXPECT_FALSE(e.vendor.empty()) << e.vendor.pattern();
        EXPECT_FALSE(e.product.empty()) << e.product.pattern();
    }
}

TEST(Hwtable, NetappLunGroupsByPrioWithOntapAndQueues) {
    EffectiveSettings e = builtinFor("NETAPP", "LUN C-Mode");
    EXPECT_EQ(e.pathGroupingPolicy.value, GroupingPolicy::GroupByPrio);
    EXPECT_EQ(e.prio.value, "ontap");
    EXPECT_EQ(e.failback.value, Failback::immediate());
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::queue());
    EXPECT_EQ(e.features.value, (std::vector<std::string>{"pg_init_retries", "50"}));
    EXPECT_EQ(e.devLossTmo.value, DevLossTmo::infinite());
    EXPECT_EQ(e.noPathRetry.origin, Origin::Hwtable);
}

TEST(Hwtable, PureFlashArrayUsesAlua) {
    EffectiveSettings e = builtinFor("PURE", "FlashArray");
    EXPECT_EQ(e.hardwareHandler.value, (HardwareHandler{"alua", {}}));
    EXPECT_EQ(e.prio.value, "alua");
    EXPECT_EQ(e.detectPrio.value, false);
    EXPECT_EQ(e.pathGroupingPolicy.value, GroupingPolicy::GroupByPrio);
    EXPECT_EQ(e.fastIoFailTmo.value, OffOrNumber::number(10));
    EXPECT_EQ(e.maxSectorsKb.value, OffOrNumber::number(4096));
}

TEST(Hwtable, DgcUsesTheEmcHandlerAndBlacklistsLunz) {
    auto matches = Hwtable::builtin().matching("DGC", "VRAID", "");
    ASSERT_EQ(matches.size(), 1u);
    EXPECT_TRUE(matches[0]->productBlacklist.matches("LUNZ"));
    EffectiveSettings e = builtinFor("DGC", "VRAID");
    EXPECT_EQ(e.hardwareHandler.value, (HardwareHandler{"emc", {}}));
    EXPECT_EQ(e.pathChecker.value, "emc_clariion");
    EXPECT_EQ(e.prio.value, "emc");
}

TEST(Hwtable, DellMd3UsesRdac) {
    EffectiveSettings e = builtinFor("DELL", "MD32xxi");
    EXPECT_EQ(e.hardwareHandler.value, (HardwareHandler{"rdac", {}}));
    EXPECT_EQ(e.pathChecker.value, "rdac");
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::times(30));
}

TEST(Hwtable, MatchesByRegexNotByEquality) {
    EXPECT_EQ(builtinFor("IBM", "2145").pathGroupingPolicy.value, GroupingPolicy::GroupByPrio);
    // "^2145" is anchored: a product that only contains it does not match.
    EXPECT_EQ(builtinFor("IBM", "X2145").pathGroupingPolicy.origin, Origin::Builtin);
    EXPECT_EQ(builtinFor("HITACHI", "OPEN-V").noPathRetry.value, NoPathRetry::times(10));
    EXPECT_EQ(builtinFor("HPE", "OPEN-V").noPathRetry.value, NoPathRetry::times(10));
    EXPECT_EQ(builtinFor("LIO-ORG", "anything").hardwareHandler.value,
              (HardwareHandler{"alua", {}}));
}

TEST(Hwtable, CoversTheCommonArrays) {
    struct {
        const char *vendor;
        const char *product;
    } arrays[] = {
        {"3PARdata", "VV"},
        {"Nimble", "Server"},
        {"HPE", "MSA 2050 SAN"},
        {"HP", "HSV300"},
        {"EMC", "SYMMETRIX"},
        {"XtremIO", "XtremApp"},
        {"DellEMC", "PowerStore"},
        {"COMPELNT", "Compellent Vol"},
        {"IBM", "2107900"},
        {"IBM", "2810XIV"},
        {"HUAWEI", "XSG1"},
        {"FUJITSU", "ETERNUS_DXM"},
        {"DataCore", "Virtual Disk"},
        {"NFINIDAT", "InfiniBox"},
        {"KMNRIO", "K2"},
        {"SolidFir", "SSD SAN"},
        {"NETAPP", "INF-01-00"},
        {"HITACHI", "DF600F"},
    };
    for (const auto &a : arrays)
        EXPECT_FALSE(Hwtable::builtin().matching(a.vendor, a.product, "").empty())
            << a.vendor << " " << a.product;
}

TEST(Hwtable, GenericNvmeEntryAppliesToEveryNamespace) {
    for (const char *vendor : {"NVME", "NVMe"}) {
        EffectiveSettings e = builtinFor(vendor, "Some Vendor SSD");
        EXPECT_EQ(e.uidAttribute.value, "ID_WWN") << vendor;
        EXPECT_EQ(e.pathChecker.value, "none") << vendor;
        EXPECT_EQ(e.pathGroupingPolicy.value, GroupingPolicy::GroupByPrio) << vendor;
    }
}

TEST(Hwtable, VendorNvmeEntryRefinesTheGenericOne) {
    EffectiveSettings e = builtinFor("NVME", "NetApp ONTAP Controller");
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::queue());
    EXPECT_EQ(e.uidAttribute.value, "ID_WWN"); // from the generic entry
    EXPECT_EQ(e.failback.value, Failback::immediate());
    EXPECT_EQ(Hwtable::builtin().matching("NVME", "NetApp ONTAP Controller", "").size(), 2u);
}

TEST(Hwtable, MoreSpecificEntryLaterInTheTableWins) {
    // AMS 2000 (DF600F) is multibus although every "^DF" product groups by
    // priority.
    EXPECT_EQ(builtinFor("HITACHI", "DF600F").pathGroupingPolicy.value, GroupingPolicy::Multibus);
    EXPECT_EQ(builtinFor("HITACHI", "DF500").pathGroupingPolicy.value, GroupingPolicy::GroupByPrio);
    EXPECT_EQ(builtinFor("HITACHI", "DF600F").prio.value, "hds");
}

TEST(Hwtable, LioUsesDirectioAndAlua) {
    EffectiveSettings e = builtinFor("LIO-ORG", "disk0");
    EXPECT_EQ(e.pathChecker.value, "directio");
    EXPECT_EQ(e.detectChecker.value, false);
    EXPECT_EQ(e.hardwareHandler.value, (HardwareHandler{"alua", {}}));
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::times(12));
}

TEST(Hwtable, UnknownDeviceMatchesNothing) {
    EXPECT_TRUE(Hwtable::builtin().matching("QEMU", "QEMU HARDDISK", "2.5+").empty());
    EXPECT_EQ(Hwtable::builtin().merged("QEMU", "QEMU HARDDISK", "2.5+"), Settings{});
}

TEST(Hwtable, MergedLaterEntriesWin) {
    DeviceEntry a;
    a.vendor = *Regex::compile("V");
    a.product = *Regex::compile(".*");
    a.settings.prio = "alua";
    a.settings.rrMinIoRq = 2;
    DeviceEntry b;
    b.vendor = *Regex::compile("V");
    b.product = *Regex::compile("P");
    b.settings.prio = "const";
    Hwtable t({a, b});
    Settings s = t.merged("V", "P", "");
    EXPECT_EQ(s.prio, "const");
    EXPECT_EQ(s.rrMinIoRq, 2u);
    EXPECT_EQ(t.merged("V", "Q", "").prio, "alua");
}

TEST(Hwtable, MergedWithAppendsFileEntriesAfterTheTable) {
    ConfigResult r = mpath::config::parseString(
        "devices {\n device {\n vendor ACME\n product Rocket\n prio alua\n }\n}\n");
    ASSERT_TRUE(r.diagnostics.empty());
    const auto &table = Hwtable::builtin().entries();
    std::vector<DeviceEntry> merged = Hwtable::builtin().mergedWith(r.config.devices);
    ASSERT_EQ(merged.size(), table.size() + 1);
    EXPECT_EQ(merged.back(), r.config.devices[0]);
    EXPECT_TRUE(std::equal(table.begin(), table.end(), merged.begin()));
}

TEST(Hwtable, MergedWithReplacesAnEntryWrittenTheSameWayKeepingWhatItDoesNotSet) {
    // multipath-tools' factorize_hwtable: the later entry takes the place,
    // at its own position, and keeps the earlier one's other settings.
    ConfigResult r = mpath::config::parseString("devices {\n device {\n vendor NETAPP\n"
                                                " product LUN\n no_path_retry 16\n }\n}\n",
                                                "/etc/multipath/conf.d/ha.conf");
    ASSERT_TRUE(r.diagnostics.empty());
    const auto &table = Hwtable::builtin().entries();
    std::vector<DeviceEntry> merged = Hwtable::builtin().mergedWith(r.config.devices);
    ASSERT_EQ(merged.size(), table.size());
    size_t netapp = 0;
    for (const auto &e : merged)
        netapp += e.vendor.pattern() == "NETAPP" && e.product.pattern() == "LUN";
    EXPECT_EQ(netapp, 1u);
    const DeviceEntry &last = merged.back();
    EXPECT_EQ(last.vendor.pattern(), "NETAPP");
    EXPECT_EQ(last.product.pattern(), "LUN");
    EXPECT_EQ(last.settings.noPathRetry, NoPathRetry::times(16));
    EXPECT_EQ(last.settings.prio, "ontap") << "kept from the built-in entry";
    EXPECT_EQ(last.settings.devLossTmo, DevLossTmo::infinite());
    EXPECT_EQ(last.where, (SourceLocation{"/etc/multipath/conf.d/ha.conf", 2}));
    EXPECT_EQ(last.settings.where.at("no_path_retry"),
              (SourceLocation{"/etc/multipath/conf.d/ha.conf", 5}));
    EXPECT_EQ(last.settings.where.count("prio"), 0u) << "a built-in value has no line";
}

TEST(Hwtable, MergedWithMergesTwoFileEntriesWrittenTheSameWay) {
    ConfigResult r = mpath::config::parseString(
        "devices {\n device {\n vendor ACME\n product Rocket\n prio alua\n rr_min_io_rq 2\n }\n"
        " device {\n vendor ACME\n product Sled\n }\n"
        " device {\n vendor ACME\n product Rocket\n prio const\n }\n}\n");
    ASSERT_TRUE(r.diagnostics.empty());
    std::vector<DeviceEntry> merged = Hwtable({}).mergedWith(r.config.devices);
    ASSERT_EQ(merged.size(), 2u);
    EXPECT_EQ(merged[0].product.pattern(), "Sled");
    EXPECT_EQ(merged[1].product.pattern(), "Rocket");
    EXPECT_EQ(merged[1].settings.prio, "const");
    EXPECT_EQ(merged[1].settings.rrMinIoRq, 2u);
}
