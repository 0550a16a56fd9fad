// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-lmpath: choosing the path for an I/O and deciding whether it must
 * wait (fast path, lock-free), starting and ending pg_init, and the
 * order in which suspend and dtr wait for all of it.
 *
 * This file touches no bio, request or scsi_dh: what it needs from the
 * block layer side (queueing the work items, kicking queued I/O) are the
 * hooks declared in lmpath.h, so the userspace build runs this very code
 * under ThreadSanitizer with forced interleavings (lmpath_race_point()).
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/llist.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "lmpath.h"

#define DM_MSG_PREFIX "lmpath"

/*
 *---------------------------------------------------------------
 * pg_init start (slow path, under m->lock)
 *---------------------------------------------------------------
 */
int __lmpath_pg_init_all_paths(struct lmpath *m)
{
	struct lmpath_pg *pg;
	unsigned long delay = 0;
	unsigned int i;

	lockdep_assert_held(&m->lock);

	if (atomic_read(&m->pg_init_in_progress) ||
	    test_bit(LMPF_PG_INIT_DISABLED, &m->flags))
		return 0;

	atomic_inc(&m->pg_init_count);
	clear_bit(LMPF_PG_INIT_REQUIRED, &m->flags);
	lmpath_race_point(m, "pg_init starting");

	pg = READ_ONCE(m->current_pg);
	if (!pg)
		return 0;

	if (test_bit(LMPF_PG_INIT_DELAY_RETRY, &m->flags))
		delay = msecs_to_jiffies(m->pg_init_delay_msecs !=
					 LMPATH_PG_INIT_DELAY_DEFAULT ?
					 m->pg_init_delay_msecs :
					 LMPATH_PG_INIT_DELAY_MSECS);

	for (i = 0; i < pg->nr_paths; i++) {
		struct lmpath_path *p = &pg->paths[i];

		if (!lmpath_path_usable(p))
			continue;
		if (lmpath_queue_activation(p, delay))
			atomic_inc(&m->pg_init_in_progress);
	}

	return atomic_read(&m->pg_init_in_progress);
}

/*
 * Map found pg_init required.  It does not start it (that needs the lock):
 * the first mapper to notice queues the pg_init work, later ones see the
 * bit.
 */
void lmpath_kick_pg_init(struct lmpath *m)
{
	if (!test_and_set_bit(LMPF_PG_INIT_KICKED, &m->flags))
		lmpath_queue_pg_init_work(m);
}

/* The pg_init work that map kicked. */
void lmpath_pg_init_run(struct lmpath *m)
{
	unsigned long flags;

	clear_bit(LMPF_PG_INIT_KICKED, &m->flags);
	/*
	 * Re-arm the kick before looking at the state, so that a mapper
	 * setting PG_INIT_REQUIRED after our test queues us again.
	 */
	smp_mb__after_atomic();

	spin_lock_irqsave(&m->lock, flags);
	if ((test_bit(LMPF_QUEUE_IO, &m->flags) ||
	     test_bit(LMPF_PG_INIT_REQUIRED, &m->flags)) &&
	    !__lmpath_pg_init_all_paths(m) &&
	    !atomic_read(&m->pg_init_in_progress) &&
	    !test_bit(LMPF_PG_INIT_DISABLED, &m->flags))
		/*
		 * Nothing started (no current group, or no usable path in
		 * it) and nothing runs that would release held I/O: release
		 * it, so that it is mapped again (a switch, pg_init) or fails
		 * as any I/O without a path.
		 */
		lmpath_release_held_io(m);
	spin_unlock_irqrestore(&m->lock, flags);
}

/*
 * The end of pg_init_done(), once the path's own outcome is dealt with
 * (@errors is 0 when the group may be used).  All of it under the lock,
 * so that no group switch (they take the lock) comes between the test of
 * PG_INIT_REQUIRED and the release of held I/O.
 */
