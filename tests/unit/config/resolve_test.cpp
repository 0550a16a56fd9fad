#include "mpath/config/parser.h"
#include "mpath/config/resolve.h"
#include "mpath/model/path.h"

#include <gtest/gtest.h>

namespace config = mpath::config;
using namespace mpath::config;

namespace {

Config parsed(std::string_view text) {
    ConfigResult r = config::parseString(text, "/etc/multipath.conf");
    EXPECT_TRUE(r.diagnostics.empty())
        << (r.diagnostics.empty() ? "" : r.diagnostics[0].toString());
    return r.config;
}

const char *kLayered = R"(defaults {
    no_path_retry 5
    path_checker directio
    rr_min_io_rq 3
}
devices {
    device {
        vendor ACME
        product Rocket
        no_path_retry 10
        rr_min_io_rq 4
    }
}
multipaths {
    multipath {
        wwid 3600
        alias db
        no_path_retry 20
    }
}
overrides {
    no_path_retry queue
}
)";

} // namespace

TEST(ConfigResolve, UsesBuiltinDefaultsWithoutConfiguration) {
    Config c;
    EffectiveSettings e = c.effective("QEMU", "QEMU HARDDISK", "2.5+", "0QEMU");
    EXPECT_EQ(e.pathGroupingPolicy.value, GroupingPolicy::Failover);
    EXPECT_EQ(e.pathGroupingPolicy.origin, Origin::Builtin);
    EXPECT_EQ(e.pathSelector.value, (PathSelector{"service-time", {}}));
    EXPECT_EQ(e.pathChecker.value, "tur");
    EXPECT_EQ(e.failback.value, Failback::manual());
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::fail());
    EXPECT_EQ(e.userFriendlyNames.value, false);
    EXPECT_EQ(e.aliasPrefix.value, "mpath");
    EXPECT_EQ(e.uidAttribute.value, "ID_SERIAL");
    EXPECT_EQ(e.alias.value, "");
}

TEST(ConfigResolve, MultipathsBeatOverridesBeatDevicesBeatDefaults) {
    Config c = parsed(kLayered);
    EffectiveSettings e = c.effective("ACME", "Rocket", "1", "3600");
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::times(20));
    EXPECT_EQ(e.noPathRetry.origin, Origin::Multipaths);
    EXPECT_EQ(e.noPathRetry.where, (SourceLocation{"/etc/multipath.conf", 18}));
    EffectiveSettings other = c.effective("ACME", "Rocket", "1", "3700");
    EXPECT_EQ(other.noPathRetry.value, NoPathRetry::queue());
    EXPECT_EQ(other.noPathRetry.origin, Origin::Overrides);
    EXPECT_EQ(other.noPathRetry.where, (SourceLocation{"/etc/multipath.conf", 22}));
    EXPECT_EQ(e.rrMinIoRq.value, 4u);
    EXPECT_EQ(e.rrMinIoRq.origin, Origin::Devices);
    EXPECT_EQ(e.rrMinIoRq.where, (SourceLocation{"/etc/multipath.conf", 11}));
    EXPECT_EQ(e.pathChecker.value, "directio");
    EXPECT_EQ(e.pathChecker.origin, Origin::Defaults);
    EXPECT_EQ(e.alias.value, "db");
    EXPECT_EQ(e.alias.origin, Origin::Multipaths);
}

TEST(ConfigResolve, MultipathsBeatDevicesWithoutOverrides) {
    Config c = parsed(kLayered);
    c.overrides = Settings{};
    EffectiveSettings e = c.effective("ACME", "Rocket", "1", "3600");
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::times(20));
    EXPECT_EQ(e.noPathRetry.origin, Origin::Multipaths);
    EffectiveSettings other = c.effective("ACME", "Rocket", "1", "3700");
    EXPECT_EQ(other.noPathRetry.value, NoPathRetry::times(10));
    EXPECT_EQ(other.noPathRetry.origin, Origin::Devices);
    EXPECT_EQ(other.alias.value, "");
}

TEST(ConfigResolve, DefaultsApplyToPathsNoDeviceEntryMatches) {
    Config c = parsed(kLayered);
    c.overrides = Settings{};
    EffectiveSettings e = c.effective("OTHER", "Disk", "1", "3900");
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::times(5));
    EXPECT_EQ(e.noPathRetry.origin, Origin::Defaults);
}

