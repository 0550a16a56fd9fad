#include "mpath/discovery/vpd.h"

#include <cerrno>
#include <gtest/gtest.h>

using namespace mpath::discovery;

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
    auto ds = vpd::parsePage83(page83({kT10, kNaa3, kTpg}));
    ASSERT_TRUE(ds) << ds.error().message;
    ASSERT_EQ(ds->size(), 3u);
    EXPECT_TRUE((*ds)[0].is(vpd::Designator::Type::T10VendorId));
    EXPECT_TRUE((*ds)[0].is(vpd::Designator::CodeSet::Ascii));
    EXPECT_TRUE((*ds)[1].is(vpd::Designator::Type::Naa));
    EXPECT_EQ((*ds)[1].value.size(), 8u);
    EXPECT_TRUE((*ds)[2].is(vpd::Designator::Association::TargetPort));
    EXPECT_TRUE((*ds)[2].is(vpd::Designator::Type::TargetPortGroup));
}

TEST(Vpd, RejectsDesignatorRunningPastThePage) {
    auto p = page83({kNaa3});
    p[7] = 40; // designator length beyond the page
    EXPECT_EQ(vpd::parsePage83(p).code(), EINVAL);
    EXPECT_EQ(vpd::wwidFromPage83(p).code(), EINVAL);
}

TEST(Vpd, RejectsOtherPages) {
    std::vector<uint8_t> p{0, 0x80, 0, 0};
    EXPECT_EQ(vpd::wwidFromPage83(p).code(), EINVAL);
}

TEST(Vpd, PrefersNaaRegisteredExtendedOverEverythingElse) {
    auto wwid = vpd::wwidFromPage83(page83({kT10, kEui, kNaa3, kNaa6}));
    ASSERT_TRUE(wwid) << wwid.error().message;
    EXPECT_EQ(*wwid, "36001405abcdef0123456789abcdef012");
}

TEST(Vpd, LocallyAssignedNaaBeatsT10VendorIdForScsiId) {
    // scsi_debug's page: T10 vendor ID first, NAA locally assigned second.
    auto wwid = vpd::wwidFromPage83(page83({kT10, kNaa3}), vpd::Order::ScsiId);
    ASSERT_TRUE(wwid) << wwid.error().message;
    EXPECT_EQ(*wwid, "333333330000007d0");
}

TEST(Vpd, T10VendorIdBeatsLocallyAssignedNaaForUdev) {
    auto wwid = vpd::wwidFromPage83(page83({kNaa3, kT10}));
    ASSERT_TRUE(wwid) << wwid.error().message;
    EXPECT_EQ(*wwid, "1Linux_scsi_debug_2000");
    auto naaOnly = vpd::wwidFromPage83(page83({kNaa3}));
    ASSERT_TRUE(naaOnly) << naaOnly.error().message;
    EXPECT_EQ(*naaOnly, "333333330000007d0");
}

TEST(Vpd, UdevOrderPrefersNaaIeeeExtendedOverEui64) {
    auto naa2 = designator(1, 0x03, {0x20, 0, 0, 0x0e, 0x1e, 0x01, 0x02, 0x03});
    auto udev = vpd::wwidFromPage83(page83({kEui, naa2}));
    ASSERT_TRUE(udev) << udev.error().message;
    EXPECT_EQ(*udev, "32000000e1e010203");
    auto scsiId = vpd::wwidFromPage83(page83({kEui, naa2}), vpd::Order::ScsiId);
    ASSERT_TRUE(scsiId) << scsiId.error().message;
    EXPECT_EQ(*scsiId, "32000000e1e010203");
}

TEST(Vpd, Eui64BeatsT10VendorId) {
    auto wwid = vpd::wwidFromPage83(page83({kT10, kEui}));
    ASSERT_TRUE(wwid) << wwid.error().message;
    EXPECT_EQ(*wwid, "20102030405060708");
}

TEST(Vpd, T10VendorIdTurnsBlankRunsIntoOneUnderscore) {
    auto wwid = vpd::wwidFromPage83(page83({kT10}));
    ASSERT_TRUE(wwid) << wwid.error().message;
    EXPECT_EQ(*wwid, "1Linux_scsi_debug_2000");
}

TEST(Vpd, IgnoresDesignatorsOfTheTargetPort) {
    auto portNaa = designator(1, 0x13, {0x50, 1, 2, 3, 4, 5, 6, 7});
    auto wwid = vpd::wwidFromPage83(page83({portNaa, kT10}));
    ASSERT_TRUE(wwid) << wwid.error().message;
    EXPECT_EQ(*wwid, "1Linux_scsi_debug_2000");
    EXPECT_EQ(vpd::wwidFromPage83(page83({portNaa})).code(), ENODATA);
}

