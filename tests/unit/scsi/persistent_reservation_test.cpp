#include "mpath/scsi/persistent_reservation.h"

#include <gtest/gtest.h>

namespace {

using namespace mpath::scsi;

TEST(PersistentReservation, CommandsAreLaidOutAsSpcSaysWithLuScope) {
    EXPECT_EQ(prInCdb(PrIn::ReadKeys, 8192),
              (std::array<uint8_t, 10>{0x5e, 0, 0, 0, 0, 0, 0, 0x20, 0x00, 0}));
    EXPECT_EQ(prInCdb(PrIn::ReadFullStatus, 24),
              (std::array<uint8_t, 10>{0x5e, 3, 0, 0, 0, 0, 0, 0, 24, 0}));
    EXPECT_EQ(prOutCdb(PrOut::Reserve, 5, 24),
              (std::array<uint8_t, 10>{0x5f, 1, 0x05, 0, 0, 0, 0, 0, 24, 0}));
    EXPECT_EQ(prOutCdb(PrOut::RegisterIgnore, 0x15, 24)[2], 0x05) << "the type is a nibble";
    const auto p = encode({0x0102030405060708, 0x123abc, true, true});
    EXPECT_EQ(p[0], 0x01);
    EXPECT_EQ(p[7], 0x08);
    EXPECT_EQ(p[13], 0x12);
    EXPECT_EQ(p[15], 0xbc);
    EXPECT_EQ(p[20], 0x05) << "ALL_TG_PT 0x04, APTPL 0x01";
    EXPECT_EQ(encode({})[20], 0);
}

TEST(PersistentReservation, AllocationLengthsAreMultipathToolsOnes) {
    EXPECT_EQ(defaultAllocationLength(PrIn::ReadKeys), 8192);
    EXPECT_EQ(defaultAllocationLength(PrIn::ReadReservation), 24);
    EXPECT_EQ(defaultAllocationLength(PrIn::ReportCapabilities), 8);
    EXPECT_EQ(defaultAllocationLength(PrIn::ReadFullStatus), 8192);
}

mpath::sys::ScsiCompletion checkCondition(uint8_t key, uint8_t asc = 0, uint8_t ascq = 0) {
    mpath::sys::ScsiCompletion c;
    c.status = 0x02;
    c.driverStatus = 0x08;
    c.sense.assign(18, 0);
    c.sense[0] = 0x70;
    c.sense[2] = key;
    c.sense[12] = asc;
    c.sense[13] = ascq;
    return c;
}

TEST(PersistentReservation, StatusesAreMpathpersistsExitCodes) {
    EXPECT_EQ(prStatus({}), PrSuccess);
    mpath::sys::ScsiCompletion conflict;
    conflict.status = 0x18;
    EXPECT_EQ(prStatus(conflict), PrReservationConflict);
    EXPECT_EQ(prStatus(checkCondition(0x6)), PrUnitAttention);
    EXPECT_EQ(prStatus(checkCondition(0x5, 0x24)), PrIllegalRequest);
    EXPECT_EQ(prStatus(checkCondition(0x2)), PrNotReady);
    EXPECT_EQ(prStatus(checkCondition(0x1)), PrSuccess) << "recovered error";
    EXPECT_EQ(prStatus(checkCondition(0xb)), PrAbortedCommand);
    EXPECT_EQ(prStatus(checkCondition(0x7)), PrOther) << "data protect";
    mpath::sys::ScsiCompletion transport;
    transport.hostStatus = 0x01; // DID_NO_CONNECT
    EXPECT_EQ(prStatus(transport), PrOther);
    mpath::sys::ScsiCompletion busy;
    busy.status = 0x08;
    EXPECT_EQ(prStatus(busy), PrOther);

    EXPECT_TRUE(retryOnSamePath(checkCondition(0x6)));
    EXPECT_TRUE(retryOnSamePath(checkCondition(0x2, 0x04, 0x07)));
    EXPECT_FALSE(retryOnSamePath(checkCondition(0x2, 0x04, 0x02)));
    EXPECT_FALSE(retryOnSamePath(conflict));
}

std::vector<uint8_t> keysAnswer(uint32_t generation, std::vector<uint64_t> keys) {
    std::vector<uint8_t> d(8 + keys.size() * 8, 0);
    d[3] = uint8_t(generation);
    d[7] = uint8_t(keys.size() * 8);
    for (size_t i = 0; i < keys.size(); ++i)
        for (int b = 0; b < 8; ++b)
            d[8 + i * 8 + size_t(b)] = uint8_t(keys[i] >> (56 - 8 * b));
    return d;
}

TEST(PersistentReservation, ReadKeysPrintsAsMultipathTools) {
    EXPECT_EQ(formatPrIn(PrIn::ReadKeys, keysAnswer(0x4, {0x123abc, 0x123abc})),
              "  PR generation=0x4, \t2 registered reservation keys follow:\n"
              "    0x123abc\n    0x123abc\n");
    EXPECT_EQ(formatPrIn(PrIn::ReadKeys, keysAnswer(0x1, {0xffffffffffffffff})),
              "  PR generation=0x1, \t1 registered reservation key follows:\n"
              "    0xffffffffffffffff\n");
    EXPECT_EQ(formatPrIn(PrIn::ReadKeys, keysAnswer(0, {})),
              "  PR generation=0x0, \t0 registered reservation key.\n");
}

TEST(PersistentReservation, ReadReservationPrintsAsMultipathTools) {
    std::vector<uint8_t> none(24, 0);
    none[3] = 7;
    EXPECT_EQ(formatPrIn(PrIn::ReadReservation, none),
              "  PR generation=0x7, there is NO reservation held \n");
    std::vector<uint8_t> held(24, 0);
    held[3] = 9;
    held[7] = 16;
    held[15] = 0xab;
    held[21] = 0x05;
    EXPECT_EQ(formatPrIn(PrIn::ReadReservation, held),
              "  PR generation=0x9, Reservation follows:\n   Key = 0xab\n"
              "  scope = LU_SCOPE, type = Write Exclusive, registrants only\n");
}

TEST(PersistentReservation, FullStatusPrintsEachRegistrationWithItsPort) {
    const std::string iqn = "iqn.2026-01.org.example:host1";
    std::vector<uint8_t> d(8, 0);
    d[3] = 2;
    auto add = [&](uint64_t key, bool holder, bool allPorts, uint16_t rtpi, bool withIqn) {
        std::vector<uint8_t> e(24, 0);
        for (int b = 0; b < 8; ++b)
            e[size_t(b)] = uint8_t(key >> (56 - 8 * b));
        e[12] = uint8_t((allPorts ? 2 : 0) | (holder ? 1 : 0));
        e[13] = holder ? 0x05 : 0;
        e[18] = uint8_t(rtpi >> 8);
        e[19] = uint8_t(rtpi);
        if (withIqn) {
            std::vector<uint8_t> tid(4 + 32, 0);
            tid[0] = 0x05;
            tid[3] = 32;
            std::copy(iqn.begin(), iqn.end(), tid.begin() + 4);
            e[23] = uint8_t(tid.size());
            e.insert(e.end(), tid.begin(), tid.end());
        }
        d.insert(d.end(), e.begin(), e.end());
    };
    add(0x123abc, true, false, 1, true);
    add(0x456, false, true, 0, false);
    const uint32_t length = uint32_t(d.size() - 8);
    d[6] = uint8_t(length >> 8);
    d[7] = uint8_t(length);
    EXPECT_EQ(formatPrIn(PrIn::ReadFullStatus, d),
              "  PR generation=0x2 \n"
              "   Key = 0x123abc\n"
              "      All target ports bit clear\n"
              "      Relative port address: 0x1\n"
              "      << Reservation holder >>\n"
              "      scope: LU_SCOPE,  type: Write Exclusive, registrants only\n"
              "   iSCSI name: " +
                  iqn +
                  "\n"
                  "   Key = 0x456\n"
                  "      All target ports bit set\n"
                  "      not reservation holder\n"
                  "   FCP-2         00 00 00 00 00 00 00 00\n");
}

TEST(PersistentReservation, CapabilitiesKeepMultipathToolsTypeMaskReading) {
    // PTPL_C, ATP_C, SIP_C; TMV with every type; 0.9.4 reads the mask as
    // one 16-bit number, so only byte 5's bits and byte 4's lowest show.
    const std::vector<uint8_t> d{0, 8, 0x0d, 0x81, 0xea, 0x01, 0, 0};
    EXPECT_EQ(formatPrIn(PrIn::ReportCapabilities, d),
              "Report capabilities response:\n"
              "  Compatible Reservation Handling(CRH): 0\n"
              "  Specify Initiator Ports Capable(SIP_C): 1\n"
              "  All Target Ports Capable(ATP_C): 1\n"
              "  Persist Through Power Loss Capable(PTPL_C): 1\n"
              "  Type Mask Valid(TMV): 1\n"
              "  Allow Commands: 0\n"
              "  Persist Through Power Loss Active(PTPL_A): 1\n"
              "    Support indicated in Type mask:\n"
              "      Write Exclusive, all registrants: 0\n"
              "      Exclusive Access, registrants only: 0\n"
              "      Write Exclusive, registrants only: 0\n"
              "      Exclusive Access: 0\n"
              "      Write Exclusive: 0\n"
              "      Exclusive Access, all registrants: 0\n");
    EXPECT_EQ(formatPrIn(PrIn::ReportCapabilities, std::vector<uint8_t>{0, 2, 0, 0}), "");
    // The raw masked values, as 0.9.4 prints them.
    const std::string raw =
        formatPrIn(PrIn::ReportCapabilities, std::vector<uint8_t>{0, 8, 0, 0x80, 0x01, 0x81, 0, 0});
    EXPECT_NE(raw.find("      Write Exclusive, all registrants: 128\n"), std::string::npos) << raw;
    EXPECT_NE(raw.find("      Exclusive Access, all registrants: 256\n"), std::string::npos) << raw;
    EXPECT_NE(raw.find("      Exclusive Access, registrants only: 0\n"), std::string::npos) << raw;
}

TEST(PersistentReservation, AKeyListLongerThanTheAnswerIsCutToTheAnswer) {
    std::vector<uint8_t> d = keysAnswer(1, {0x11, 0x22});
    d[4] = 0xff; // a length of about 4 GiB
    d[5] = 0xff;
    d[6] = 0xff;
    d[7] = 0xf8;
    const RegisteredKeys k = parseKeys(d);
    EXPECT_EQ(k.keys, (std::vector<uint64_t>{0x11, 0x22}));
}

} // namespace
