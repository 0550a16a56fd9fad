// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-lmpath historical-service-time path selector.
 *
 * Keeps, per path, a time-weighted exponential moving average of measured
 * service times, and picks the path whose average times (1 + I/Os in
 * flight) is lowest.  A path that has completed nothing for longer than
 * (average * usable paths) is "stale": when unloaded it gets one probing
 * I/O, when loaded it is limited to an equal share, so a path that looked
 * slow once is not starved forever.
 *
 * Weights are precomputed per ~16 ms bucket of elapsed time, as in the
 * stock selector.  Unlike the stock selector there is no per-path lock:
 * the average is updated with a compare-and-exchange loop, the other
 * per-path fields are atomics read once per scan.
 *
 * Selector arguments: [<base_weight> [<threshold_multiplier>]]
 *   base_weight: EMA weight, 10-bit fixed point in [0, 1024), default 972
 *   threshold_multiplier: paths count as different only when one average
 *                         exceeds the other times this, default 0
 * Per-path arguments: [<repeat_count>] (accepted, printed as 0)
 */
#include <linux/atomic.h>
#include <linux/device-mapper.h>
#include <linux/ktime.h>

#include "lmpath-ps.h"

#define HST_FIXED_SHIFT 10		/* 10 bits of fraction */
#define HST_FIXED_MAX (ULLONG_MAX >> HST_FIXED_SHIFT)
#define HST_FIXED_1 (1 << HST_FIXED_SHIFT)
#define HST_FIXED_95 972
#define HST_MAX_INFLIGHT HST_FIXED_1
#define HST_BUCKET_SHIFT 24		/* buckets of ~16 ms */
#define HST_WEIGHT_COUNT 64ULL

struct hst_path {
	struct lmpath_ps_path *path;
	atomic64_t service_time;	/* EMA of service time, fixed point */
	atomic64_t outstanding;		/* I/Os in flight */
	atomic64_t stale_after;		/* ns; stale when now is past this */
	atomic64_t last_finish;		/* ns of the latest completion */
};

struct hst_selector {
	struct lmpath_ps_paths base;	/* cursor: where this CPU's scan starts */
	atomic_t valid_count;		/* usable paths; slow path writes */
	unsigned int threshold_multiplier;	/* constant */
	unsigned int weights[HST_WEIGHT_COUNT];	/* constant */
	struct hst_path paths[];
};

/* As in stock, any repeat_count is taken without a warning (and printed as 0). */
static const struct lmpath_ps_spec hst_spec =
	LMPATH_PS_SPEC("historical-service-time",
		       LMPATH_PS_CURSOR | LMPATH_PS_KEEP_REPEAT, 1);

/* x^n for a fixed-point x with @frac_bits of fraction, in O(log n). */
static u64 hst_fixed_power(u64 x, unsigned int frac_bits, unsigned int n)
{
	u64 result = 1ULL << frac_bits;

	while (n) {
		if (n & 1) {
			result *= x;
			result += 1ULL << (frac_bits - 1);
			result >>= frac_bits;
		}
		n >>= 1;
		if (!n)
			break;
		x *= x;
		x += 1ULL << (frac_bits - 1);
		x >>= frac_bits;
	}

	return result;
}

/* Next EMA value: last * weight + next * (1 - weight), fixed point. */
static u64 hst_fixed_ema(u64 last, u64 next, u64 weight)
{
	last *= weight;
	last += next * (HST_FIXED_1 - weight);
	last += 1ULL << (HST_FIXED_SHIFT - 1);
	return last >> HST_FIXED_SHIFT;
}

static u64 hst_weight(const struct hst_selector *s, u64 delta)
{
	u64 bucket = min(delta >> HST_BUCKET_SHIFT, HST_WEIGHT_COUNT - 1);

	return s->weights[bucket];
}

/* weights[n] = base^(n + 1), and the last bucket forgets history. */
static void hst_set_weights(struct hst_selector *s, unsigned int base)
{
	unsigned int i;

	for (i = 0; i < HST_WEIGHT_COUNT - 1; i++)
		s->weights[i] = hst_fixed_power(base, HST_FIXED_SHIFT, i + 1);
	s->weights[HST_WEIGHT_COUNT - 1] = 0;
}

