/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-lmpath path selectors: one ops struct, one file per policy.
 *
 * A selector chooses a path inside one priority group.  Its hot hooks
 * (select_path, start_io, end_io) run concurrently on every CPU with no
 * lock held and must take none: they read the path set, which is fixed
 * once the constructor returns, and per-path state through atomics,
 * READ_ONCE() and per-CPU data.  Its cold hooks (create, add_path,
 * destroy, fail_path, reinstate_path, status) are serialised by the core:
 * create/add_path/destroy run with no I/O in flight, fail_path,
 * reinstate_path and status run under the owning map's lock.
 *
 * Selector files include only this header and the kernel primitives listed
 * in SHIM.md, so that they also build in userspace for unit tests.
 */
#ifndef DM_LMPATH_PS_H
#define DM_LMPATH_PS_H

#include <linux/device-mapper.h>
#include <linux/percpu.h>

/*
 * Path state bits in lmpath_ps_path.flags.  The core owns them: it clears
 * LMPP_USABLE with an atomic bitop the moment a path must stop taking I/O
 * (even from end_io), and sets it again on reinstate.  Selectors only read
 * them, through lmpath_ps_path_usable().
 */
#define LMPP_USABLE		0	/* path may be selected */
#define LMPP_FAIL_PENDING	1	/* failed on the fast path, not yet reported */

/*
 * The part of a path that a selector sees.  The core embeds it in its own
 * per-path structure.
 */
struct lmpath_ps_path {
	unsigned long flags;	/* LMPP_* bits, atomic bitops */
	void *context;		/* selector per-path data, set by add_path */
};

static inline bool lmpath_ps_path_usable(const struct lmpath_ps_path *p)
{
	return test_bit(LMPP_USABLE, &p->flags);
}

struct lmpath_ps_type;

/* One selector instance, one per priority group. */
struct lmpath_ps {
	const struct lmpath_ps_type *type;
	void *context;		/* selector per-group data, set by create */
};

/* end_io wants a high-resolution start time (ktime_get_ns) in bio mode */
#define LMPATH_PS_USE_HR_TIMER	0x00000001

struct lmpath_ps_type {
	const char *name;	/* table name, e.g. "round-robin" */
	unsigned int features;	/* LMPATH_PS_* flags */
	unsigned int table_args; /* per-path args printed in TABLE status */
	unsigned int info_args;	/* per-path args printed in INFO status */

	/*
	 * Build a selector from its table arguments.  @nr_paths (1..1024)
	 * bounds the add_path calls that follow, so arrays can be sized once:
	 * it is the group's path count, or 1 when that count is invalid (the
	 * table is then refused before any add_path).  Return 0 or a negative
	 * errno.
	 */
	int (*create)(struct lmpath_ps *ps, unsigned int nr_paths,
		      unsigned int argc, char **argv);

	/* Free everything create and add_path allocated. */
	void (*destroy)(struct lmpath_ps *ps);

	/*
	 * Add a path with its per-path table arguments, in table order.  On
	 * error set *@error to a sentence for the user and return -errno.
	 * The path starts usable.
	 */
	int (*add_path)(struct lmpath_ps *ps, struct lmpath_ps_path *path,
			unsigned int argc, char **argv, char **error);

	/*
	 * Fast path, lock-free: choose a usable path for an I/O of @nr_bytes,
	 * or return NULL when none is usable.
	 */
	struct lmpath_ps_path *(*select_path)(struct lmpath_ps *ps,
					      size_t nr_bytes);

	/*
	 * Slow path, map lock held: the path was taken out of use (its
	 * LMPP_USABLE bit is already clear).  Optional.
	 */
	void (*fail_path)(struct lmpath_ps *ps, struct lmpath_ps_path *path);

	/*
	 * Slow path, map lock held: the path is back (LMPP_USABLE is set
	 * right after this returns).  Optional.
	 */
	void (*reinstate_path)(struct lmpath_ps *ps,
			       struct lmpath_ps_path *path);

	/*
	 * Emit status text: the selector's own arguments when @path is NULL
	 * (count first, as in the table), else the per-path INFO or TABLE
	 * arguments.  Returns the number of characters written.  Optional:
	 * without it the core emits "0 " for the selector and nothing per path.
	 */
	int (*status)(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		      status_type_t type, char *result, unsigned int maxlen);

	/* Fast path, lock-free: an I/O was mapped to @path.  Optional. */
	void (*start_io)(struct lmpath_ps *ps, struct lmpath_ps_path *path,
			 size_t nr_bytes);

