#include "mpath/config/parser.h"
#include "mpath/policy/names.h"
#include "mpath/state/bindings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace mpath::policy;
using mpath::config::Config;
using mpath::state::Bindings;
using ::testing::HasSubstr;

namespace {

class NamesTest : public ::testing::Test {
protected:
    Config config(std::string_view text) {
        mpath::config::ConfigResult r = mpath::config::parseString(text);
        EXPECT_TRUE(r.diagnostics.empty());
        return r.config;
    }

    // The bindings a bindings file with these "alias wwid" pairs holds.
    Bindings bindings(std::initializer_list<std::pair<const char *, const char *>> pairs) {
        Bindings b;
        for (const auto &[alias, wwid] : pairs) {
            auto r = b.add(alias, wwid);
            EXPECT_TRUE(r) << r.error().message;
        }
        return b;
    }
};

} // namespace

TEST_F(NamesTest, UsesTheWwidWithoutUserFriendlyNames) {
    Config c;
    Namer namer(c, Bindings{});
    NameChoice n = namer.name(c.effective("X", "Y", "", "36001"), "36001");
    EXPECT_EQ(n.name, "36001");
    EXPECT_EQ(n.newAlias, "") << "nothing is to be bound";
    EXPECT_EQ(n.droppedAlias, "");
    EXPECT_EQ(n.note, "");
    EXPECT_TRUE(namer.bindings().entries().empty());
}

TEST_F(NamesTest, BindsAFriendlyNameWhenEnabled) {
    Config c = config("defaults {\n user_friendly_names yes\n}\n");
    Namer namer(c, Bindings{});
    NameChoice first = namer.name(c.effective("X", "Y", "", "36001"), "36001");
    EXPECT_EQ(first.name, "mpatha");
    EXPECT_EQ(first.newAlias, "mpatha");
    NameChoice second = namer.name(c.effective("X", "Y", "", "36002"), "36002");
    EXPECT_EQ(second.name, "mpathb");
    EXPECT_EQ(second.newAlias, "mpathb") << "mpatha was handed out already";
    NameChoice again = namer.name(c.effective("X", "Y", "", "36001"), "36001");
    EXPECT_EQ(again.name, "mpatha");
    EXPECT_EQ(again.newAlias, "") << "bound by the first call";
    EXPECT_EQ(namer.bindings().aliasFor("36001"), "mpatha");
    EXPECT_EQ(namer.bindings().aliasFor("36002"), "mpathb");
}

TEST_F(NamesTest, UsesTheExistingBinding) {
    Config c = config("defaults {\n user_friendly_names yes\n}\n");
    Namer namer(c, bindings({{"mpatha", "36002"}, {"mpathc", "36001"}}));
    NameChoice n = namer.name(c.effective("X", "Y", "", "36001"), "36001");
    EXPECT_EQ(n.name, "mpathc");
    EXPECT_EQ(n.newAlias, "");
    EXPECT_EQ(n.droppedAlias, "");
    EXPECT_EQ(n.note, "");
}

TEST_F(NamesTest, NewAliasIsTheLowestFreeOne) {
    Config c = config("defaults {\n user_friendly_names yes\n}\n");
    Namer namer(c, bindings({{"mpatha", "36002"}, {"mpathc", "36003"}}));
    NameChoice n = namer.name(c.effective("X", "Y", "", "36001"), "36001");
    EXPECT_EQ(n.name, "mpathb");
    EXPECT_EQ(n.newAlias, "mpathb");
    EXPECT_EQ(namer.name(c.effective("X", "Y", "", "36004"), "36004").newAlias, "mpathd");
}

TEST_F(NamesTest, HonoursAliasPrefix) {
    Config c = config("defaults {\n user_friendly_names yes\n alias_prefix disk\n}\n");
    Namer namer(c, Bindings{});
    NameChoice n = namer.name(c.effective("X", "Y", "", "36001"), "36001");
    EXPECT_EQ(n.name, "diska");
    EXPECT_EQ(n.newAlias, "diska");
}

TEST_F(NamesTest, ConfiguredAliasWinsAndIsNeverHandedOut) {
    Config c = config("defaults {\n user_friendly_names yes\n}\n"
                      "multipaths {\n multipath {\n wwid 36009\n alias mpatha\n }\n}\n");
    Namer namer(c, Bindings{});
    NameChoice configured = namer.name(c.effective("X", "Y", "", "36009"), "36009");
    EXPECT_EQ(configured.name, "mpatha");
    EXPECT_EQ(configured.newAlias, "") << "a configured alias is not bound";
    NameChoice other = namer.name(c.effective("X", "Y", "", "36001"), "36001");
    EXPECT_EQ(other.name, "mpathb");
    EXPECT_EQ(other.newAlias, "mpathb");
}

TEST_F(NamesTest, DeviceEntryCanTurnFriendlyNamesOff) {
    Config c = config("defaults {\n user_friendly_names yes\n}\n");
    Namer namer(c, Bindings{});
    // The built-in NetApp entry says user_friendly_names no.
    NameChoice n = namer.name(c.effective("NETAPP", "LUN", "", "3600a0"), "3600a0");
    EXPECT_EQ(n.name, "3600a0");
    EXPECT_EQ(n.newAlias, "");
    EXPECT_TRUE(namer.bindings().entries().empty());
}

TEST_F(NamesTest, FallsBackToTheWwidWhenItCannotBeBound) {
    // The bindings file cannot hold a WWID with blanks around it.
    Config c = config("defaults {\n user_friendly_names yes\n}\n");
    Namer namer(c, Bindings{});
    NameChoice n = namer.name(c.effective("X", "Y", "", "36001 "), "36001 ");
    EXPECT_EQ(n.name, "36001 ");
    EXPECT_EQ(n.newAlias, "");
    EXPECT_THAT(n.note, HasSubstr("named by its WWID"));
    EXPECT_TRUE(namer.bindings().entries().empty());
}

TEST_F(NamesTest, ReplacesABindingThatTheConfigurationGaveToAnotherMap) {
    Config c = config("defaults {\n user_friendly_names yes\n}\n"
                      "multipaths {\n multipath {\n wwid 36009\n alias mpatha\n }\n}\n");
    Namer namer(c, bindings({{"mpatha", "36001"}}));
    NameChoice n = namer.name(c.effective("X", "Y", "", "36001"), "36001");
    EXPECT_EQ(n.droppedAlias, "mpatha");
    EXPECT_EQ(n.newAlias, "mpathb");
    EXPECT_EQ(n.name, "mpathb");
    EXPECT_THAT(n.note, HasSubstr("'mpatha'"));
    EXPECT_THAT(n.note, HasSubstr("36009"));
    EXPECT_EQ(namer.bindings().aliasFor("36001"), "mpathb");
    EXPECT_EQ(namer.bindings().wwidFor("mpatha"), std::nullopt);
    // The configured map keeps its alias.
    EXPECT_EQ(namer.name(c.effective("X", "Y", "", "36009"), "36009").name, "mpatha");
}
