#include "mpath/vpd.h"

#include <cerrno>
#include <gtest/gtest.h>

using namespace mpath;

namespace {

// One designator: code set, association << 4 | type, identifier bytes.
std::vector<uint8_t> designator(uint8_t codeSet, uint8_t assocType, std::vector<uint8_t> id) {
    std::vector<uint8_t> d{codeSet, assocType, 0, static_cast<uint8_t>(id.size())};
    d.insert(d.end(), id.begin(), id.end());
    return d;
}

std::vector<uint8_t> text(std::string_view s) {
    return {s.begin(), s.end()};
}

std::vector<uint8_t> page83(std::initializer_list<std::vector<uint8_t>> designators) {
    std::vector<uint8_t> body;
    for (const auto &d : designators)
        body.insert(body.end(), d.begin(), d.end());
    std::vector<uint8_t> p{0, 0x83, static_cast<uint8_t>(body.size() >> 8),
                           static_cast<uint8_t>(body.size())};
    p.insert(p.end(), body.begin(), body.end());
    return p;
}

const std::vector<uint8_t> kNaa6 = designator(1, 0x03,
                                              {0x60, 0x01, 0x40, 0x5a, 0xbc, 0xde, 0xf0, 0x12, 0x34,
                                               0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12});
const std::vector<uint8_t> kNaa3 =
    designator(1, 0x03, {0x33, 0x33, 0x33, 0x30, 0x00, 0x00, 0x07, 0xd0});
const std::vector<uint8_t> kT10 = designator(2, 0x01, text("Linux   scsi_debug      2000"));
const std::vector<uint8_t> kEui = designator(1, 0x02, {1, 2, 3, 4, 5, 6, 7, 8});
const std::vector<uint8_t> kTpg = designator(1, 0x15, {0, 0, 0x01, 0x02});

} // namespace

TEST(Vpd, SplitsPage83IntoDesignators) {
    std::vector<VpdDesignator> ds;
    ASSERT_EQ(Vpd::parsePage83(page83({kT10, kNaa3, kTpg}), ds), 0);
    ASSERT_EQ(ds.size(), 3u);
    EXPECT_TRUE(ds[0].is(VpdDesignator::Type::T10VendorId));
    EXPECT_TRUE(ds[0].is(VpdDesignator::CodeSet::Ascii));
    EXPECT_TRUE(ds[1].is(VpdDesignator::Type::Naa));
    EXPECT_EQ(ds[1].value.size(), 8u);
    EXPECT_TRUE(ds[2].is(VpdDesignator::Association::TargetPort));
    EXPECT_TRUE(ds[2].is(VpdDesignator::Type::TargetPortGroup));
}

TEST(Vpd, RejectsDesignatorRunningPastThePage) {
    auto p = page83({kNaa3});
    p[7] = 40; // designator length beyond the page
    std::vector<VpdDesignator> ds;
    EXPECT_EQ(Vpd::parsePage83(p, ds), -EINVAL);
    std::string wwid;
    EXPECT_EQ(Vpd::wwidFromPage83(p, wwid), -EINVAL);
}

TEST(Vpd, RejectsOtherPages) {
    std::vector<uint8_t> p{0, 0x80, 0, 0};
    std::string wwid;
    EXPECT_EQ(Vpd::wwidFromPage83(p, wwid), -EINVAL);
}

TEST(Vpd, PrefersNaaRegisteredExtendedOverEverythingElse) {
    std::string wwid;
    ASSERT_EQ(Vpd::wwidFromPage83(page83({kT10, kEui, kNaa3, kNaa6}), wwid), 0);
    EXPECT_EQ(wwid, "36001405abcdef0123456789abcdef012");
}

TEST(Vpd, LocallyAssignedNaaBeatsT10VendorIdForScsiId) {
    // scsi_debug's page: T10 vendor ID first, NAA locally assigned second.
    std::string wwid;
    ASSERT_EQ(Vpd::wwidFromPage83(page83({kT10, kNaa3}), wwid, Vpd::Order::ScsiId), 0);
    EXPECT_EQ(wwid, "333333330000007d0");
}

TEST(Vpd, T10VendorIdBeatsLocallyAssignedNaaForUdev) {
    std::string wwid;
    ASSERT_EQ(Vpd::wwidFromPage83(page83({kNaa3, kT10}), wwid), 0);
    EXPECT_EQ(wwid, "1Linux_scsi_debug_2000");
    ASSERT_EQ(Vpd::wwidFromPage83(page83({kNaa3}), wwid), 0);
    EXPECT_EQ(wwid, "333333330000007d0");
}

TEST(Vpd, UdevOrderPrefersNaaIeeeExtendedOverEui64) {
    auto naa2 = designator(1, 0x03, {0x20, 0, 0, 0x0e, 0x1e, 0x01, 0x02, 0x03});
    std::string wwid;
    ASSERT_EQ(Vpd::wwidFromPage83(page83({kEui, naa2}), wwid), 0);
    EXPECT_EQ(wwid, "32000000e1e010203");
    ASSERT_EQ(Vpd::wwidFromPage83(page83({kEui, naa2}), wwid, Vpd::Order::ScsiId), 0);
    EXPECT_EQ(wwid, "32000000e1e010203");
}

TEST(Vpd, Eui64BeatsT10VendorId) {
    std::string wwid;
    ASSERT_EQ(Vpd::wwidFromPage83(page83({kT10, kEui}), wwid), 0);
    EXPECT_EQ(wwid, "20102030405060708");
}

