// Which layer decides a keyword, class by class, as multipath-tools'
// propsel.c decides it (docs/configuration.md, "Which setting wins").

#include "mpath/config/parser.h"
#include "mpath/config/resolve.h"
#include "mpath/model/path.h"
#include "mpath/policy/planner.h"

#include <gtest/gtest.h>

namespace config = mpath::config;
using namespace mpath::config;

namespace {

const char *kFile = "/etc/multipath.conf";

// Every line of \a text must apply: no diagnostic at all.
Config parsed(const std::string &text) {
    ConfigResult r = config::parseString(text, kFile);
    for (const auto &d : r.diagnostics)
        ADD_FAILURE() << "unexpected diagnostic: " << d.toString();
    return r.config;
}

// The four sections a path of ACME Rocket in the map of WWID 3600 sees,
// each with \a line (one keyword and its value) when its flag says so.
std::string layers(const std::string &mp, const std::string &ovr, const std::string &dev,
                   const std::string &def) {
    std::string text;
    if (!def.empty())
        text += "defaults {\n " + def + "\n}\n";
    if (!dev.empty())
        text += "devices {\n device {\n vendor ACME\n product Rocket\n " + dev + "\n }\n}\n";
    if (!mp.empty())
        text += "multipaths {\n multipath {\n wwid 3600\n " + mp + "\n }\n}\n";
    if (!ovr.empty())
        text += "overrides {\n " + ovr + "\n}\n";
    return text;
}

EffectiveSettings rocket(const Config &c) {
    return resolve(c, {"ACME", "Rocket", "1", "3600"});
}

// The effective value of \a keyword for an ACME Rocket, as listed.
std::string valueOf(const EffectiveSettings &e, const std::string &keyword) {
    for (const auto &entry : e.entries())
        if (entry.keyword == keyword)
            return entry.value;
    ADD_FAILURE() << "no keyword " << keyword;
    return {};
}

Origin originOf(const EffectiveSettings &e, const std::string &keyword) {
    for (const auto &entry : e.entries())
        if (entry.keyword == keyword)
            return entry.origin;
    ADD_FAILURE() << "no keyword " << keyword;
    return Origin::Builtin;
}

struct Values {
    const char *keyword;
    const char *mp, *ovr, *dev, *def; ///< a different value for each layer
};

} // namespace

// Map-level keywords: every section takes them; multipaths first.
TEST(ConfigPrecedence, MapKeywordsGoMultipathsOverridesDevicesDefaults) {
    const Values cases[] = {
        {"path_grouping_policy", "multibus", "group_by_prio", "group_by_serial",
         "group_by_node_name"},
        {"path_selector", "round-robin 0", "queue-length 0", "historical-service-time 0",
         "service-time 0"},
        {"failback", "immediate", "followover", "15", "30"},
        {"no_path_retry", "queue", "fail", "12", "30"},
        {"features", "2 pg_init_retries 50", "1 retain_attached_hw_handler",
         "2 pg_init_delay_msecs 100", "2 queue_mode bio"},
        {"rr_min_io", "7", "8", "9", "10"},
        {"rr_min_io_rq", "2", "3", "4", "5"},
        {"user_friendly_names", "yes", "no", "yes", "no"},
        {"flush_on_last_del", "yes", "no", "yes", "no"},
        {"skip_kpartx", "yes", "no", "yes", "no"},
        {"max_sectors_kb", "128", "256", "512", "1024"},
        {"pg_init_retries", "1", "2", "3", "4"},
        {"queue_mode", "bio", "rq", "mq", "bio"},
    };
    for (const auto &v : cases) {
        auto line = [&](const char *value) {
            std::string text = std::string(v.keyword) + " \"" + value + "\"";
            return text;
        };
        SCOPED_TRACE(v.keyword);
        Config all = parsed(layers(line(v.mp), line(v.ovr), line(v.dev), line(v.def)));
        EXPECT_EQ(valueOf(rocket(all), v.keyword), v.mp);
        EXPECT_EQ(originOf(rocket(all), v.keyword), Origin::Multipaths);
        // A path of another WWID: the multipaths entry is not its own.
        EXPECT_EQ(valueOf(resolve(all, {"ACME", "Rocket", "1", "3700"}), v.keyword), v.ovr);

        Config noMp = parsed(layers("", line(v.ovr), line(v.dev), line(v.def)));
        EXPECT_EQ(valueOf(rocket(noMp), v.keyword), v.ovr);
        EXPECT_EQ(originOf(rocket(noMp), v.keyword), Origin::Overrides);

        Config devDef = parsed(layers("", "", line(v.dev), line(v.def)));
        EXPECT_EQ(valueOf(rocket(devDef), v.keyword), v.dev);
        EXPECT_EQ(originOf(rocket(devDef), v.keyword), Origin::Devices);
        // Another device: its only layer is defaults.
        EXPECT_EQ(valueOf(resolve(devDef, {"ACME", "Sled", "1", "3600"}), v.keyword), v.def);

        Config def = parsed(layers("", "", "", line(v.def)));
        EXPECT_EQ(valueOf(rocket(def), v.keyword), v.def);
        EXPECT_EQ(originOf(rocket(def), v.keyword), Origin::Defaults);
    }
}