TEST(ConfigResolve, DeviceEntryIsMergedOverTheBuiltinEntry) {
    Config c = parsed("devices {\n device {\n vendor NETAPP\n product LUN\n"
                      " no_path_retry 30\n }\n}\n");
    EffectiveSettings e = c.effective("NETAPP", "LUN C-Mode", "9300", "3600a098");
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::times(30));
    EXPECT_EQ(e.noPathRetry.origin, Origin::Devices);
    // Everything else the built-in NetApp entry says stays.
    EXPECT_EQ(e.pathGroupingPolicy.value, GroupingPolicy::GroupByPrio);
    EXPECT_EQ(e.pathGroupingPolicy.origin, Origin::Hwtable);
    EXPECT_EQ(e.prio.value, "ontap");
    EXPECT_EQ(e.failback.value, Failback::immediate());
}

TEST(ConfigResolve, DeviceEntriesOverrideDefaultsEvenWhenFromTheBuiltinTable) {
    Config c = parsed("defaults {\n no_path_retry fail\n failback manual\n}\n");
    EffectiveSettings e = c.effective("PURE", "FlashArray", "8888", "3624a937");
    EXPECT_EQ(e.failback.value, Failback::immediate());
    EXPECT_EQ(e.failback.origin, Origin::Hwtable);
}

TEST(ConfigResolve, LaterDeviceEntryWinsOverEarlierOne) {
    Config c = parsed("devices {\n device {\n vendor ACME\n product .*\n prio alua\n }\n"
                      " device {\n vendor ACME\n product Rocket\n prio const\n }\n}\n");
    EXPECT_EQ(c.effective("ACME", "Rocket", "", "").prio.value, "const");
    EXPECT_EQ(c.effective("ACME", "Sled", "", "").prio.value, "alua");
}

TEST(ConfigResolve, RevisionRestrictsADeviceEntry) {
    Config c = parsed("devices {\n device {\n vendor ACME\n product Rocket\n revision ^2\n"
                      " prio alua\n }\n}\n");
    EXPECT_EQ(c.effective("ACME", "Rocket", "2.1", "").prio.value, "alua");
    EXPECT_EQ(c.effective("ACME", "Rocket", "1.9", "").prio.value, "const");
}

TEST(ConfigResolve, LaterMultipathEntryForTheSameWwidWins) {
    Config c = parsed("multipaths {\n multipath {\n wwid 36\n alias a\n }\n"
                      " multipath {\n wwid 36\n alias b\n }\n}\n");
    EXPECT_EQ(c.effective("X", "Y", "", "36").alias.value, "b");
    ASSERT_NE(c.multipathFor("36"), nullptr);
    EXPECT_EQ(c.multipathFor("36")->alias, "b");
    EXPECT_EQ(c.multipathFor("37"), nullptr);
}

TEST(ConfigResolve, TakesIdentityFromAPath) {
    Config c = parsed(kLayered);
    mpath::model::Path p;
    p.vendor = "ACME";
    p.product = "Rocket";
    p.wwid = "3600";
    EXPECT_EQ(c.effective(p).alias.value, "db");
}

TEST(ConfigResolve, GlobalsComeFromDefaultsOrBuiltins) {
    Config c = parsed("defaults {\n polling_interval 10\n find_multipaths greedy\n}\n");
    EffectiveGlobals g = c.effectiveGlobals();
    EXPECT_EQ(g.pollingInterval.value, 10u);
    EXPECT_EQ(g.pollingInterval.origin, Origin::Defaults);
    // multipath-tools derives max_polling_interval from polling_interval.
    EXPECT_EQ(g.maxPollingInterval.value, 40u);
    EXPECT_EQ(g.findMultipaths.value, FindMultipaths::Greedy);
    EXPECT_EQ(g.bindingsFile.value, "/etc/multipath/bindings");
    EXPECT_EQ(g.bindingsFile.origin, Origin::Builtin);
    EXPECT_EQ(g.dmTarget.value, DmTarget::Lmpath);

    Config none;
    EXPECT_EQ(none.effectiveGlobals().findMultipaths.value, FindMultipaths::Strict);
    EXPECT_EQ(none.effectiveGlobals().maxPollingInterval.value, 20u);
}