void lmpath_pg_init_finished(struct lmpath_path *p, int errors,
			     bool delay_retry)
{
	struct lmpath_pg *pg = p->pg;
	struct lmpath *m = pg->m;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (errors) {
		if (p == READ_ONCE(m->current_path)) {
			DMERR("Could not failover device. Error %d.", errors);
			WRITE_ONCE(m->current_path, NULL);
			WRITE_ONCE(m->current_pg, NULL);
		}
	} else if (!test_bit(LMPF_PG_INIT_REQUIRED, &m->flags)) {
		WRITE_ONCE(pg->bypassed, false);
	}

	if (atomic_dec_return(&m->pg_init_in_progress) > 0)
		goto out;	/* other activations still running */

	if (test_bit(LMPF_PG_INIT_REQUIRED, &m->flags)) {
		assign_bit(LMPF_PG_INIT_DELAY_RETRY, &m->flags, delay_retry);
		if (__lmpath_pg_init_all_paths(m))
			goto out;
	}
	lmpath_race_point(m, "pg_init done");
	clear_bit(LMPF_QUEUE_IO, &m->flags);
	/* Pairs with the full barrier of llist_add() in lmpath_queue_io(). */
	smp_mb__after_atomic();

	lmpath_kick_queued_io(m);

	/* Wake up a suspend waiting for pg_init to finish. */
	wake_up(&m->pg_init_wait);

out:
	spin_unlock_irqrestore(&m->lock, flags);
}

/*
 *---------------------------------------------------------------
 * Paths leaving and coming back (slow path, but fail_path_fast)
 *---------------------------------------------------------------
 */

void __lmpath_enable_nopath_timeout(struct lmpath *m)
{
	lockdep_assert_held(&m->lock);

	if (!atomic_read(&m->nr_valid_paths) &&
	    test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags))
		lmpath_arm_nopath_timer(m);
}

/*
 * Everything that follows a path leaving service, once its LMPP_USABLE bit
 * is clear: count it out of nr_valid_paths, tell the selector, count the
 * failure, send the uevent (with the count this failure left, as the stock
 * target sends it) and the table event, and start the no-path timer if it
 * was the last path.  Every change of nr_valid_paths happens under the
 * lock together with its uevent, so the counts users see go down by one
 * with each PATH_FAILED and up by one with each PATH_REINSTATED.
 */
static void __report_path_failed(struct lmpath *m, struct lmpath_path *p)
{
	struct lmpath_pg *pg = p->pg;
	int nr_valid;

	lockdep_assert_held(&m->lock);

	nr_valid = atomic_dec_return(&m->nr_valid_paths);
	DMWARN("%s: Failing path %s.", dm_table_device_name(m->ti->table),
	       p->dev->name);

	if (pg->ps.type->fail_path)
		pg->ps.type->fail_path(&pg->ps, &p->ps_path);
	p->fail_count++;

	if (p == READ_ONCE(m->current_path))
		WRITE_ONCE(m->current_path, NULL);

	lmpath_path_event(p, true, nr_valid);
	lmpath_table_event(m);
	__lmpath_enable_nopath_timeout(m);
}

/*
 * Report @p's failure if the fast path took it out of use and nobody has
 * reported that yet.  LMPP_FAIL_PENDING is set lock-free (with the clear
 * of LMPP_USABLE, in one step) and cleared only here, under the lock.
 */
static void __report_failure(struct lmpath *m, struct lmpath_path *p)
{
	lockdep_assert_held(&m->lock);

	if (!test_bit(LMPP_FAIL_PENDING, &p->ps_path.flags))
		return;
	clear_bit(LMPP_FAIL_PENDING, &p->ps_path.flags);
	__report_path_failed(m, p);
}

/*
 * Report every failure the fast path saw and nobody reported yet.  The
 * messages call this before their own change, so that a failure that
 * happened first is reported first.
 */
static void __report_pending_failures(struct lmpath *m)
{
	unsigned int i, j;

	lockdep_assert_held(&m->lock);

	for (i = 0; i < m->nr_pgs; i++)
		for (j = 0; j < m->pgs[i].nr_paths; j++)
			__report_failure(m, &m->pgs[i].paths[j]);
}