static int hst_create(struct lmpath_ps *ps, unsigned int nr_paths,
		      unsigned int argc, char **argv)
{
	unsigned int base_weight = HST_FIXED_95;
	unsigned int threshold_multiplier = 0;
	struct hst_selector *s;
	char dummy;

	if (argc > 2)
		return -EINVAL;

	if (argc && (sscanf(argv[0], "%u%c", &base_weight, &dummy) != 1 ||
		     base_weight >= HST_FIXED_1))
		return -EINVAL;

	if (argc > 1 &&
	    sscanf(argv[1], "%u%c", &threshold_multiplier, &dummy) != 1)
		return -EINVAL;

	s = lmpath_ps_alloc(ps, struct_size(s, paths, nr_paths), nr_paths,
			    &hst_spec);
	if (!s)
		return -ENOMEM;

	atomic_set(&s->valid_count, 0);
	hst_set_weights(s, base_weight);
	s->threshold_multiplier = threshold_multiplier;
	return 0;
}

static int hst_add_path(struct lmpath_ps *ps, struct lmpath_ps_path *path,
			unsigned int argc, char **argv, char **error)
{
	struct hst_selector *s = ps->context;
	unsigned int repeat_count;
	struct hst_path *hp;
	int i;

	/* Read only to be checked: TABLE status prints 0 as stock does. */
	if (lmpath_ps_read_repeat_count(&s->base, argc, argv, &repeat_count,
					error))
		return -EINVAL;

	i = lmpath_ps_add_slot(&s->base, error);
	if (i < 0)
		return i;

	hp = &s->paths[i];
	hp->path = path;
	atomic64_set(&hp->service_time, HST_FIXED_1);
	atomic64_set(&hp->outstanding, 0);
	atomic64_set(&hp->stale_after, 0);
	atomic64_set(&hp->last_finish, 0);
	atomic_inc(&s->valid_count);
	path->context = hp;
	return 0;
}

static void hst_fail_path(struct lmpath_ps *ps, struct lmpath_ps_path *path)
{
	struct hst_selector *s = ps->context;

	atomic_dec(&s->valid_count);
}

static void hst_reinstate_path(struct lmpath_ps *ps,
			       struct lmpath_ps_path *path)
{
	struct hst_selector *s = ps->context;

	atomic_inc(&s->valid_count);
}

/* One consistent-enough reading of a path for a comparison. */
struct hst_snap {
	struct hst_path *hp;
	u64 hst;
	long long out;
	long long stale;
};

static void hst_snapshot(struct hst_path *hp, struct hst_snap *snap)
{
	snap->hp = hp;
	snap->hst = atomic64_read(&hp->service_time);
	snap->out = atomic64_read(&hp->outstanding);
	snap->stale = atomic64_read(&hp->stale_after);
}

/*
 * Compare the estimated service time of two paths for the next I/O.
 * Negative: @a is better; positive: @b is better; 0: no difference.
 */
static long long hst_compare(const struct hst_selector *s,
			     const struct hst_snap *a, const struct hst_snap *b,
			     u64 now)
{
	long long out1 = a->out, out2 = b->out;
	long long stale1 = a->stale, stale2 = b->stale;
	u64 hst1 = a->hst, hst2 = b->hst;
	bool b_better, over_threshold;

	/* Averages too close to tell apart: compare load only. */
	if (hst1 > hst2)
		over_threshold = hst1 > (s->threshold_multiplier * hst2);
	else
		over_threshold = hst2 > (s->threshold_multiplier * hst1);

	if (!over_threshold)
		return out1 - out2;

	/*
	 * An unloaded stale path gets a probe; of two unloaded paths the
	 * staler one wins; a loaded path loses to an unloaded one.
	 */
	if ((!out1 && stale1 < (long long)now) ||
	    (!out2 && stale2 < (long long)now) || (!out1 && !out2))
		return (!out2 * stale1) - (!out1 * stale2);

	if (out1 == out2) {
		b_better = hst1 > hst2;
	} else {
		/* Keep (1 + out) * hst from overflowing. */
		if (unlikely(out1 >= HST_MAX_INFLIGHT ||
			     out2 >= HST_MAX_INFLIGHT)) {
			hst1 >>= HST_FIXED_SHIFT;
			hst2 >>= HST_FIXED_SHIFT;
		}
		b_better = (1 + out1) * hst1 > (1 + out2) * hst2;
	}

	/* A stale winner only gets an equal share. */
	if (b_better)
		return stale2 < (long long)now ? out1 - out2 : 1;

	return stale1 < (long long)now ? out1 - out2 : -1;
}

