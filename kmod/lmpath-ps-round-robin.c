// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-lmpath round-robin path selector.
 *
 * Every CPU walks the path array with its own cursor, so consecutive I/O
 * from one CPU alternates paths and no cache line is written by more than
 * one CPU per I/O.  The path array is fixed after the constructor; path
 * failures show up as the core's LMPP_USABLE bit, read here without a lock.
 *
 * Table arguments per path: [<repeat_count>].  As in the stock selector a
 * repeat_count above 1 is deprecated and stored (and printed) as 1.
 */
#include <linux/device-mapper.h>
#include <linux/percpu.h>

#include "lmpath-ps.h"

struct rr_path {
	struct lmpath_ps_path *path;
	unsigned int repeat_count;	/* constant after add_path */
};

struct rr_selector {
	struct lmpath_ps_paths base;	/* cursor: next index to try */
	struct rr_path paths[];
};

static const struct lmpath_ps_spec rr_spec =
	LMPATH_PS_SPEC("round-robin", LMPATH_PS_CURSOR, 1);

static int rr_create(struct lmpath_ps *ps, unsigned int nr_paths,
		     unsigned int argc, char **argv)
{
	struct rr_selector *s;

	/* Selector arguments are accepted and ignored, as by the stock one. */
	s = lmpath_ps_alloc(ps, struct_size(s, paths, nr_paths), nr_paths,
			    &rr_spec);
	return s ? 0 : -ENOMEM;
}

static int rr_add_path(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		       unsigned int argc, char **argv, char **error)
{
	struct rr_selector *s = ps->context;
	unsigned int repeat_count;
	struct rr_path *rp;
	int i;

	if (lmpath_ps_read_repeat_count(&s->base, argc, argv, &repeat_count,
					error))
		return -EINVAL;

	i = lmpath_ps_add_slot(&s->base, error);
	if (i < 0)
		return i;

	rp = &s->paths[i];
	rp->path = path;
	rp->repeat_count = repeat_count;
	path->context = rp;
	return 0;
}

static struct lmpath_ps_path *rr_select_path(struct lmpath_ps *ps,
					     size_t nr_bytes)
{
	struct rr_selector *s = ps->context;
	unsigned int n = s->base.nr_paths;
	unsigned int i, idx;

	if (!n)
		return NULL;

	/*
	 * A preemption between the read and the write below only makes two
	 * CPUs share a starting point once.
	 */
	idx = this_cpu_read(*s->base.cursor) % n;
	for (i = 0; i < n; i++) {
		struct lmpath_ps_path *p = s->paths[idx].path;

		if (++idx == n)
			idx = 0;
		if (lmpath_ps_path_usable(p)) {
			this_cpu_write(*s->base.cursor, idx);
			return p;
		}
	}

	return NULL;
}

static int rr_status(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		     status_type_t type, char *result, unsigned int maxlen)
{
	struct rr_path *rp;
	unsigned int sz = 0;

	if (!path) {
		DMEMIT("0 ");
		return sz;
	}

	switch (type) {
	case STATUSTYPE_INFO:
		break;
	case STATUSTYPE_TABLE:
		rp = path->context;
		DMEMIT("%u ", rp->repeat_count);
		break;
	case STATUSTYPE_IMA:
		*result = '\0';
		break;
	}

	return sz;
}

const struct lmpath_ps_type lmpath_ps_round_robin = {
	.name		= "round-robin",
	.table_args	= 1,
	.info_args	= 0,
	.create		= rr_create,
	.destroy	= lmpath_ps_free,
	.add_path	= rr_add_path,
	.select_path	= rr_select_path,
	.status		= rr_status,
};