/* Take a path out of use: fail_path message, pg_init errors. */
int lmpath_fail_path(struct lmpath_path *p)
{
	struct lmpath *m = p->pg->m;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	/* failures the fast path saw before this one go out first */
	__report_pending_failures(m);
	if (test_and_clear_bit(LMPP_USABLE, &p->ps_path.flags))
		__report_path_failed(m, p);
	spin_unlock_irqrestore(&m->lock, flags);

	return 0;
}

/*
 * Take a path out of use from the fast path, without a lock: one atomic
 * transition USABLE -> FAIL_PENDING, so exactly one caller wins, and from
 * that instant no selector returns the path.  That is all end_io changes:
 * the count of valid paths, the selector and the uevent change under the
 * lock, in the report, which the fail work makes (or a message that comes
 * first).  Were the decrement made here, a reinstate could come between
 * this transition and the decrement and count the path twice.
 */
void lmpath_fail_path_fast(struct lmpath *m, struct lmpath_path *p)
{
	unsigned long old = READ_ONCE(p->ps_path.flags), new;

	do {
		if (!(old & BIT(LMPP_USABLE)))
			return;
		new = (old & ~BIT(LMPP_USABLE)) | BIT(LMPP_FAIL_PENDING);
	} while (!try_cmpxchg(&p->ps_path.flags, &old, new));
	lmpath_race_point(m, "path failing");

	/* Held I/O must not stay pinned to this path until the report. */
	cmpxchg(&m->current_path, p, NULL);
	lmpath_queue_fail_work(p);
}

/* The work item fail_path_fast() queued. */
void lmpath_report_failure(struct lmpath_path *p)
{
	struct lmpath *m = p->pg->m;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	__report_failure(m, p);
	spin_unlock_irqrestore(&m->lock, flags);
}

/* Put a failed path back into use: reinstate_path message. */
int lmpath_reinstate_path(struct lmpath_path *p)
{
	struct lmpath_pg *pg = p->pg;
	struct lmpath *m = pg->m;
	bool run_queue = false;
	unsigned long flags;
	int nr_valid;

	spin_lock_irqsave(&m->lock, flags);

	if (lmpath_path_usable(p))
		goto out;

	/* Failures seen by end_io but not reported yet are reported first. */
	__report_pending_failures(m);

	DMWARN("%s: Reinstating path %s.", dm_table_device_name(m->ti->table),
	       p->dev->name);

	if (pg->ps.type->reinstate_path)
		pg->ps.type->reinstate_path(&pg->ps, &p->ps_path);
	set_bit(LMPP_USABLE, &p->ps_path.flags);
	lmpath_race_point(m, "path usable");

	nr_valid = atomic_inc_return(&m->nr_valid_paths);
	if (nr_valid == 1) {
		WRITE_ONCE(m->current_path, NULL);
		run_queue = true;
	} else if (m->hw_handler_name && READ_ONCE(m->current_pg) == pg) {
		if (lmpath_queue_activation(p, 0))
			atomic_inc(&m->pg_init_in_progress);
	}

	lmpath_path_event(p, false, nr_valid);
	lmpath_table_event(m);

out:
	/*
	 * A valid path: the no-path timeout is off.  Decided and done under
	 * the lock, where a later failure arms the timer again: stopped after
	 * unlocking, it could be the timer of a failure that came since.  The
	 * timer function takes the lock too: if it already runs, the timeout
	 * expired before the path came back.
	 */
	if (atomic_read(&m->nr_valid_paths))
		lmpath_disarm_nopath_timer(m);
	spin_unlock_irqrestore(&m->lock, flags);
	lmpath_race_point(m, "reinstate unlocked");

	if (run_queue)
		lmpath_run_queued_io(m);

	return 0;
}

/*
 *---------------------------------------------------------------
 * Path selection (fast path, lock-free)
 *---------------------------------------------------------------
 */

/*
 * Stop holding I/O.  Every clear of QUEUE_IO goes through here: a bio
 * queued while it was set did not kick the drain work (lmpath_queue_io()
 * saw I/O held), so whoever clears it kicks.  test_and_clear_bit() is a
 * full barrier when it clears, pairing with llist_add()'s.
 */