TEST(ConfigResolve, OwnFileLooksForItsOwnConfd) {
    Config c;
    c.ownFile = true;
    EXPECT_EQ(c.effectiveGlobals().configDir.value, "/etc/mpathd/conf.d");
    c.ownFile = false;
    EXPECT_EQ(c.effectiveGlobals().configDir.value, "/etc/multipath/conf.d");
}

TEST(ConfigResolve, ListsEveryValueWithItsOrigin) {
    Config c = parsed(kLayered);
    std::vector<EffectiveEntry> entries = c.effective("ACME", "Rocket", "1", "3600").entries();
    auto find = [&](const std::string &kw) -> const EffectiveEntry * {
        for (const auto &e : entries)
            if (e.keyword == kw)
                return &e;
        return nullptr;
    };
    ASSERT_NE(find("no_path_retry"), nullptr);
    EXPECT_EQ(find("no_path_retry")->value, "20");
    EXPECT_EQ(find("no_path_retry")->origin, Origin::Multipaths);
    ASSERT_NE(find("path_selector"), nullptr);
    EXPECT_EQ(find("path_selector")->value, "service-time 0");
    ASSERT_NE(find("features"), nullptr);
    EXPECT_EQ(find("features")->value, "0");
    ASSERT_NE(find("alias"), nullptr);
    EXPECT_EQ(find("alias")->value, "db");
    ASSERT_NE(find("max_sectors_kb"), nullptr);
    EXPECT_EQ(find("max_sectors_kb")->value, "off");
    EXPECT_EQ(find("max_sectors_kb")->origin, Origin::Builtin);
    // A keyword no layer sets and whose built-in value means "unset" is
    // not listed as if a value were applied; a refused keyword's value
    // that mpathd does not follow is not listed either.
    EXPECT_EQ(find("dev_loss_tmo"), nullptr);
    EXPECT_EQ(find("eh_deadline"), nullptr);
    ASSERT_NE(find("fast_io_fail_tmo"), nullptr);
    EXPECT_EQ(find("fast_io_fail_tmo")->value, "5");
    EXPECT_EQ(find("ghost_delay")->value, "off");
    ASSERT_NE(find("deferred_remove"), nullptr);
    EXPECT_EQ(find("deferred_remove")->value, "yes");
    ASSERT_NE(find("rr_weight"), nullptr);
    EXPECT_EQ(find("rr_weight")->value, "uniform");

    std::vector<EffectiveEntry> globals = c.effectiveGlobals().entries();
    ASSERT_FALSE(globals.empty());
    EXPECT_EQ(globals[0].keyword, "verbosity");
}

TEST(ConfigResolve, FormatsValuesAsTheFileWritesThem) {
    EXPECT_EQ(toString(Failback::after(15)), "15");
    EXPECT_EQ(toString(NoPathRetry::times(3)), "3");
    EXPECT_EQ(toString(OffOrNumber::disabled()), "off");
    EXPECT_EQ(toString(DevLossTmo::infinite()), "infinity");
    EXPECT_EQ(toString(HardwareHandler{"alua", {}}), "1 alua");
    EXPECT_EQ(toString(HardwareHandler{}), "0");
    EXPECT_EQ(featuresToString({"pg_init_retries", "50"}), "2 pg_init_retries 50");
    EXPECT_EQ(toString(PathSelector{"historical-service-time", {"10"}}),
              "historical-service-time 1 10");
    EXPECT_EQ(toString(GroupingPolicy::GroupByNodeName), std::string("group_by_node_name"));
    EXPECT_EQ(toString(FindMultipaths::Smart), std::string("smart"));
}

TEST(ConfigResolve, DiagnosticWithoutLineNamesOnlyTheFile) {
    Diagnostic d{"/etc/multipath.conf", 0, Diagnostic::Severity::Error, "cannot read"};
    EXPECT_EQ(d.toString(), "/etc/multipath.conf: cannot read");
}

TEST(ConfigResolve, FirstMultipathEntryKeepsADuplicatedAlias) {
    ConfigResult r = config::parseString("multipaths {\n multipath {\n wwid 36001\n"
                                         " alias db\n }\n multipath {\n wwid 36002\n"
                                         " alias db\n }\n}\n",
                                         "/etc/multipath.conf");
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].toString(), "/etc/multipath.conf:6: alias 'db' is already used "
                                           "for wwid 36001 at /etc/multipath.conf:2");
    EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::Warning);
    EXPECT_EQ(r.config.effective("", "", "", "36001").alias.value, "db");
    EXPECT_EQ(r.config.effective("", "", "", "36002").alias.value, "");
}