	/*
	 * Fast path, lock-free: an I/O mapped by start_io completed.
	 * @start_time is its start in ns (ktime_get_ns() clock).  Optional.
	 */
	void (*end_io)(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		       size_t nr_bytes, u64 start_time);
};

/* lmpath_ps_spec.flags */
#define LMPATH_PS_CURSOR	0x1	/* keep a per-CPU cursor */
#define LMPATH_PS_KEEP_REPEAT	0x2	/* take a repeat_count above 1, no warning */

/* What a selector asks of the shared bookkeeping below; one per selector. */
struct lmpath_ps_spec {
	const char *name;		/* lmpath_ps_type.name, for the log */
	unsigned int flags;		/* LMPATH_PS_* */
	unsigned int max_args;		/* per-path arguments, repeat_count first */
	char *bad_nr_args;		/* add_path errors, worded as stock */
	char *bad_repeat_count;
	char *too_many_paths;
};

/* The spec of selector @sel, with the stock selectors' error messages. */
#define LMPATH_PS_SPEC(sel, fl, max) {					\
	.name			= sel,					\
	.flags			= fl,					\
	.max_args		= max,					\
	.bad_nr_args		= sel " ps: incorrect number of arguments", \
	.bad_repeat_count	= sel " ps: invalid repeat count",	\
	.too_many_paths		= sel " ps: too many paths",		\
}

/*
 * The bookkeeping every selector keeps the same way (lmpath-ps.c): its
 * per-path records in an array in table order, sized by create for the
 * nr_paths it is given and filled by add_path, and (LMPATH_PS_CURSOR) a
 * per-CPU cursor where each CPU's scan of them starts.  A selector's
 * per-group struct starts with this and ends with the array; create calls
 * lmpath_ps_alloc(), add_path lmpath_ps_read_repeat_count() (for a leading
 * [<repeat_count>]) and lmpath_ps_add_slot(), destroy lmpath_ps_free().
 */
struct lmpath_ps_paths {
	const struct lmpath_ps_spec *spec;
	unsigned int nr_paths;		/* filled; constant after the constructor */
	unsigned int capacity;		/* allocated: create's nr_paths */
	unsigned int __percpu *cursor;	/* per CPU; NULL without LMPATH_PS_CURSOR */
};

/*
 * Allocate @size zeroed bytes for a selector struct that starts with a
 * struct lmpath_ps_paths, for @nr_paths paths; with LMPATH_PS_CURSOR also a
 * per-CPU cursor, CPU n's starting at n so that CPUs do not scan in
 * lockstep.  Sets ps->context.  Returns it, or NULL when out of memory.
 */
void *lmpath_ps_alloc(struct lmpath_ps *ps, size_t size, unsigned int nr_paths,
		      const struct lmpath_ps_spec *spec);

/* Free what lmpath_ps_alloc() allocated, and clear ps->context. */
void lmpath_ps_free(struct lmpath_ps *ps);

/*
 * Check add_path's argument count against spec->max_args and read the
 * optional leading <repeat_count> into *@repeat_count (default 1).  Unless
 * LMPATH_PS_KEEP_REPEAT, a value above 1 becomes 1, with a warning, as in
 * the stock selectors that deprecated it.  Returns 0, or -EINVAL
 * with *@error set.
 */
int lmpath_ps_read_repeat_count(const struct lmpath_ps_paths *b,
				unsigned int argc, char **argv,
				unsigned int *repeat_count, char **error);

/*
 * Take the next record, counted at once so that destroy also frees what a
 * failed add_path left in it.  Returns its index, or -EINVAL with *@error
 * set when create was told of fewer paths.
 */
int lmpath_ps_add_slot(struct lmpath_ps_paths *b, char **error);

/*
 * Fast path: where this CPU's next scan of the records starts, one further
 * on each call, so that ties go to each path in turn.  Needs
 * LMPATH_PS_CURSOR and at least one record.
 */
static inline unsigned int lmpath_ps_scan_start(struct lmpath_ps_paths *b)
{
	return this_cpu_inc_return(*b->cursor) % b->nr_paths;
}

/* lmpath-ps.c: the built-in selectors, looked up by table name. */
const struct lmpath_ps_type *lmpath_ps_lookup(const char *name);

extern const struct lmpath_ps_type lmpath_ps_round_robin;
extern const struct lmpath_ps_type lmpath_ps_queue_length;
extern const struct lmpath_ps_type lmpath_ps_service_time;
extern const struct lmpath_ps_type lmpath_ps_historical_service_time;
extern const struct lmpath_ps_type lmpath_ps_io_affinity;

#endif /* DM_LMPATH_PS_H */