void lmpath_release_held_io(struct lmpath *m)
{
	if (test_and_clear_bit(LMPF_QUEUE_IO, &m->flags))
		lmpath_kick_queued_io(m);
}

/*
 * A new group takes over, with @p chosen in it.  Switches are rare, so
 * they take m->lock: current_path and current_pg change together (every
 * writer of the pair holds the lock, fail_path_fast() only clears the
 * path), and no switch lands between pg_init_done()'s test of
 * PG_INIT_REQUIRED and its release of held I/O.  A mapper that lost the
 * race to the same group leaves the switch as the winner made it.
 */
static void lmpath_switch_pg(struct lmpath *m, struct lmpath_pg *pg,
			     struct lmpath_path *p)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (READ_ONCE(m->current_pg) == pg)
		goto out;

	atomic_set(&m->pg_init_count, 0);
	if (m->hw_handler_name) {
		/* A hardware handler must initialise the group before I/O. */
		set_bit(LMPF_PG_INIT_REQUIRED, &m->flags);
		set_bit(LMPF_QUEUE_IO, &m->flags);
		smp_mb__after_atomic(); /* held before the group is published */
	}
	WRITE_ONCE(m->current_path, p);
	WRITE_ONCE(m->current_pg, pg);
	lmpath_race_point(m, "switch published");
	if (!m->hw_handler_name) {
		clear_bit(LMPF_PG_INIT_REQUIRED, &m->flags);
		lmpath_release_held_io(m);
	}
out:
	spin_unlock_irqrestore(&m->lock, flags);
}

static struct lmpath_path *choose_path_in_pg(struct lmpath *m,
					     struct lmpath_pg *pg,
					     size_t nr_bytes)
{
	struct lmpath_ps_path *pp;
	struct lmpath_path *p;

	pp = pg->ps.type->select_path(&pg->ps, nr_bytes);
	if (!pp)
		return NULL;

	p = to_lmpath_path(pp);
	/*
	 * Acquire, pairing with the switch's smp_mb__after_atomic() between
	 * setting QUEUE_IO and PG_INIT_REQUIRED and publishing the group: a
	 * mapper that sees the new group sees those bits in
	 * lmpath_must_hold_io() too, and holds its I/O for pg_init.  (A plain
	 * load on x86; on arm64 and powerpc the bits could be read older.)
	 */
	if (unlikely(smp_load_acquire(&m->current_pg) != pg))
		lmpath_switch_pg(m, pg, p);

	return p;
}

/*
 * Map found no usable path.  Under the lock, as a switch: with no usable
 * path, the I/O fails or waits anyway, so this is not the path fast I/O
 * takes (and out of line, so that lmpath_choose_path() stays as small).
 *
 * With no valid path there is nothing to initialise: held bios fail or
 * wait for a path, and there is no current group.  nr_valid_paths is read
 * again here, under the lock that reinstate and the switch take (and
 * every change of the count): a zero read by the caller may be stale, and
 * acting on it would let I/O through to a group whose pg_init a switch
 * made since has just started, or undo that switch.  A nonzero count with
 * no usable path is a failure not reported yet: its report comes, and the
 * next mapper finds the count at zero.
 */
static noinline void lmpath_no_path(struct lmpath *m)
{
	unsigned long flags;

	lmpath_race_point(m, "no path found");
	spin_lock_irqsave(&m->lock, flags);
	if (!atomic_read(&m->nr_valid_paths)) {
		lmpath_release_held_io(m);
		WRITE_ONCE(m->current_path, NULL);
		lmpath_race_point(m, "no path");
		WRITE_ONCE(m->current_pg, NULL);
	}
	spin_unlock_irqrestore(&m->lock, flags);
}

struct lmpath_path *lmpath_choose_path(struct lmpath *m, size_t nr_bytes)
{
	struct lmpath_pg *pg;
	struct lmpath_path *p;
	unsigned int i;
	int bypassed;

	if (!atomic_read(&m->nr_valid_paths))
		goto failed;

