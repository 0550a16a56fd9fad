#include "mpath/discovery/wwid.h"

#include <gtest/gtest.h>

using namespace mpath::discovery;

TEST(Wwid, DefaultUidAttributeFollowsDeviceType) {
    EXPECT_EQ(wwid::defaultUidAttribute("sdb"), "ID_SERIAL");
    EXPECT_EQ(wwid::defaultUidAttribute("nvme1n2"), "ID_WWN");
    EXPECT_EQ(wwid::defaultUidAttribute("dasda"), "ID_UID");
    EXPECT_EQ(wwid::defaultUidAttribute("vda"), "");
}

TEST(Wwid, NvmeUuidWinsOverNguidAndEui) {
    EXPECT_EQ(wwid::fromNvmeIdentifiers("6C1E0C5C-1111-2222-3333-444455556666",
                                        "00000000-0000-0000-0000-000000000001",
                                        "00 00 00 00 00 00 00 02"),
              "uuid.6c1e0c5c-1111-2222-3333-444455556666");
}

TEST(Wwid, NvmeNguidWinsOverEuiAndLosesItsDashes) {
    EXPECT_EQ(wwid::fromNvmeIdentifiers("00000000-0000-0000-0000-000000000000",
                                        "e0b1a1c2-d3e4-f506-0718-293a4b5c6d7e",
                                        "00 00 00 00 00 00 00 02"),
              "eui.e0b1a1c2d3e4f5060718293a4b5c6d7e");
}

TEST(Wwid, NvmeEuiIsUsedWhenNothingElseIsSet) {
    EXPECT_EQ(wwid::fromNvmeIdentifiers("", "", "52 54 00 12 34 56 78 9a"), "eui.525400123456789a");
    EXPECT_EQ(wwid::fromNvmeIdentifiers("", "00000000-0000-0000-0000-000000000000",
                                        "00 00 00 00 00 00 00 00"),
              "");
}
