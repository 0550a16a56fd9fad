#!/usr/bin/env python3
"""Map instruction-counter windows (insn-count.c) to guest functions.

usage: lab/insn/insn_report.py KALLSYMS WINDOW N [--top N] [--module MOD]...

Prints the guest kernel's instructions and atomic instructions per I/O in
a window of N I/Os (lab/insn/aio-read.c), by function, heaviest first.
Functions that spin or idle (IDLE) are left out of the kernel total;
user-space instructions are counted apart.  bench/datapath imports this
file for its table."""

import argparse
import bisect
import re
import sys

# Functions whose instruction count measures waiting, not work: the idle
# loop of the other vCPU and spinning on a contended lock.
IDLE = re.compile(r"^(do_idle|cpu_startup_entry|cpu_idle_poll|default_idle(_call)?|"
                  r"arch_cpu_idle(_enter|_exit)?|native_safe_halt|.*cpuidle.*|poll_idle|"
                  r"mwait_idle.*|intel_idle.*|acpi_idle.*|tick_nohz_idle_.*|"
                  r"(native_|__pv_)?queued_spin_lock_slowpath|"
                  r"__?cpu_relax|rep_nop|delay_tsc|delay_halt.*|__const_udelay)$")
# The out-of-line spin lock acquisitions of x86 (each one atomic).
SPIN_LOCK = re.compile(r"^_raw_(spin|read|write)_(try)?lock(_irqsave|_irq|_bh)?$")
USER_TOP = 1 << 47


class Symbols:
    """Text symbols of a guest's /proc/kallsyms, looked up by address."""

    def __init__(self, lines):
        syms = []
        for line in lines:
            w = line.split()
            if len(w) < 3 or w[1] not in "tTwW":
                continue
            addr = int(w[0], 16)
            if addr == 0:
                continue
            mod = w[3].strip("[]") if len(w) > 3 else "vmlinux"
            syms.append((addr, w[2], mod))
        syms.sort()
        self.addrs = [s[0] for s in syms]
        self.syms = syms

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls(f)

    def lookup(self, addr):
        """(function, module) holding addr; ("?", "?") below every symbol."""
        if addr < USER_TOP:
            return ("[user]", "[user]")
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return ("?", "?")
        return self.syms[i][1], self.syms[i][2]


def read_window(path):
    """(tbs, locks): [(vaddr, ninsns, execs)], [(vaddr, execs)]."""
    tbs, locks = [], []
    total = None
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "tb":
                tbs.append((int(w[1], 16), int(w[2]), int(w[3])))
            elif w[0] == "lock":
                locks.append((int(w[1], 16), int(w[2])))
            elif w[0] == "total":
                total = int(w[1])
    if total is None:
        raise ValueError(f"{path}: no total line (window not closed)")
    return tbs, locks


def profile(syms, window):
    """{(module, function): [instructions, atomics]} of one window; a block
    counts to the function its first instruction is in."""
    tbs, locks = window
    prof = {}
    for vaddr, n, execs in tbs:
        name, mod = syms.lookup(vaddr)
        prof.setdefault((mod, name), [0, 0])[0] += n * execs
    for vaddr, execs in locks:
        name, mod = syms.lookup(vaddr)
        prof.setdefault((mod, name), [0, 0])[1] += execs
    return prof


def per_io(prof, n):
    """Per-I/O counts of a window of n I/Os."""
    return {k: [v[0] / n, v[1] / n] for k, v in prof.items()}


def summary(prof, own_modules):
    """The totals bench/datapath prints: kernel instructions and atomics per
    I/O (idle and spin left out), those of own_modules, spin lock
    acquisitions, user instructions."""
    s = {"kernel": 0.0, "kernel_atomics": 0.0, "own": 0.0, "own_atomics": 0.0,
         "spin_locks": 0.0, "user": 0.0, "idle": 0.0}
    for (mod, name), (insns, atomics) in prof.items():
        if mod == "[user]":
            s["user"] += insns
            continue
        if IDLE.match(name):
            s["idle"] += insns
            continue
        s["kernel"] += insns
        s["kernel_atomics"] += atomics
        if SPIN_LOCK.match(name):
            s["spin_locks"] += atomics
        if mod in own_modules:
            s["own"] += insns
            s["own_atomics"] += atomics
    return s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kallsyms")
    p.add_argument("window")
    p.add_argument("n", type=int)
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--module", action="append", default=[],
                   help="list only this module's functions (repeatable)")
    args = p.parse_args()
    syms = Symbols.load(args.kallsyms)
    prof = per_io(profile(syms, read_window(args.window)), args.n)
    s = summary(prof, set(args.module))
    print(f"per I/O: kernel {s['kernel']:.1f} instructions, {s['kernel_atomics']:.2f} atomics "
          f"({s['spin_locks']:.2f} spin locks); user {s['user']:.1f}; idle/spin {s['idle']:.1f}")
    if args.module:
        print(f"  {'+'.join(args.module)}: {s['own']:.1f} instructions, "
              f"{s['own_atomics']:.2f} atomics")
    rows = sorted(((k, v) for k, v in prof.items()
                   if not args.module or k[0] in args.module), key=lambda kv: -kv[1][0])
    print(f"{'insns/IO':>9} {'atomics':>7}  function [module]")
    for (mod, name), (insns, atomics) in rows[:args.top]:
        if abs(insns) < 0.05 and abs(atomics) < 0.005:
            continue
        print(f"{insns:9.1f} {atomics:7.2f}  {name} [{mod}]")


if __name__ == "__main__":
    sys.exit(main())