TEST(ConfigResolve, MergedConfigSetsEveryDefaultButAnUnsetNoPathRetry) {
    Config c = parsed("defaults {\n polling_interval 10\n prio alua\n}\n");
    Config merged = config::mergedConfig(c);
    EXPECT_EQ(merged.globals.pollingInterval, 10u);
    EXPECT_EQ(merged.globals.maxPollingInterval, 40u);
    EXPECT_EQ(merged.defaults.prio, "alua");
    EXPECT_EQ(merged.defaults.pathChecker, "tur");
    EXPECT_EQ(merged.defaults.features, std::vector<std::string>{});
    EXPECT_FALSE(merged.defaults.noPathRetry) << "unset has no value to write";
    EXPECT_FALSE(merged.defaults.hardwareHandler) << "defaults {} does not take it";
    EXPECT_FALSE(merged.globals.dmTarget) << "multipath.conf cannot name it";
    EXPECT_EQ(merged.devices.size(), Hwtable::builtin().entries().size());

    Config set = parsed("defaults {\n no_path_retry queue\n}\n");
    EXPECT_EQ(config::mergedConfig(set).defaults.noPathRetry, NoPathRetry::queue());
}

TEST(ConfigResolve, PollingIntervalsFillEachOtherInAsMultipathToolsDoes) {
    auto globals = [](const std::string &lines) {
        return parsed("defaults {\n" + lines + "}\n").effectiveGlobals();
    };
    EffectiveGlobals onlyMax = globals(" max_polling_interval 12\n");
    EXPECT_EQ(onlyMax.pollingInterval.value, 3u);
    EXPECT_EQ(onlyMax.pollingInterval.where, (SourceLocation{"/etc/multipath.conf", 2}));
    EXPECT_EQ(globals(" max_polling_interval 2\n").pollingInterval.value, 1u);
    EffectiveGlobals both = globals(" polling_interval 30\n max_polling_interval 10\n");
    EXPECT_EQ(both.pollingInterval.value, 10u) << "never above the maximum";
    EXPECT_EQ(both.maxPollingInterval.value, 10u);
    EffectiveGlobals ordered = globals(" polling_interval 5\n max_polling_interval 30\n");
    EXPECT_EQ(ordered.pollingInterval.value, 5u);
    EXPECT_EQ(ordered.maxPollingInterval.value, 30u);
}

TEST(ConfigResolve, QueueIfNoPathStandsForNoPathRetryQueueOnlyWhenUnset) {
    // As multipath-tools: the word leaves the features, and queues only
    // when no layer sets no_path_retry.
    ConfigResult r = config::parseString("defaults {\n features \"1 queue_if_no_path\"\n}\n",
                                         "/etc/multipath.conf");
    EffectiveSettings e = r.config.effective("ACME", "Rocket", "1", "3600");
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::queue());
    EXPECT_EQ(e.noPathRetry.where, (SourceLocation{"/etc/multipath.conf", 2}));
    EXPECT_TRUE(e.features.value.empty());

    ConfigResult set = config::parseString(
        "defaults {\n features \"3 queue_if_no_path pg_init_retries 5\"\n}\n"
        "devices {\n device {\n vendor ACME\n product Rocket\n no_path_retry 5\n }\n}\n");
    EffectiveSettings s = set.config.effective("ACME", "Rocket", "1", "3600");
    EXPECT_EQ(s.noPathRetry.value, NoPathRetry::times(5));
    EXPECT_EQ(s.features.value, (std::vector<std::string>{"pg_init_retries", "5"}));

    ConfigResult fail = config::parseString(
        "overrides {\n no_path_retry fail\n features \"1 queue_if_no_path\"\n}\n");
    EXPECT_EQ(fail.config.effective("ACME", "Rocket", "1", "3600").noPathRetry.value,
              NoPathRetry::fail());
    EXPECT_EQ(fail.config.effective("ACME", "Rocket", "1", "3600").noPathRetry.origin,
              Origin::Overrides);
}