static struct lmpath_ps_path *hst_select_path(struct lmpath_ps *ps,
					      size_t nr_bytes)
{
	struct hst_selector *s = ps->context;
	unsigned int n = s->base.nr_paths;
	struct hst_snap best = { .hp = NULL }, cur;
	u64 now = ktime_get_ns();
	unsigned int i, idx;

	if (!n)
		return NULL;

	idx = lmpath_ps_scan_start(&s->base);
	for (i = 0; i < n; i++) {
		struct hst_path *hp = &s->paths[idx];

		if (++idx == n)
			idx = 0;
		if (!lmpath_ps_path_usable(hp->path))
			continue;
		hst_snapshot(hp, &cur);
		if (!best.hp || hst_compare(s, &cur, &best, now) < 0)
			best = cur;
	}

	return best.hp ? best.hp->path : NULL;
}

static void hst_start_io(struct lmpath_ps *ps, struct lmpath_ps_path *path,
			 size_t nr_bytes)
{
	struct hst_path *hp = path->context;

	atomic64_inc(&hp->outstanding);
}

static void hst_end_io(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		       size_t nr_bytes, u64 start_time)
{
	struct hst_selector *s = ps->context;
	struct hst_path *hp = path->context;
	u64 now = ktime_get_ns();
	u64 prev, st, sample;
	s64 old, new;

	/*
	 * If another I/O finished after this one was issued, count from that
	 * completion: the path served them one after the other.
	 */
	prev = atomic64_xchg(&hp->last_finish, now);
	if (time_after64(prev, start_time))
		start_time = prev;
	st = time_before64(now, start_time) ? 0 : now - start_time;

	atomic64_dec(&hp->outstanding);

	sample = st > HST_FIXED_MAX >> HST_FIXED_SHIFT ?
		 HST_FIXED_MAX : st << HST_FIXED_SHIFT;
	old = atomic64_read(&hp->service_time);
	do {
		new = hst_fixed_ema(old, sample, hst_weight(s, st));
	} while (!atomic64_try_cmpxchg(&hp->service_time, &old, new));

	/* Completing anything makes the path fresh again. */
	atomic64_set(&hp->stale_after, now + atomic_read(&s->valid_count) *
		     ((u64)new >> HST_FIXED_SHIFT));
}

static int hst_status(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		      status_type_t type, char *result, unsigned int maxlen)
{
	struct hst_selector *s = ps->context;
	struct hst_path *hp;
	unsigned int sz = 0;

	if (!path) {
		DMEMIT("2 %u %u ", s->weights[0], s->threshold_multiplier);
		return sz;
	}

	hp = path->context;
	switch (type) {
	case STATUSTYPE_INFO:
		DMEMIT("%llu %llu %llu ",
		       (unsigned long long)atomic64_read(&hp->service_time),
		       (unsigned long long)atomic64_read(&hp->outstanding),
		       (unsigned long long)atomic64_read(&hp->stale_after));
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("0 ");
		break;
	case STATUSTYPE_IMA:
		*result = '\0';
		break;
	}

	return sz;
}

const struct lmpath_ps_type lmpath_ps_historical_service_time = {
	.name		= "historical-service-time",
	.features	= LMPATH_PS_USE_HR_TIMER,
	.table_args	= 1,
	.info_args	= 3,
	.create		= hst_create,
	.destroy	= lmpath_ps_free,
	.add_path	= hst_add_path,
	.fail_path	= hst_fail_path,
	.reinstate_path	= hst_reinstate_path,
	.select_path	= hst_select_path,
	.start_io	= hst_start_io,
	.end_io		= hst_end_io,
	.status		= hst_status,
};
