// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-lmpath: the registry of built-in path selectors.
 *
 * The selectors are linked into dm-lmpath.ko rather than registered with
 * dm-multipath's registry, so the module does not depend on dm-multipath.
 * The table is constant: nothing to lock, nothing to reference-count.
 */
#include <linux/string.h>

#include "lmpath-ps.h"

static const struct lmpath_ps_type *const lmpath_ps_types[] = {
	&lmpath_ps_round_robin,
	&lmpath_ps_queue_length,
	&lmpath_ps_service_time,
	&lmpath_ps_historical_service_time,
	&lmpath_ps_io_affinity,
};

const struct lmpath_ps_type *lmpath_ps_lookup(const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;

	for (i = 0; i < ARRAY_SIZE(lmpath_ps_types); i++)
		if (!strcmp(lmpath_ps_types[i]->name, name))
			return lmpath_ps_types[i];

	return NULL;
}