TEST(ConfigPrecedence, MultipathsEntryBeatsOverridesWithItsLine) {
    Config c = parsed("overrides {\n no_path_retry queue\n}\n"
                      "multipaths {\n multipath {\n wwid 3600\n no_path_retry 5\n }\n}\n");
    EffectiveSettings e = rocket(c);
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::times(5));
    EXPECT_EQ(e.noPathRetry.where, (SourceLocation{kFile, 7}));
}

// Path-level keywords: a multipaths entry does not take them, so overrides
// come first.
TEST(ConfigPrecedence, PathKeywordsGoOverridesDevicesDefaultsAndNotMultipaths) {
    const Values cases[] = {
        {"path_checker", "readsector0", "directio", "none", "emc_clariion"},
        {"alias_prefix", "mp", "ov", "dv", "df"},
        {"uid_attribute", "ID_A", "ID_B", "ID_C", "ID_D"},
        {"detect_prio", "yes", "no", "yes", "no"},
        {"detect_checker", "no", "yes", "no", "yes"},
    };
    for (const auto &v : cases) {
        SCOPED_TRACE(v.keyword);
        auto line = [&](const char *value) { return std::string(v.keyword) + " " + value; };
        // The multipaths entry's line is refused, and counts for nothing.
        ConfigResult r =
            config::parseString(layers(line(v.mp), line(v.ovr), line(v.dev), line(v.def)), kFile);
        std::vector<std::string> refused;
        for (const auto &d : r.diagnostics)
            refused.push_back(d.message);
        EXPECT_EQ(refused,
                  std::vector<std::string>{"keyword '" + std::string(v.keyword) +
                                           "' is not valid in section multipath; ignored"});
        EXPECT_EQ(valueOf(rocket(r.config), v.keyword), v.ovr);
        EXPECT_EQ(originOf(rocket(r.config), v.keyword), Origin::Overrides);

        Config devDef = parsed(layers("", "", line(v.dev), line(v.def)));
        EXPECT_EQ(valueOf(rocket(devDef), v.keyword), v.dev);
        Config def = parsed(layers("", "", "", line(v.def)));
        EXPECT_EQ(valueOf(rocket(def), v.keyword), v.def);
    }
}

// hardware_handler: only device entries take it; defaults and overrides do
// not, and the built-in "no handler" stands otherwise.
TEST(ConfigPrecedence, HardwareHandlerComesOnlyFromDeviceEntries) {
    ConfigResult r = config::parseString("defaults {\n hardware_handler \"1 rdac\"\n}\n"
                                         "overrides {\n hardware_handler \"1 emc\"\n}\n",
                                         kFile);
    ASSERT_EQ(r.diagnostics.size(), 2u);
    EXPECT_EQ(r.diagnostics[0].toString(),
              "/etc/multipath.conf:2: keyword 'hardware_handler' is not valid in section "
              "defaults; ignored");
    EXPECT_EQ(r.diagnostics[1].toString(),
              "/etc/multipath.conf:5: keyword 'hardware_handler' is not valid in section "
              "overrides; ignored");
    EXPECT_EQ(rocket(r.config).hardwareHandler.value, HardwareHandler{});
    EXPECT_EQ(rocket(r.config).hardwareHandler.origin, Origin::Builtin);

    Config c = parsed(layers("", "", "hardware_handler \"1 alua\"", ""));
    EXPECT_EQ(rocket(c).hardwareHandler.value, (HardwareHandler{"alua", {}}));
    EXPECT_EQ(rocket(c).hardwareHandler.origin, Origin::Devices);
    // The built-in table's handler, for an array it knows.
    EXPECT_EQ(resolve(c, {"DGC", "VRAID", "", ""}).hardwareHandler.value,
              (HardwareHandler{"emc", {}}));
    EXPECT_EQ(resolve(c, {"DGC", "VRAID", "", ""}).hardwareHandler.origin, Origin::Hwtable);
}

