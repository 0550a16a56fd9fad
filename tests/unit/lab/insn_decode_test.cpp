// The instruction counter's decoder (lab/insn/insn-decode.h): which guest
// instructions open and close a window and which are atomic.
#include "insn-decode.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace {

constexpr uint64_t kUser = 0x401000;
constexpr uint64_t kKernel = 0xffffffff81000000ULL;

insn_kind classify(std::vector<uint8_t> bytes, uint64_t vaddr = kKernel) {
    return insn_classify(bytes.data(), bytes.size(), vaddr);
}

TEST(InsnDecode, RecognisesTheMarkersFromUserSpace) {
    EXPECT_EQ(classify({0x66, 0x87, 0xdb}, kUser), INSN_MARK_ON);
    EXPECT_EQ(classify({0x66, 0x87, 0xc9}, kUser), INSN_MARK_OFF);
}

TEST(InsnDecode, IgnoresMarkerBytesInTheKernel) {
    EXPECT_EQ(classify({0x66, 0x87, 0xdb}), INSN_PLAIN);
    EXPECT_EQ(classify({0x66, 0x87, 0xc9}), INSN_PLAIN);
}

TEST(InsnDecode, CountsLockPrefixedInstructionsAsAtomic) {
    EXPECT_EQ(classify({0xf0, 0x0f, 0xb1, 0x17}), INSN_LOCKED);        // lock cmpxchg
    EXPECT_EQ(classify({0xf0, 0x48, 0x0f, 0xc1, 0x07}), INSN_LOCKED);  // lock xadd
    EXPECT_EQ(classify({0x65, 0xf0, 0xff, 0x00}), INSN_LOCKED);        // gs: lock inc
    EXPECT_EQ(classify({0xf0, 0x80, 0x0f, 0x01}, kUser), INSN_LOCKED); // lock orb
}

TEST(InsnDecode, CountsXchgWithMemoryAsAtomic) {
    EXPECT_EQ(classify({0x87, 0x07}), INSN_LOCKED);       // xchg %eax,(%rdi)
    EXPECT_EQ(classify({0x48, 0x87, 0x07}), INSN_LOCKED); // xchg %rax,(%rdi)
    EXPECT_EQ(classify({0x86, 0x47, 0x08}), INSN_LOCKED); // xchg %al,8(%rdi)
}

TEST(InsnDecode, LeavesRegisterXchgAndPlainInstructionsAlone) {
    EXPECT_EQ(classify({0x48, 0x87, 0xd8}), INSN_PLAIN); // xchg %rbx,%rax
    EXPECT_EQ(classify({0x48, 0x89, 0x07}), INSN_PLAIN); // mov %rax,(%rdi)
    EXPECT_EQ(classify({0x0f, 0xb1, 0x17}), INSN_PLAIN); // cmpxchg without lock
    EXPECT_EQ(classify({0xc3}), INSN_PLAIN);
}

} // namespace