	/* switch_group asked for this group: one mapper claims the switch. */
	pg = READ_ONCE(m->next_pg);
	if (unlikely(pg) && cmpxchg(&m->next_pg, pg, NULL) == pg) {
		p = choose_path_in_pg(m, pg, nr_bytes);
		if (p)
			return p;
	}

	/* Stay in the current group while it has a usable path. */
	pg = READ_ONCE(m->current_pg);
	if (likely(pg)) {
		p = choose_path_in_pg(m, pg, nr_bytes);
		if (p)
			return p;
	}

	/*
	 * Walk the groups in table order, first those not bypassed, then the
	 * bypassed ones, and in that case slow down pg_init retries so that
	 * a busy controller is not hammered.
	 */
	for (bypassed = 0; bypassed <= 1; bypassed++) {
		for (i = 0; i < m->nr_pgs; i++) {
			pg = &m->pgs[i];
			if (READ_ONCE(pg->bypassed) != bypassed)
				continue;
			p = choose_path_in_pg(m, pg, nr_bytes);
			if (p) {
				if (bypassed)
					set_bit(LMPF_PG_INIT_DELAY_RETRY,
						&m->flags);
				return p;
			}
		}
	}

failed:
	lmpath_no_path(m);
	return NULL;
}

/*
 * While pg_init runs, I/O stays on the path it is initialising, as long
 * as that path belongs to the current group (the two are read without
 * the lock); otherwise the selector chooses for every I/O.
 */
struct lmpath_path *lmpath_pick(struct lmpath *m, size_t nr_bytes)
{
	struct lmpath_path *p = READ_ONCE(m->current_path);

	if (p && test_bit(LMPF_QUEUE_IO, &m->flags) &&
	    p->pg == READ_ONCE(m->current_pg))
		return p;

	return lmpath_choose_path(m, nr_bytes);
}

bool lmpath_must_hold_io(struct lmpath *m)
{
	return test_bit(LMPF_QUEUE_IO, &m->flags) ||
	       test_bit(LMPF_PG_INIT_REQUIRED, &m->flags);
}

/*
 *---------------------------------------------------------------
 * Waiting I/O (fast path, lock-free)
 *---------------------------------------------------------------
 */

/*
 * Queued I/O must be driven again when pg_init finishes (it clears
 * QUEUE_IO, then kicks), when a path comes back (nr_valid_paths rises,
 * then kick) or when queueing is switched off (flag, then kick).  The
 * queuer adds first and checks after; llist_add() is a full barrier, so
 * either it sees the new state and kicks, or the kicked work sees its I/O.
 */
static bool lmpath_queue_stalled(struct lmpath *m)
{
	if (test_bit(LMPF_QUEUE_IO, &m->flags))
		return true;
	if (atomic_read(&m->nr_valid_paths))
		return false;
	return test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags);
}

/* Bio mode: @node (of a struct lmpath_io) waits on queued_bios. */
void lmpath_queue_io(struct lmpath *m, struct llist_node *node)
{
	llist_add(node, &m->queued_bios);
	if (!lmpath_queue_stalled(m))
		lmpath_kick_queued_io(m);
}

/*
 * end_io: @node's bio failed on its path and waits for the drain work.
 * Once it is on the list the drain may complete it, after which dm core
 * may suspend and destroy the table, freeing @m.  dm core's RCU grace
 * period before the destructor only waits for completions that cannot be
 * preempted; a completion in process context (loop, null_blk irqmode=0, a
 * stacked dm device) can be preempted right after the push.  So the push,
 * the test and the kick happen under m->lock: postsuspend and dtr take it
 * (lmpath_flush_all()) before anything of @m is freed, so @m outlives this
 * section, and after it this CPU does not touch @m.  A rare path (a path
 * error); the stock target queues under its lock too.
 */
static void lmpath_requeue_io(struct lmpath *m, struct llist_node *node)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	llist_add(node, &m->queued_bios);
	lmpath_race_point(m, "bio handed over");
	if (!lmpath_queue_stalled(m))
		lmpath_kick_queued_io(m);
	spin_unlock_irqrestore(&m->lock, flags);
}

