// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-lmpath queue-length path selector: pick the usable path with the
 * fewest I/Os in flight.
 *
 * In-flight counts are per-path atomics (start_io/end_io).  Ties are broken
 * by starting each scan one path further on, per CPU, instead of moving
 * list entries under a lock as the stock selector does.
 *
 * Table arguments per path: [<repeat_count>] (above 1 is stored as 1).
 */
#include <linux/atomic.h>
#include <linux/device-mapper.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "lmpath-ps.h"

#define DM_MSG_PREFIX "lmpath queue-length"
#define QL_MIN_IO 1

struct ql_path {
	struct lmpath_ps_path *path;
	unsigned int repeat_count;	/* constant after add_path */
	atomic_t qlen;			/* I/Os in flight on this path */
};

struct ql_selector {
	unsigned int nr_paths;		/* constant after the constructor */
	unsigned int capacity;
	unsigned int __percpu *cursor;	/* where this CPU's next scan starts */
	struct ql_path paths[];
};

static int ql_create(struct lmpath_ps *ps, unsigned int nr_paths,
		     unsigned int argc, char **argv)
{
	struct ql_selector *s;
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
	for_each_possible_cpu(cpu)
		*per_cpu_ptr(s->cursor, cpu) = cpu;

	s->capacity = nr_paths;
	ps->context = s;
	return 0;
}

static void ql_destroy(struct lmpath_ps *ps)
{
	struct ql_selector *s = ps->context;

	free_percpu(s->cursor);
	kfree(s);
	ps->context = NULL;
}

static int ql_add_path(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		       unsigned int argc, char **argv, char **error)
{
	struct ql_selector *s = ps->context;
	unsigned int repeat_count = QL_MIN_IO;
	struct ql_path *qp;
	char dummy;

	if (argc > 1) {
		*error = "queue-length ps: incorrect number of arguments";
		return -EINVAL;
	}

	if (argc == 1 && sscanf(argv[0], "%u%c", &repeat_count, &dummy) != 1) {
		*error = "queue-length ps: invalid repeat count";
		return -EINVAL;
	}

	if (repeat_count > 1) {
		DMWARN_LIMIT("repeat_count > 1 is deprecated, using 1 instead");
		repeat_count = 1;
	}

	if (s->nr_paths >= s->capacity) {
		*error = "queue-length ps: too many paths";
		return -EINVAL;
	}

	qp = &s->paths[s->nr_paths++];
	qp->path = path;
	qp->repeat_count = repeat_count;
	atomic_set(&qp->qlen, 0);
	path->context = qp;
	return 0;
}

static struct lmpath_ps_path *ql_select_path(struct lmpath_ps *ps,
					     size_t nr_bytes)
{
	struct ql_selector *s = ps->context;
	unsigned int n = s->nr_paths;
	struct ql_path *best = NULL;
	int best_qlen = 0;
	unsigned int i, idx, start;

	if (!n)
		return NULL;

	start = this_cpu_inc_return(*s->cursor) % n;
	for (i = 0, idx = start; i < n; i++) {
		struct ql_path *qp = &s->paths[idx];

		if (++idx == n)
			idx = 0;
		if (!lmpath_ps_path_usable(qp->path))
			continue;
		if (!best || atomic_read(&qp->qlen) < best_qlen) {
			best = qp;
			best_qlen = atomic_read(&qp->qlen);
			if (!best_qlen)
				break;
		}
	}

	return best ? best->path : NULL;
}

static void ql_start_io(struct lmpath_ps *ps, struct lmpath_ps_path *path,
			size_t nr_bytes)
{
	struct ql_path *qp = path->context;

	atomic_inc(&qp->qlen);
}

static void ql_end_io(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		      size_t nr_bytes, u64 start_time)
{
	struct ql_path *qp = path->context;

	atomic_dec(&qp->qlen);
}

static int ql_status(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		     status_type_t type, char *result, unsigned int maxlen)
{
	struct ql_path *qp;
	unsigned int sz = 0;

	if (!path) {
		DMEMIT("0 ");
		return sz;
	}

	qp = path->context;
	switch (type) {
	case STATUSTYPE_INFO:
		DMEMIT("%d ", atomic_read(&qp->qlen));
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%u ", qp->repeat_count);
		break;
	case STATUSTYPE_IMA:
		*result = '\0';
		break;
	}

	return sz;
}

const struct lmpath_ps_type lmpath_ps_queue_length = {
	.name		= "queue-length",
	.table_args	= 1,
	.info_args	= 1,
	.create		= ql_create,
	.destroy	= ql_destroy,
	.add_path	= ql_add_path,
	.select_path	= ql_select_path,
	.start_io	= ql_start_io,
	.end_io		= ql_end_io,
	.status		= ql_status,
};
