/*
 * What the instruction counter needs to know about one x86-64 instruction,
 * from its bytes alone: is it one of the two window markers, or an atomic
 * read-modify-write (a LOCK prefix, or XCHG with a memory operand, which
 * the CPU locks without one).  Pure, so the unit test can drive it.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

enum insn_kind {
    INSN_PLAIN,
    INSN_LOCKED,
    INSN_MARK_ON,  /* xchg %bx,%bx: 66 87 db, from user space */
    INSN_MARK_OFF, /* xchg %cx,%cx: 66 87 c9, from user space */
};

/* User-space addresses are the lower half of the 48-bit address space. */
static inline int insn_is_user(uint64_t vaddr) {
    return vaddr < (1ULL << 47);
}

static inline enum insn_kind insn_classify(const uint8_t *b, size_t n, uint64_t vaddr) {
    size_t i = 0;
    int lock = 0;

    if (n == 3 && b[0] == 0x66 && b[1] == 0x87 && insn_is_user(vaddr)) {
        if (b[2] == 0xdb)
            return INSN_MARK_ON;
        if (b[2] == 0xc9)
            return INSN_MARK_OFF;
    }
    /* Legacy prefixes in any order, then at most one REX prefix. */
    for (; i < n; i++) {
        uint8_t p = b[i];
        if (p == 0xf0)
            lock = 1;
        else if (!(p == 0xf2 || p == 0xf3 || p == 0x2e || p == 0x36 || p == 0x3e || p == 0x26 ||
                   p == 0x64 || p == 0x65 || p == 0x66 || p == 0x67))
            break;
    }
    if (lock)
        return INSN_LOCKED;
    if (i < n && (b[i] & 0xf0) == 0x40)
        i++;
    if (i + 1 < n && (b[i] == 0x86 || b[i] == 0x87) && (b[i + 1] >> 6) != 3)
        return INSN_LOCKED;
    return INSN_PLAIN;
}
