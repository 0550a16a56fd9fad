// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-lmpath service-time path selector: pick the usable path with the
 * shortest estimated service time, (bytes in flight + this I/O) divided by
 * the path's relative throughput.
 *
 * Bytes in flight are a per-path atomic64 (start_io adds, end_io
 * subtracts).  Ties go to the path found first from a per-CPU rotating
 * start, which spreads equal paths the way the stock selector's list
 * rotation does, without its lock.
 *
 * Table arguments per path: [<repeat_count> [<relative_throughput>]],
 * relative_throughput 0..100 (0: use only when nothing else is usable).
 */
#include <linux/atomic.h>
#include <linux/device-mapper.h>

#include "lmpath-ps.h"

#define ST_MAX_RELATIVE_THROUGHPUT 100
#define ST_MAX_RELATIVE_THROUGHPUT_SHIFT 7
#define ST_MAX_INFLIGHT_SIZE ((u64)-1 >> ST_MAX_RELATIVE_THROUGHPUT_SHIFT)

struct st_path {
	struct lmpath_ps_path *path;
	unsigned int repeat_count;	/* constant after add_path */
	unsigned int relative_throughput; /* constant after add_path */
	atomic64_t in_flight_size;	/* bytes in flight on this path */
};

struct st_selector {
	struct lmpath_ps_paths base;	/* cursor: where this CPU's scan starts */
	struct st_path paths[];
};

static const struct lmpath_ps_spec st_spec =
	LMPATH_PS_SPEC("service-time", LMPATH_PS_CURSOR, 2);

static int st_create(struct lmpath_ps *ps, unsigned int nr_paths,
		     unsigned int argc, char **argv)
{
	struct st_selector *s;

	/* Selector arguments are accepted and ignored, as by the stock one. */
	s = lmpath_ps_alloc(ps, struct_size(s, paths, nr_paths), nr_paths,
			    &st_spec);
	return s ? 0 : -ENOMEM;
}

static int st_add_path(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		       unsigned int argc, char **argv, char **error)
{
	struct st_selector *s = ps->context;
	unsigned int relative_throughput = 1;
	unsigned int repeat_count;
	struct st_path *sp;
	char dummy;
	int i;

	if (lmpath_ps_read_repeat_count(&s->base, argc, argv, &repeat_count,
					error))
		return -EINVAL;

	if (argc == 2 &&
	    (sscanf(argv[1], "%u%c", &relative_throughput, &dummy) != 1 ||
	     relative_throughput > ST_MAX_RELATIVE_THROUGHPUT)) {
		*error = "service-time ps: invalid relative_throughput value";
		return -EINVAL;
	}

	i = lmpath_ps_add_slot(&s->base, error);
	if (i < 0)
		return i;

	sp = &s->paths[i];
	sp->path = path;
	sp->repeat_count = repeat_count;
	sp->relative_throughput = relative_throughput;
	atomic64_set(&sp->in_flight_size, 0);
	path->context = sp;
	return 0;
}

/*
 * Compare the estimated service time of @p1 and @p2 for an incoming I/O of
 * @incoming bytes, given their in-flight byte counts @sz1 and @sz2.
 * Negative: @p1 is better; positive: @p2 is better; 0: equal.
 *
 * The estimate is (in flight + incoming) / relative_throughput; the
 * division is avoided by cross-multiplying, after scaling both sizes down
 * when the product could overflow.
 */
static int st_compare_load(const struct st_path *p1, u64 sz1,
			   const struct st_path *p2, u64 sz2, size_t incoming)
{
	unsigned int rt1 = p1->relative_throughput;
	unsigned int rt2 = p2->relative_throughput;
	u64 st1, st2;

	/* Same throughput: the less loaded path wins. */
	if (rt1 == rt2)
		return sz1 < sz2 ? -1 : sz1 > sz2;

	/* Same load, or one path has no throughput: the faster path wins. */
	if (sz1 == sz2 || !rt1 || !rt2)
		return rt1 > rt2 ? -1 : 1;

	sz1 += incoming;
	sz2 += incoming;
	if (unlikely(sz1 >= ST_MAX_INFLIGHT_SIZE ||
		     sz2 >= ST_MAX_INFLIGHT_SIZE)) {
		sz1 >>= ST_MAX_RELATIVE_THROUGHPUT_SHIFT;
		sz2 >>= ST_MAX_RELATIVE_THROUGHPUT_SHIFT;
	}
	st1 = sz1 * rt2;
	st2 = sz2 * rt1;
	if (st1 != st2)
		return st1 < st2 ? -1 : 1;

	/* Same service time: the faster path wins. */
	return rt1 > rt2 ? -1 : 1;
}

static struct lmpath_ps_path *st_select_path(struct lmpath_ps *ps,
					     size_t nr_bytes)
{
	struct st_selector *s = ps->context;
	unsigned int n = s->base.nr_paths;
	struct st_path *best = NULL;
	u64 best_sz = 0;
	unsigned int i, idx;

	if (!n)
		return NULL;

	idx = lmpath_ps_scan_start(&s->base);
	for (i = 0; i < n; i++) {
		struct st_path *sp = &s->paths[idx];
		u64 sz;

		if (++idx == n)
			idx = 0;
		if (!lmpath_ps_path_usable(sp->path))
			continue;
		sz = atomic64_read(&sp->in_flight_size);
		if (!best || st_compare_load(sp, sz, best, best_sz, nr_bytes) < 0) {
			best = sp;
			best_sz = sz;
		}
	}

	return best ? best->path : NULL;
}

static void st_start_io(struct lmpath_ps *ps, struct lmpath_ps_path *path,
			size_t nr_bytes)
{
	struct st_path *sp = path->context;

	atomic64_add(nr_bytes, &sp->in_flight_size);
}

static void st_end_io(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		      size_t nr_bytes, u64 start_time)
{
	struct st_path *sp = path->context;

	atomic64_sub(nr_bytes, &sp->in_flight_size);
}

static int st_status(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		     status_type_t type, char *result, unsigned int maxlen)
{
	struct st_path *sp;
	unsigned int sz = 0;

	if (!path) {
		DMEMIT("0 ");
		return sz;
	}

	sp = path->context;
	switch (type) {
	case STATUSTYPE_INFO:
		DMEMIT("%lld %u ", (long long)atomic64_read(&sp->in_flight_size),
		       sp->relative_throughput);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%u %u ", sp->repeat_count, sp->relative_throughput);
		break;
	case STATUSTYPE_IMA:
		*result = '\0';
		break;
	}

	return sz;
}

const struct lmpath_ps_type lmpath_ps_service_time = {
	.name		= "service-time",
	.table_args	= 2,
	.info_args	= 2,
	.create		= st_create,
	.destroy	= lmpath_ps_free,
	.add_path	= st_add_path,
	.select_path	= st_select_path,
	.start_io	= st_start_io,
	.end_io		= st_end_io,
	.status		= st_status,
};