TEST(Vpd, VendorSpecificDesignatorIsPrefixedWithVendorAndModel) {
    auto vs = designator(2, 0x00, text("abc"));
    EXPECT_EQ(vpd::wwidFromPage83(page83({vs})).code(), ENODATA);
    auto udev = vpd::wwidFromPage83(page83({vs}), vpd::Order::Udev, "QEMU", "QEMU HARDDISK");
    ASSERT_TRUE(udev) << udev.error().message;
    EXPECT_EQ(*udev, "0QEMU_QEMU_HARDDISK_abc");
    auto scsiId = vpd::wwidFromPage83(page83({vs}), vpd::Order::ScsiId, "ACMECORP", "X");
    ASSERT_TRUE(scsiId) << scsiId.error().message;
    EXPECT_EQ(*scsiId, "0ACMECORPX_abc");
}

TEST(Vpd, ScsiNameStringComesBeforeT10VendorIdForUdevOnly) {
    auto nulPadded = text("iqn.2003-01.org.example:disk1");
    nulPadded.insert(nulPadded.end(), {0, 0, 0});
    auto name = designator(3, 0x08, nulPadded);
    auto udev = vpd::wwidFromPage83(page83({kT10, name}));
    ASSERT_TRUE(udev) << udev.error().message;
    EXPECT_EQ(*udev, "8iqn.2003-01.org.example:disk1");
    auto scsiId = vpd::wwidFromPage83(page83({kT10, name}), vpd::Order::ScsiId);
    ASSERT_TRUE(scsiId) << scsiId.error().message;
    EXPECT_EQ(*scsiId, "1Linux_scsi_debug_2000");
    EXPECT_EQ(vpd::wwidFromPage83(page83({name}), vpd::Order::ScsiId).code(), ENODATA);
}

TEST(Vpd, Scsi2StylePageGivesHexOfWholeIdentifier) {
    std::vector<uint8_t> p{0, 0x83, 0, 4, 0x00, 0x60, 0x48, 0x12};
    auto wwid = vpd::wwidFromPage83(p, vpd::Order::ScsiId);
    ASSERT_TRUE(wwid) << wwid.error().message;
    EXPECT_EQ(*wwid, "300604812");
}

TEST(Vpd, FindsTargetPortGroupOfThePort) {
    auto group = vpd::targetPortGroupFromPage83(page83({kNaa6, kTpg}));
    ASSERT_TRUE(group) << group.error().message;
    EXPECT_EQ(*group, 0x102);
    EXPECT_EQ(vpd::targetPortGroupFromPage83(page83({kNaa6})).code(), ENODATA);
}

TEST(Vpd, Page80SerialLosesSurroundingBlanks) {
    std::vector<uint8_t> p{0, 0x80, 0, 8, ' ', 'S', 'N', '1', '2', ' ', ' ', 0};
    auto serial = vpd::parsePage80(p);
    ASSERT_TRUE(serial) << serial.error().message;
    EXPECT_EQ(*serial, "SN12");
    std::vector<uint8_t> blank{0, 0x80, 0, 2, ' ', ' '};
    EXPECT_EQ(vpd::parsePage80(blank).code(), ENODATA);
}

TEST(Vpd, UdevSanitizeMatchesScsiIdExport) {
    EXPECT_EQ(vpd::udevSanitize("  QEMU    QEMU HARDDISK  "), "QEMU_QEMU_HARDDISK");
    EXPECT_EQ(vpd::udevSanitize("a*b(c)"), "a_b_c_");
    EXPECT_EQ(vpd::udevSanitize("a/b.c:d"), "a/b.c:d");
    EXPECT_EQ(vpd::udevSanitize("caf\xc3\xa9"), "caf\xc3\xa9");
    EXPECT_EQ(vpd::udevSanitize("bad\xff"), "bad_");
}

TEST(Vpd, TargetPortGroupSupportIsBitsFiveAndFourOfInquiryByteFive) {
    std::vector<uint8_t> inquiry{0x00, 0x00, 0x06, 0x02, 31, 0x00, 0x00, 0x02};
    auto tpgs = [&] {
        auto r = vpd::targetPortGroupSupport(inquiry);
        EXPECT_TRUE(r) << r.error().message;
        return r.valueOr(-1);
    };
    EXPECT_EQ(tpgs(), 0);
    inquiry[5] = 0x10;
    EXPECT_EQ(tpgs(), 1);
    inquiry[5] = 0x20 | 0x01; // PROTECT does not count
    EXPECT_EQ(tpgs(), 2);
    inquiry[5] = 0xff;
    EXPECT_EQ(tpgs(), 3);
    inquiry.resize(5);
    EXPECT_EQ(vpd::targetPortGroupSupport(inquiry).code(), EINVAL);
}
