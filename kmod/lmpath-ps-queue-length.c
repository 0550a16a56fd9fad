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

#include "lmpath-ps.h"

struct ql_path {
	struct lmpath_ps_path *path;
	unsigned int repeat_count;	/* constant after add_path */
	atomic_t qlen;			/* I/Os in flight on this path */
};

struct ql_selector {
	struct lmpath_ps_paths base;	/* cursor: where this CPU's scan starts */
	struct ql_path paths[];
};

static const struct lmpath_ps_spec ql_spec =
	LMPATH_PS_SPEC("queue-length", LMPATH_PS_CURSOR, 1);

static int ql_create(struct lmpath_ps *ps, unsigned int nr_paths,
		     unsigned int argc, char **argv)
{
	struct ql_selector *s;

	/* Selector arguments are accepted and ignored, as by the stock one. */
	s = lmpath_ps_alloc(ps, struct_size(s, paths, nr_paths), nr_paths,
			    &ql_spec);
	return s ? 0 : -ENOMEM;
}

static int ql_add_path(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		       unsigned int argc, char **argv, char **error)
{
	struct ql_selector *s = ps->context;
	unsigned int repeat_count;
	struct ql_path *qp;
	int i;

	if (lmpath_ps_read_repeat_count(&s->base, argc, argv, &repeat_count,
					error))
		return -EINVAL;

	i = lmpath_ps_add_slot(&s->base, error);
	if (i < 0)
		return i;

	qp = &s->paths[i];
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
	unsigned int n = s->base.nr_paths;
	struct ql_path *best = NULL;
	int best_qlen = 0;
	unsigned int i, idx;

	if (!n)
		return NULL;

	idx = lmpath_ps_scan_start(&s->base);
	for (i = 0; i < n; i++) {
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
	.destroy	= lmpath_ps_free,
	.add_path	= ql_add_path,
	.select_path	= ql_select_path,
	.start_io	= ql_start_io,
	.end_io		= ql_end_io,
	.status		= ql_status,
};
