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
#include <linux/slab.h>

#include "lmpath-ps.h"

#define DM_MSG_PREFIX "lmpath round-robin"
#define RR_MIN_IO 1

struct rr_path {
	struct lmpath_ps_path *path;
	unsigned int repeat_count;	/* constant after add_path */
};

struct rr_selector {
	unsigned int nr_paths;		/* constant after the constructor */
	unsigned int capacity;
	unsigned int __percpu *cursor;	/* next index to try, per CPU */
	struct rr_path paths[];
};

static int rr_create(struct lmpath_ps *ps, unsigned int nr_paths,
		     unsigned int argc, char **argv)
{
	struct rr_selector *s;
	unsigned int cpu;

	/* Selector arguments are accepted and ignored, as by the stock one. */
	s = kzalloc(struct_size(s, paths, nr_paths), GFP_KERNEL);
	if (!s)
		return -ENOMEM;

	s->cursor = alloc_percpu(unsigned int);
	if (!s->cursor) {
		kfree(s);
		return -ENOMEM;
	}

	/* Start CPUs on different paths so they do not move in lockstep. */
	for_each_possible_cpu(cpu)
		*per_cpu_ptr(s->cursor, cpu) = cpu;

	s->capacity = nr_paths;
	ps->context = s;
	return 0;
}

static void rr_destroy(struct lmpath_ps *ps)
{
	struct rr_selector *s = ps->context;

	free_percpu(s->cursor);
	kfree(s);
	ps->context = NULL;
}

static int rr_add_path(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		       unsigned int argc, char **argv, char **error)
{
	struct rr_selector *s = ps->context;
	unsigned int repeat_count = RR_MIN_IO;
	struct rr_path *rp;
	char dummy;

	if (argc > 1) {
		*error = "round-robin ps: incorrect number of arguments";
		return -EINVAL;
	}

	if (argc == 1 && sscanf(argv[0], "%u%c", &repeat_count, &dummy) != 1) {
		*error = "round-robin ps: invalid repeat count";
		return -EINVAL;
	}

	if (repeat_count > 1) {
		DMWARN_LIMIT("repeat_count > 1 is deprecated, using 1 instead");
		repeat_count = 1;
	}

	if (s->nr_paths >= s->capacity) {
		*error = "round-robin ps: too many paths";
		return -EINVAL;
	}

	rp = &s->paths[s->nr_paths++];
	rp->path = path;
	rp->repeat_count = repeat_count;
	path->context = rp;
	return 0;
}

static struct lmpath_ps_path *rr_select_path(struct lmpath_ps *ps,
					     size_t nr_bytes)
{
	struct rr_selector *s = ps->context;
	unsigned int n = s->nr_paths;
	unsigned int i, idx;

	if (!n)
		return NULL;

	/*
	 * A preemption between the read and the write below only makes two
	 * CPUs share a starting point once; it never picks an unusable path.
	 */
	idx = this_cpu_read(*s->cursor) % n;
	for (i = 0; i < n; i++) {
		struct lmpath_ps_path *p = s->paths[idx].path;

		if (++idx == n)
			idx = 0;
		if (lmpath_ps_path_usable(p)) {
			this_cpu_write(*s->cursor, idx);
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
	.destroy	= rr_destroy,
	.add_path	= rr_add_path,
	.select_path	= rr_select_path,
	.status		= rr_status,
};
