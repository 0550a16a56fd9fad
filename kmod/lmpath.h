/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-lmpath: the lockless multipath target, shared definitions.
 *
 * The code is split so that the parts worth testing without a kernel use a
 * small set of primitives (SHIM.md):
 *   lmpath-table.c  constructor parsing and status text (both directions
 *                   of the table grammar)
 *   lmpath-ps*.c    path selectors behind struct lmpath_ps_type
 *   lmpath-path.c   choosing the path, holding I/O, starting pg_init,
 *                   quiescing for suspend and dtr
 *   lmpath-target.c everything that touches bios, requests, scsi_dh,
 *                   uevents and workqueues, and the module itself
 *
 * Shared fields, who writes them, and how the fast path (map, end_io,
 * busy) reads them.  "ctr" means written once by the constructor, before
 * dm core publishes the table (the table swap orders those stores before
 * any I/O reaches us), and never again.  "lock" means m->lock.
 *
 * struct lmpath
 *   flags            atomic bitops by anyone (LMPF_*); map reads test_bit()
 *   queue_mode       ctr
 *   hw_handler_name  ctr (may be replaced by the attached handler's name)
 *   hw_handler_params ctr
 *   pg_init_retries, pg_init_delay_msecs  ctr
 *   nr_pgs, pgs[]    ctr; the array and the groups in it are immutable
 *   current_pg       WRITE_ONCE under lock, by everyone: map takes the
 *                    lock for a group switch and when no path is left;
 *                    readers READ_ONCE, but the mapper's test that no
 *                    switch is needed loads it with acquire, pairing with
 *                    the switch's barrier after setting QUEUE_IO and
 *                    PG_INIT_REQUIRED
 *   current_path     the path pg_init works on; same rules as current_pg,
 *                    except that fail_path_fast() clears it lock-free
 *                    (cmpxchg); map uses it only while it is in current_pg
 *   next_pg          set under lock by switch_group/ctr; claimed by map
 *                    with cmpxchg() so exactly one mapper switches
 *   nr_valid_paths   atomic, changed only under lock, together with the
 *                    uevent that carries it: decremented when a failure is
 *                    reported (fail_path, or the report of an end_io
 *                    failure), incremented by reinstate.  Between an
 *                    end_io failure and its report it still counts the
 *                    path; fast-path readers then find no usable path in
 *                    the selectors instead.  Decisions on a zero count
 *                    that change state are taken under lock.
 *   pg_init_in_progress, pg_init_count  atomics; writers hold lock
 *                    (the switch's reset of pg_init_count too)
 *   queued_bios      llist: map pushes, end_io pushes under lock (the
 *                    map may go once the drain has the bio), the drain
 *                    work pops all
 *
 * struct lmpath_pg
 *   ps, paths[], nr_paths, pg_num  ctr
 *   bypassed         WRITE_ONCE under lock; map reads READ_ONCE
 *
 * struct lmpath_path
 *   ps_path.flags    LMPP_USABLE / LMPP_FAIL_PENDING, atomic bitops;
 *                    end_io moves USABLE to FAIL_PENDING with one
 *                    try_cmpxchg(); writers under lock use bitops, and
 *                    only they clear FAIL_PENDING (reporting the failure)
 *   fail_count       lock; read by status (under lock)
 *   dev, pg          ctr
 */
#ifndef DM_LMPATH_H
#define DM_LMPATH_H

#include <linux/atomic.h>
#include <linux/device-mapper.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "lmpath-ps.h"

#define LMPATH_MAX_PGS		1024
#define LMPATH_MAX_PATHS	1024

/* pg_init_delay_msecs: "not set" (prints nothing), and the delay it means */
#define LMPATH_PG_INIT_DELAY_DEFAULT	((unsigned int)-1)
#define LMPATH_PG_INIT_DELAY_MSECS	2000

/*
 * Map state bits in lmpath.flags, all changed with atomic bitops.
 */
#define LMPF_QUEUE_IO			0 /* hold I/O: pg_init not done */
#define LMPF_QUEUE_IF_NO_PATH		1 /* queue, not fail, with no path */
#define LMPF_SAVED_QUEUE_IF_NO_PATH	2 /* QUEUE_IF_NO_PATH across suspend */
#define LMPF_RETAIN_ATTACHED_HW_HANDLER	3 /* keep a scsi_dh already attached */
#define LMPF_PG_INIT_DISABLED		4 /* no new pg_init (suspending) */
#define LMPF_PG_INIT_REQUIRED		5 /* pg_init must run before I/O */
#define LMPF_PG_INIT_DELAY_RETRY	6 /* wait before the next pg_init */
#define LMPF_PG_INIT_KICKED		7 /* pg_init work queued by map */

struct lmpath;
struct lmpath_pg;

struct lmpath_path {
	struct lmpath_ps_path ps_path;	/* selector view; holds LMPP_* flags */
	struct lmpath_pg *pg;		/* owning group */
	struct dm_dev *dev;		/* the path device */
	unsigned int fail_count;	/* cumulative failures, under lock */

	struct delayed_work activate_path; /* scsi_dh activation */
	struct work_struct fail_work;	/* reports a fast-path failure */
};

struct lmpath_pg {
	struct lmpath *m;		/* owning map */
	struct lmpath_ps ps;		/* the group's selector */
	unsigned int pg_num;		/* 1-based, table order */
	unsigned int nr_paths;
	bool bypassed;			/* disable_group / pg_init busy */
	struct lmpath_path *paths;	/* nr_paths entries */
};

struct lmpath {
	unsigned long flags;		/* LMPF_* */
	struct dm_target *ti;
	enum dm_queue_mode queue_mode;

	struct lmpath_pg *current_pg;
	struct lmpath_path *current_path;
	struct lmpath_pg *next_pg;
	atomic_t nr_valid_paths;

	unsigned int nr_pgs;
	struct lmpath_pg *pgs;		/* nr_pgs entries */

	const char *hw_handler_name;
	char *hw_handler_params;
	unsigned int pg_init_retries;
	unsigned int pg_init_delay_msecs;
	atomic_t pg_init_in_progress;	/* activations outstanding */
	atomic_t pg_init_count;		/* pg_init rounds since the switch */
	/* postsuspend and dtr wait here for pg_init_in_progress to be 0 */
	wait_queue_head_t pg_init_wait;

	spinlock_t lock;		/* serialises the slow-path writers */
	struct mutex work_mutex;	/* messages vs. suspend */

	struct work_struct trigger_event;
	/*
	 * Path uevents not sent yet, oldest first.  dm core sends what
	 * accumulated between two table events newest first, so
	 * trigger_event sends these one per table event, in order.
	 */
	spinlock_t event_lock;
	struct list_head path_events;
	struct work_struct pg_init_work;	/* pg_init asked for by map */
	struct work_struct process_queued_bios;
	struct llist_head queued_bios;
	struct timer_list nopath_timer;	/* queue_if_no_path timeout */
};

/* Per-I/O data: request mode uses this, bio mode adds the bio record. */
struct lmpath_io {
	struct lmpath_path *path;
	size_t nr_bytes;
	u64 start_time_ns;
	struct llist_node node;		/* bio mode: on queued_bios */
};

/*
 * lmpath-table.c: the table grammar.
 */
int lmpath_parse_features(struct lmpath *m, struct dm_arg_set *as);
int lmpath_parse_topology(struct lmpath *m, struct dm_arg_set *as);
int lmpath_parse_table(struct lmpath *m, struct dm_arg_set *as);
void lmpath_free_topology(struct lmpath *m);
void lmpath_emit_status(struct lmpath *m, status_type_t type,
			char *result, unsigned int maxlen);

/*
 * lmpath-target.c: what the table code needs from the block layer side.
 * lmpath_attach_path() opens @dev for @p (and sets up the hardware
 * handler); lmpath_detach_path() undoes it.
 */
int lmpath_attach_path(struct lmpath *m, struct lmpath_path *p,
		       const char *dev);
void lmpath_detach_path(struct lmpath *m, struct lmpath_path *p);

/*
 * lmpath-path.c: path selection, holding I/O, starting pg_init.
 * __lmpath_pg_init_all_paths() expects m->lock held.
 */
struct lmpath_path *lmpath_choose_path(struct lmpath *m, size_t nr_bytes);
struct lmpath_path *lmpath_pick(struct lmpath *m, size_t nr_bytes);
bool lmpath_must_hold_io(struct lmpath *m);
void lmpath_queue_io(struct lmpath *m, struct llist_node *node);
void lmpath_release_held_io(struct lmpath *m);
enum lmpath_bio_choice {
	LMPATH_BIO_PATH,
	LMPATH_BIO_QUEUED,
	LMPATH_BIO_NO_PATH,
};

enum lmpath_bio_choice lmpath_map_bio_path(struct lmpath *m, size_t nr_bytes,
					   struct llist_node *node,
					   struct lmpath_path **pathp);
void lmpath_kick_pg_init(struct lmpath *m);
void lmpath_pg_init_run(struct lmpath *m);
int __lmpath_pg_init_all_paths(struct lmpath *m);
void lmpath_pg_init_finished(struct lmpath_path *p, int errors,
			     bool delay_retry);

/*
 * lmpath-path.c: paths leaving and coming back.  lmpath_fail_path_fast()
 * is end_io's (lock-free); lmpath_report_failure() is the work item it
 * queues; lmpath_fail_path() and lmpath_reinstate_path() are the messages
 * (and pg_init's failures).  __lmpath_enable_nopath_timeout() expects
 * m->lock held.
 */
void lmpath_fail_path_fast(struct lmpath *m, struct lmpath_path *p);
void lmpath_report_failure(struct lmpath_path *p);
int lmpath_fail_path(struct lmpath_path *p);
int lmpath_reinstate_path(struct lmpath_path *p);
void __lmpath_enable_nopath_timeout(struct lmpath *m);

/*
 * Bio mode's end_io for a bio that failed with a path error on @p (NULL
 * when it had none): LMPATH_BIO_QUEUED, @node's bio now belongs to the
 * drain work; LMPATH_BIO_NO_PATH, no path and no queueing, it completes
 * with its error.  The drain work takes the queued bios with
 * lmpath_take_queued_io().
 */
enum lmpath_bio_choice lmpath_end_io_bio_path(struct lmpath *m,
					      struct lmpath_path *p,
					      struct llist_node *node);
struct llist_node *lmpath_take_queued_io(struct lmpath *m);

/*
 * lmpath-target.c: the hooks lmpath-path.c drives.  Kick the queued I/O
 * (bio mode: the drain work; request mode: dm core's requeue list); queue
 * the pg_init work; queue @p's scsi_dh activation after @delay jiffies,
 * true when it was not queued already.
 */
void lmpath_kick_queued_io(struct lmpath *m);
void lmpath_queue_pg_init_work(struct lmpath *m);
bool lmpath_queue_activation(struct lmpath_path *p, unsigned long delay);

/*
 * lmpath-target.c: the hooks of path failure and reinstatement.  Queue
 * @p's lmpath_report_failure(); send the PATH_FAILED (@failed) or
 * PATH_REINSTATED uevent for @p with @nr_valid; queue the table event;
 * arm the no-path timer (if a timeout is set) or stop it without waiting
 * for its function, both under m->lock; run the map's queue and the
 * queued I/O again (a path is back).
 */
void lmpath_queue_fail_work(struct lmpath_path *p);
void lmpath_path_event(struct lmpath_path *p, bool failed, int nr_valid);
void lmpath_table_event(struct lmpath *m);
void lmpath_arm_nopath_timer(struct lmpath *m);
void lmpath_disarm_nopath_timer(struct lmpath *m);
void lmpath_run_queued_io(struct lmpath *m);

/*
 * lmpath-path.c: quiescing.  lmpath_flush_all() (postsuspend) returns
 * when no pg_init runs or can start and the work items have run;
 * lmpath_stop() (dtr) also stops the no-path timer, after which nothing
 * of @m runs.  lmpath-target.c's lmpath_flush() waits for one kind of
 * work item (the no-path timer: deletes it and waits for its function).
 */
enum lmpath_flush {
	LMPATH_FLUSH_PG_INIT_WORK,	/* the pg_init work map kicked */
	LMPATH_FLUSH_ACTIVATIONS,	/* queued scsi_dh activations start */
	LMPATH_FLUSH_FAIL_WORK,		/* every path's failure report */
	LMPATH_FLUSH_QUEUED_IO,		/* bio mode's drain work */
	LMPATH_FLUSH_EVENT,		/* the table event */
	LMPATH_FLUSH_NOPATH_TIMER,	/* the queue_if_no_path timeout */
};

void lmpath_flush_all(struct lmpath *m);
void lmpath_stop(struct lmpath *m);
void lmpath_flush(struct lmpath *m, enum lmpath_flush what);

/*
 * A place where a test of the userspace build may stop this thread and
 * run another one, to force an interleaving; nothing in the kernel.
 */
#ifndef lmpath_race_point
static inline void lmpath_race_point(struct lmpath *m, const char *where)
{
}
#endif

static inline struct lmpath_path *to_lmpath_path(struct lmpath_ps_path *pp)
{
	return container_of(pp, struct lmpath_path, ps_path);
}

static inline bool lmpath_path_usable(const struct lmpath_path *p)
{
	return lmpath_ps_path_usable(&p->ps_path);
}

#endif /* DM_LMPATH_H */
