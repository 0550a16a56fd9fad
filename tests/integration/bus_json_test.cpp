// The daemon's JSON writer: what it writes is what mpathctl's own JSON
// library prints for the same document, byte for byte, so that mpathctl
// can print the daemon's documents as they come.

#include "bus_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

namespace {

using mpathd::BusJson;

TEST(BusJson, LaysOutNestedObjectsAndArraysAsMpathctlPrintsThem) {
    BusJson j;
    j.beginObject();
    j.key("a");
    j.beginArray();
    j.beginObject();
    j.key("empty");
    j.beginArray();
    j.endArray();
    j.key("none");
    j.null();
    j.key("number");
    j.value(uint64_t{18446744073709551615u});
    j.key("words");
    j.beginArray();
    j.value("x");
    j.value("y");
    j.endArray();
    j.endObject();
    j.beginObject();
    j.endObject();
    j.endArray();
    j.key("b");
    j.beginObject();
    j.key("negative");
    j.value(int64_t{-42});
    j.key("no");
    j.value(false);
    j.key("yes");
    j.value(true);
    j.endObject();
    j.key("c");
    j.beginObject();
    j.endObject();
    j.endObject();

    const nlohmann::json expected = {{"a",
                                      {{{"empty", nlohmann::json::array()},
                                        {"none", nullptr},
                                        {"number", uint64_t{18446744073709551615u}},
                                        {"words", {"x", "y"}}},
                                       nlohmann::json::object()}},
                                     {"b", {{"negative", -42}, {"no", false}, {"yes", true}}},
                                     {"c", nlohmann::json::object()}};
    EXPECT_EQ(j.take(), expected.dump(2));
}

TEST(BusJson, EscapesStringsAsMpathctlPrintsThem) {
    for (const std::string &s :
         {std::string("plain"), std::string(""), std::string("quote \" and \\ backslash"),
          std::string("tab\tnewline\ncr\rback\bform\f"), std::string("bell\x07 esc\x1b del\x7f"),
          std::string("nul\0in", 6), std::string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe")}) {
        BusJson j;
        j.value(s);
        EXPECT_EQ(j.take(), nlohmann::json(s).dump()) << s;
    }
}

TEST(BusJson, GivesEveryByteThatIsNoUtf8TheReplacementCharacter) {
    // As mpathctl's library does when told to replace, not to throw.
    for (const std::string &s :
         {std::string("\xff"), std::string("a\xc3"), std::string("\xc0\xaf overlong"),
          std::string("\xed\xa0\x80 surrogate"), std::string("\xf4\x90\x80\x80 too high")}) {
        BusJson j;
        j.value(s);
        EXPECT_EQ(j.take(),
                  nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
            << s;
    }
}

TEST(BusJson, IsEmptyAgainOnceTaken) {
    BusJson j;
    j.beginArray();
    j.value(true);
    j.endArray();
    EXPECT_EQ(j.take(), "[\n  true\n]");
    j.value("x");
    EXPECT_EQ(j.take(), "\"x\"");
}

} // namespace