// prio_args goes with the layer that gave prio.
TEST(ConfigPrecedence, PrioArgsComeFromTheLayerThatGavePrio) {
    // overrides give prio without arguments: defaults' arguments do not
    // join them.
    Config c = parsed("defaults {\n prio weightedpath\n prio_args \"hbtl 1:.:.:. 2\"\n}\n"
                      "overrides {\n prio alua\n}\n");
    EffectiveSettings e = rocket(c);
    EXPECT_EQ(e.prio.value, "alua");
    EXPECT_EQ(e.prioArgs.value, "");
    EXPECT_EQ(e.prioArgs.origin, Origin::Overrides);

    // prio_args alone, without prio in its section, is not used.
    Config alone = parsed("overrides {\n prio_args exclusive_pref_bit\n}\n");
    EXPECT_EQ(rocket(alone).prio.value, "const");
    EXPECT_EQ(rocket(alone).prioArgs.value, "");

    // Among device entries the first that sets prio_args gives them, even
    // when an earlier one gave prio.
    Config devices = parsed("devices {\n device {\n vendor ACME\n product .*\n"
                            " prio_args exclusive_pref_bit\n }\n"
                            " device {\n vendor ACME\n product Rocket\n prio alua\n }\n}\n");
    EffectiveSettings d = rocket(devices);
    EXPECT_EQ(d.prio.value, "alua");
    EXPECT_EQ(d.prio.where, (SourceLocation{kFile, 10}));
    EXPECT_EQ(d.prioArgs.value, "exclusive_pref_bit");
    EXPECT_EQ(d.prioArgs.where, (SourceLocation{kFile, 5}));
}

// Device entries: the files' entries, the newest first, then the built-in
// table; each keyword from the first entry that sets it.
TEST(ConfigPrecedence, NewestDeviceEntryFirstThenTheBuiltinTable) {
    ConfigResult r = config::parseString("devices {\n device {\n vendor NETAPP\n product LUN\n"
                                         " no_path_retry 16\n prio alua\n }\n}\n",
                                         kFile);
    config::parse("devices {\n device {\n vendor NETAPP\n product LUN\n no_path_retry 20\n }\n}\n",
                  "/etc/multipath/conf.d/ha.conf", r.config, r.diagnostics);
    ASSERT_TRUE(r.diagnostics.empty());
    EffectiveSettings e = resolve(r.config, {"NETAPP", "LUN C-Mode", "9800", ""});
    EXPECT_EQ(e.noPathRetry.value, NoPathRetry::times(20));
    EXPECT_EQ(e.noPathRetry.where, (SourceLocation{"/etc/multipath/conf.d/ha.conf", 5}));
    EXPECT_EQ(e.prio.value, "alua");
    EXPECT_EQ(e.prio.where, (SourceLocation{kFile, 6}));
    EXPECT_EQ(e.devLossTmo.value, DevLossTmo::infinite());
    EXPECT_EQ(e.devLossTmo.origin, Origin::Hwtable);
    EXPECT_TRUE(e.devLossTmo.where.empty());
}

// detect_prio and detect_checker: resolved like path keywords (no
// multipaths), and when on, detection comes before every layer.
TEST(ConfigPrecedence, DetectKeywordsGoOverridesDevicesDefaultsAndDetectionComesFirst) {
    ConfigResult r = config::parseString(
        "defaults {\n detect_prio yes\n detect_checker yes\n}\n"
        "devices {\n device {\n vendor ACME\n product Rocket\n detect_prio no\n }\n}\n"
        "multipaths {\n multipath {\n wwid 3600\n detect_checker no\n prio const\n }\n}\n"
        "overrides {\n path_checker directio\n}\n",
        kFile);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].toString(), "/etc/multipath.conf:15: keyword 'detect_checker' "
                                           "is not valid in section multipath; ignored");
    EffectiveSettings e = rocket(r.config);
    EXPECT_FALSE(e.detectPrio.value);
    EXPECT_EQ(e.detectPrio.origin, Origin::Devices);
    EXPECT_TRUE(e.detectChecker.value);
    EXPECT_EQ(e.detectChecker.origin, Origin::Defaults);

    mpath::model::Path alua;
    alua.tpgs = 1;
    alua.accessState = "active/optimized";
    // detect_checker is on: tur for an ALUA path, over overrides' checker.
    EXPECT_EQ(mpath::policy::choosePathPolicy(e, alua).checker, "tur");
    // detect_prio is off for this device: the multipaths entry's prio.
    EXPECT_EQ(mpath::policy::choosePathPolicy(e, alua).prio, "const");

    // With detect_prio on, detection beats even the multipaths entry.
    Config on = parsed("multipaths {\n multipath {\n wwid 3600\n prio const\n }\n}\n");
    EffectiveSettings d = rocket(on);
    EXPECT_EQ(d.prio.value, "const");
    EXPECT_EQ(d.prio.origin, Origin::Multipaths);
    EXPECT_EQ(mpath::policy::choosePathPolicy(d, alua).prio, "sysfs");
    mpath::model::Path plain;
    EXPECT_EQ(mpath::policy::choosePathPolicy(d, plain).prio, "const")
        << "nothing to detect without ALUA";
}