enum lmpath_bio_choice lmpath_end_io_bio_path(struct lmpath *m,
					      struct lmpath_path *p,
					      struct llist_node *node)
{
	if (p)
		lmpath_fail_path_fast(m, p);

	if (!atomic_read(&m->nr_valid_paths) &&
	    !test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags))
		return LMPATH_BIO_NO_PATH;

	lmpath_requeue_io(m, node);
	return LMPATH_BIO_QUEUED;
}

/* The drain work: every queued bio, newest first. */
struct llist_node *lmpath_take_queued_io(struct lmpath *m)
{
	return llist_del_all(&m->queued_bios);
}

/*
 * Bio mode's choice for one bio of @nr_bytes: LMPATH_BIO_PATH, to *@pathp;
 * LMPATH_BIO_QUEUED, @node (its struct lmpath_io) now waits for a path or
 * for pg_init; LMPATH_BIO_NO_PATH, no path and no queueing.
 */
enum lmpath_bio_choice lmpath_map_bio_path(struct lmpath *m, size_t nr_bytes,
					   struct llist_node *node,
					   struct lmpath_path **pathp)
{
	struct lmpath_path *p = lmpath_pick(m, nr_bytes);

	*pathp = p;
	if (!p) {
		if (!test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags))
			return LMPATH_BIO_NO_PATH;
		lmpath_queue_io(m, node);
		return LMPATH_BIO_QUEUED;
	}

	if (lmpath_must_hold_io(m)) {
		lmpath_queue_io(m, node);
		lmpath_kick_pg_init(m);
		return LMPATH_BIO_QUEUED;
	}

	return LMPATH_BIO_PATH;
}

/*
 *---------------------------------------------------------------
 * Quiescing: postsuspend and dtr (slow path)
 *---------------------------------------------------------------
 */

/*
 * Wait until no pg_init runs and none can start, then for the other work
 * items.  New pg_init is disabled first; then the pg_init work map may
 * have kicked is flushed (it sees PG_INIT_DISABLED and starts nothing),
 * and the activations already queued complete.  They are waited for with
 * or without a hardware handler.  lmpath_pg_init_finished() drops
 * pg_init_in_progress under m->lock and is done with @m once it unlocks,
 * so taking the lock after the count reached zero waits for its tail.
 * Then the fail work, which may queue the table event and arm the no-path
 * timer, before the drain and the event.
 */
void lmpath_flush_all(struct lmpath *m)
{
	unsigned long flags;
	bool disabled;

	/* Also waits for an end_io handing a bio over (lmpath_requeue_io()). */
	spin_lock_irqsave(&m->lock, flags);
	disabled = !test_and_set_bit(LMPF_PG_INIT_DISABLED, &m->flags);
	spin_unlock_irqrestore(&m->lock, flags);
	lmpath_race_point(m, "pg_init disabled");

	lmpath_flush(m, LMPATH_FLUSH_PG_INIT_WORK);
	if (atomic_read(&m->pg_init_in_progress))
		lmpath_flush(m, LMPATH_FLUSH_ACTIVATIONS);
	io_wait_event(m->pg_init_wait, !atomic_read(&m->pg_init_in_progress));

	spin_lock_irqsave(&m->lock, flags);
	if (disabled)
		clear_bit(LMPF_PG_INIT_DISABLED, &m->flags);
	spin_unlock_irqrestore(&m->lock, flags);

	lmpath_flush(m, LMPATH_FLUSH_FAIL_WORK);
	lmpath_flush(m, LMPATH_FLUSH_QUEUED_IO);
	lmpath_flush(m, LMPATH_FLUSH_EVENT);
}

/*
 * dtr: as postsuspend, then the no-path timer, which a failure reported
 * by the work waited for above may have armed, and the drain work the
 * timer's function may have kicked.
 */
void lmpath_stop(struct lmpath *m)
{
	lmpath_flush_all(m);
	lmpath_flush(m, LMPATH_FLUSH_NOPATH_TIMER);
	lmpath_flush(m, LMPATH_FLUSH_QUEUED_IO);
}
