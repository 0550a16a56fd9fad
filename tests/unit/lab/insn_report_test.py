#!/usr/bin/env python3
"""lab/insn/insn_report.py: blocks land in the function (and module) their
first instruction is in, counts are divided by the window's I/Os,
idle and spin functions stay out of the kernel total."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "lab", "insn"))
import insn_report  # noqa: E402

KALLSYMS = """\
ffffffff81000000 T _stext
ffffffff81001000 T submit_bio
ffffffff81002000 t default_idle
ffffffff81003000 T _raw_spin_lock_irqsave
ffffffff81004000 D some_data
ffffffffc0001000 t lmpath_map_bio\t[dm_lmpath]
ffffffffc0001400 t lmpath_end_io\t[dm_lmpath]
"""


def window(lines):
    f = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    f.write("window 1\n" + "".join(l + "\n" for l in lines) + "total 0\n")
    f.close()
    return f.name


class InsnReport(unittest.TestCase):
    def setUp(self):
        self.syms = insn_report.Symbols(KALLSYMS.splitlines())

    def test_maps_addresses_to_functions_and_modules(self):
        self.assertEqual(self.syms.lookup(0xffffffff81001010), ("submit_bio", "vmlinux"))
        self.assertEqual(self.syms.lookup(0xffffffffc0001404), ("lmpath_end_io", "dm_lmpath"))
        self.assertEqual(self.syms.lookup(0xffffffff81004010), ("_raw_spin_lock_irqsave",
                                                                 "vmlinux"))  # data skipped
        self.assertEqual(self.syms.lookup(0x401000), ("[user]", "[user]"))
        self.assertEqual(self.syms.lookup(0xffffffff80000000), ("?", "?"))

    def test_counts_per_io_by_function(self):
        w = window(["tb ffffffffc0001000 10 100", "tb ffffffffc0001000 10 100",
                     "tb ffffffffc0001410 6 200", "tb ffffffff81002000 5 9000",
                     "tb ffffffff81003000 4 200", "lock ffffffff81003002 200"])
        prof = insn_report.per_io(insn_report.profile(self.syms, insn_report.read_window(w)), 200)
        os.unlink(w)
        self.assertEqual(prof[("dm_lmpath", "lmpath_map_bio")], [10.0, 0.0])
        self.assertEqual(prof[("dm_lmpath", "lmpath_end_io")], [6.0, 0.0])
        s = insn_report.summary(prof, {"dm_lmpath"})
        self.assertEqual(s["own"], 16.0)
        self.assertEqual(s["kernel"], 20.0)  # default_idle left out
        self.assertEqual(s["spin_locks"], 1.0)
        self.assertEqual(s["kernel_atomics"], 1.0)
        self.assertEqual(s["user"], 0.0)

    def test_rejects_a_window_that_was_not_closed(self):
        f = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
        f.write("window 1\ntb ffffffff81001000 3 1\n")
        f.close()
        with self.assertRaises(ValueError):
            insn_report.read_window(f.name)
        os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