TEST(Vpd, T10VendorIdTurnsBlankRunsIntoOneUnderscore) {
    std::string wwid;
    ASSERT_EQ(Vpd::wwidFromPage83(page83({kT10}), wwid), 0);
    EXPECT_EQ(wwid, "1Linux_scsi_debug_2000");
}

TEST(Vpd, IgnoresDesignatorsOfTheTargetPort) {
    auto portNaa = designator(1, 0x13, {0x50, 1, 2, 3, 4, 5, 6, 7});
    std::string wwid;
    ASSERT_EQ(Vpd::wwidFromPage83(page83({portNaa, kT10}), wwid), 0);
    EXPECT_EQ(wwid, "1Linux_scsi_debug_2000");
    EXPECT_EQ(Vpd::wwidFromPage83(page83({portNaa}), wwid), -ENODATA);
}

TEST(Vpd, VendorSpecificDesignatorIsPrefixedWithVendorAndModel) {
    auto vs = designator(2, 0x00, text("abc"));
    std::string wwid;
    EXPECT_EQ(Vpd::wwidFromPage83(page83({vs}), wwid), -ENODATA);
    ASSERT_EQ(Vpd::wwidFromPage83(page83({vs}), wwid, Vpd::Order::Udev, "QEMU", "QEMU HARDDISK"),
              0);
    EXPECT_EQ(wwid, "0QEMU_QEMU_HARDDISK_abc");
    ASSERT_EQ(Vpd::wwidFromPage83(page83({vs}), wwid, Vpd::Order::ScsiId, "ACMECORP", "X"), 0);
    EXPECT_EQ(wwid, "0ACMECORPX_abc");
}

TEST(Vpd, ScsiNameStringComesBeforeT10VendorIdForUdevOnly) {
    auto nulPadded = text("iqn.2003-01.org.example:disk1");
    nulPadded.insert(nulPadded.end(), {0, 0, 0});
    auto name = designator(3, 0x08, nulPadded);
    std::string wwid;
    ASSERT_EQ(Vpd::wwidFromPage83(page83({kT10, name}), wwid), 0);
    EXPECT_EQ(wwid, "8iqn.2003-01.org.example:disk1");
    ASSERT_EQ(Vpd::wwidFromPage83(page83({kT10, name}), wwid, Vpd::Order::ScsiId), 0);
    EXPECT_EQ(wwid, "1Linux_scsi_debug_2000");
    EXPECT_EQ(Vpd::wwidFromPage83(page83({name}), wwid, Vpd::Order::ScsiId), -ENODATA);
}

TEST(Vpd, Scsi2StylePageGivesHexOfWholeIdentifier) {
    std::vector<uint8_t> p{0, 0x83, 0, 4, 0x00, 0x60, 0x48, 0x12};
    std::string wwid;
    ASSERT_EQ(Vpd::wwidFromPage83(p, wwid, Vpd::Order::ScsiId), 0);
    EXPECT_EQ(wwid, "300604812");
}

TEST(Vpd, FindsTargetPortGroupOfThePort) {
    EXPECT_EQ(Vpd::targetPortGroupFromPage83(page83({kNaa6, kTpg})), 0x102);
    EXPECT_EQ(Vpd::targetPortGroupFromPage83(page83({kNaa6})), -ENODATA);
}

TEST(Vpd, Page80SerialLosesSurroundingBlanks) {
    std::vector<uint8_t> p{0, 0x80, 0, 8, ' ', 'S', 'N', '1', '2', ' ', ' ', 0};
    std::string serial;
    ASSERT_EQ(Vpd::parsePage80(p, serial), 0);
    EXPECT_EQ(serial, "SN12");
    std::vector<uint8_t> blank{0, 0x80, 0, 2, ' ', ' '};
    EXPECT_EQ(Vpd::parsePage80(blank, serial), -ENODATA);
}

TEST(Vpd, UdevSanitizeMatchesScsiIdExport) {
    EXPECT_EQ(Vpd::udevSanitize("  QEMU    QEMU HARDDISK  "), "QEMU_QEMU_HARDDISK");
    EXPECT_EQ(Vpd::udevSanitize("a*b(c)"), "a_b_c_");
    EXPECT_EQ(Vpd::udevSanitize("a/b.c:d"), "a/b.c:d");
    EXPECT_EQ(Vpd::udevSanitize("caf\xc3\xa9"), "caf\xc3\xa9");
    EXPECT_EQ(Vpd::udevSanitize("bad\xff"), "bad_");
}

TEST(Vpd, TargetPortGroupSupportIsBitsFiveAndFourOfInquiryByteFive) {
    std::vector<uint8_t> inquiry{0x00, 0x00, 0x06, 0x02, 31, 0x00, 0x00, 0x02};
    EXPECT_EQ(Vpd::targetPortGroupSupport(inquiry), 0);
    inquiry[5] = 0x10;
    EXPECT_EQ(Vpd::targetPortGroupSupport(inquiry), 1);
    inquiry[5] = 0x20 | 0x01; // PROTECT does not count
    EXPECT_EQ(Vpd::targetPortGroupSupport(inquiry), 2);
    inquiry[5] = 0xff;
    EXPECT_EQ(Vpd::targetPortGroupSupport(inquiry), 3);
    inquiry.resize(5);
    EXPECT_EQ(Vpd::targetPortGroupSupport(inquiry), -EINVAL);
}
