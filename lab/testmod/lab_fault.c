// SPDX-License-Identifier: GPL-2.0
/*
 * lab_fault: lets the lab prove that it notices kernel trouble. Loading it
 * with warn=1 triggers one WARNING; the lab's self-test expects the
 * scenario that does so to fail.
 */
#include <linux/module.h>
#include <linux/bug.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "Trigger one WARNING when the module loads");

static int __init lab_fault_init(void)
{
	WARN(warn, "lab_fault: WARNING requested by the lab self-test\n");
	return 0;
}

static void __exit lab_fault_exit(void)
{
}

module_init(lab_fault_init);
module_exit(lab_fault_exit);
MODULE_DESCRIPTION("Fault injection for the mpath VM lab self-test");
MODULE_LICENSE("GPL");
