// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-lmpath: the registry of built-in path selectors, and the bookkeeping
 * they share (lmpath-ps.h).
 *
 * The selectors are linked into dm-lmpath.ko rather than registered with
 * dm-multipath's registry, so the module does not depend on dm-multipath.
 * The table is constant: nothing to lock, nothing to reference-count.
 */
#include <linux/device-mapper.h>
#include <linux/percpu.h>
#include <linux/slab.h>
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

/*
 *---------------------------------------------------------------
 * The selectors' shared bookkeeping (create, add_path, destroy)
 *---------------------------------------------------------------
 */

void *lmpath_ps_alloc(struct lmpath_ps *ps, size_t size, unsigned int nr_paths,
		      const struct lmpath_ps_spec *spec)
{
	struct lmpath_ps_paths *b;
	unsigned int cpu;

	b = kzalloc(size, GFP_KERNEL);
	if (!b)
		return NULL;

	if (spec->flags & LMPATH_PS_CURSOR) {
		b->cursor = alloc_percpu(unsigned int);
		if (!b->cursor) {
			kfree(b);
			return NULL;
		}
		for_each_possible_cpu(cpu)
			*per_cpu_ptr(b->cursor, cpu) = cpu;
	}

	b->spec = spec;
	b->capacity = nr_paths;
	ps->context = b;
	return b;
}

void lmpath_ps_free(struct lmpath_ps *ps)
{
	struct lmpath_ps_paths *b = ps->context;

	free_percpu(b->cursor);
	kfree(b);
	ps->context = NULL;
}

int lmpath_ps_read_repeat_count(const struct lmpath_ps_paths *b,
				unsigned int argc, char **argv,
				unsigned int *repeat_count, char **error)
{
	const struct lmpath_ps_spec *spec = b->spec;
	char dummy;

	*repeat_count = 1;
	if (argc > spec->max_args) {
		*error = spec->bad_nr_args;
		return -EINVAL;
	}

	if (argc && sscanf(argv[0], "%u%c", repeat_count, &dummy) != 1) {
		*error = spec->bad_repeat_count;
		return -EINVAL;
	}

	if (*repeat_count > 1 && !(spec->flags & LMPATH_PS_KEEP_REPEAT)) {
		/* The selector's own prefix, as when each selector said it. */
		pr_warn_ratelimited(DM_NAME ": lmpath %s: repeat_count > 1 is deprecated, using 1 instead\n",
				    spec->name);
		*repeat_count = 1;
	}

	return 0;
}

int lmpath_ps_add_slot(struct lmpath_ps_paths *b, char **error)
{
	if (b->nr_paths >= b->capacity) {
		*error = b->spec->too_many_paths;
		return -EINVAL;
	}

	return b->nr_paths++;
}
