// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-lmpath: a multipath target with no lock on its fast paths.
 *
 * A drop-in for the stock "multipath" target: same table, status, messages
 * and uevents.  What differs is inside: map, end_io and busy take no lock,
 * in bio and in request mode, whatever the selector.  See lmpath.h for
 * every shared field, who writes it and how the fast path reads it, and
 * README.md for the reasoning.
 *
 * The fast path in one paragraph: the topology is immutable after the
 * constructor; the selector picks a path from it by reading per-path
 * atomics; a group switch (rare) is claimed with cmpxchg() and made
 * under m->lock (lmpath-path.c); an I/O error takes the path out of use
 * with one atomic transition of its flags and leaves the reporting
 * (uevent, fail count, selector notification, table event) to a work
 * item; bios that must wait go on a lock-free list that a work item
 * drains; requests that must wait go back to blk-mq with a requeue
 * code.  Besides group switches and map finding no path, only messages,
 * pg_init, suspend/resume and status take m->lock.
 */
#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/device-mapper.h>
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <scsi/scsi_dh.h>

#include "lmpath.h"
#include "lmpath-compat.h"

#define DM_MSG_PREFIX "lmpath"

static unsigned long queue_if_no_path_timeout_secs;
static bool alias_multipath;

/* bios waiting for a path or pg_init, fast-path failure reports, pg_init */
static struct workqueue_struct *klmpathd;
/* scsi_dh activations, one at a time */
static struct workqueue_struct *klmpath_handlerd;
/* table events */
static struct workqueue_struct *lmpath_event_wq;

static void lmpath_trigger_event(struct work_struct *work);
static void lmpath_pg_init_work(struct work_struct *work);
static void lmpath_process_queued_bios(struct work_struct *work);
static void lmpath_nopath_timeout(struct timer_list *t);
static void activate_path_work(struct work_struct *work);
static void lmpath_fail_work(struct work_struct *work);

/*
 *---------------------------------------------------------------
 * Per-I/O data
 *---------------------------------------------------------------
 */

/*
 * What a resubmitted bio needs restored: the lower layers change these
 * fields while the bio is in flight.
 */
struct lmpath_bio_record {
	struct block_device *bi_bdev;
	int bi_remaining;
	unsigned short bi_flags;
	struct bvec_iter bi_iter;
	bio_end_io_t *bi_end_io;
#if defined(CONFIG_BLK_DEV_INTEGRITY)
	struct bio_integrity_payload *bi_integrity;
#endif
};

static size_t lmpath_per_bio_data_size(void)
{
	return sizeof(struct lmpath_io) + sizeof(struct lmpath_bio_record);
}

static struct lmpath_io *io_from_bio(struct bio *bio)
{
	return dm_per_bio_data(bio, lmpath_per_bio_data_size());
}

static struct lmpath_bio_record *record_from_io(struct lmpath_io *io)
{
	return (struct lmpath_bio_record *)(io + 1);
}

static void lmpath_bio_record(struct lmpath_bio_record *bd, struct bio *bio)
{
	bd->bi_bdev = bio->bi_bdev;
	bd->bi_flags = bio->bi_flags;
	bd->bi_iter = bio->bi_iter;
	bd->bi_remaining = atomic_read(&bio->__bi_remaining);
	bd->bi_end_io = bio->bi_end_io;
#if defined(CONFIG_BLK_DEV_INTEGRITY)
	bd->bi_integrity = bio->bi_integrity;
#endif
}

static void lmpath_bio_restore(struct lmpath_bio_record *bd, struct bio *bio)
{
	bio->bi_bdev = bd->bi_bdev;
	bio->bi_flags = bd->bi_flags;
	bio->bi_iter = bd->bi_iter;
	atomic_set(&bio->__bi_remaining, bd->bi_remaining);
	bio->bi_end_io = bd->bi_end_io;
#if defined(CONFIG_BLK_DEV_INTEGRITY)
	bio->bi_integrity = bd->bi_integrity;
#endif
}

/*
 *---------------------------------------------------------------
 * Path state changes (slow path)
 *---------------------------------------------------------------
 */
#define lmpath_report_eio(m)						\
	DMDEBUG_LIMIT("%s: returning EIO; QIFNP = %d; SQIFNP = %d; DNFS = %d", \
		      dm_table_device_name((m)->ti->table),		\
		      test_bit(LMPF_QUEUE_IF_NO_PATH, &(m)->flags),	\
		      test_bit(LMPF_SAVED_QUEUE_IF_NO_PATH, &(m)->flags), \
		      dm_noflush_suspending((m)->ti))

/* Not under m->lock: the timer function takes it. */
static void disable_nopath_timeout(struct lmpath *m)
{
	timer_delete_sync(&m->nopath_timer);
}

static void lmpath_fail_work(struct work_struct *work)
{
	lmpath_report_failure(container_of(work, struct lmpath_path,
					   fail_work));
}

static void process_queued_io_list(struct lmpath *m)
{
	if (m->queue_mode == DM_TYPE_REQUEST_BASED)
		dm_mq_kick_requeue_list(dm_table_get_md(m->ti->table));
	else if (m->queue_mode == DM_TYPE_BIO_BASED)
		queue_work(klmpathd, &m->process_queued_bios);
}

/* The hooks lmpath-path.c drives (see lmpath.h). */
void lmpath_kick_queued_io(struct lmpath *m)
{
	process_queued_io_list(m);
}

void lmpath_queue_pg_init_work(struct lmpath *m)
{
	queue_work(klmpathd, &m->pg_init_work);
}

bool lmpath_queue_activation(struct lmpath_path *p, unsigned long delay)
{
	return queue_delayed_work(klmpath_handlerd, &p->activate_path, delay);
}

void lmpath_queue_fail_work(struct lmpath_path *p)
{
	queue_work(klmpathd, &p->fail_work);
}

struct lmpath_path_event {
	struct list_head list;
	struct lmpath_path *path;
	bool failed;
	int nr_valid;
};

static void send_path_event(struct lmpath *m, struct lmpath_path *p,
			    bool failed, int nr_valid)
{
	dm_path_uevent(failed ? DM_UEVENT_PATH_FAILED :
				DM_UEVENT_PATH_REINSTATED,
		       m->ti, p->dev->name, nr_valid);
}

/*
 * Called under m->lock with the count the change left.  The uevent is
 * built later, by trigger_event, with that count: queued here in order.
 */
void lmpath_path_event(struct lmpath_path *p, bool failed, int nr_valid)
{
	struct lmpath *m = p->pg->m;
	struct lmpath_path_event *ev;
	unsigned long flags;

	ev = kmalloc(sizeof(*ev), GFP_ATOMIC);
	if (!ev) {
		/* still sent, if possibly out of order */
		send_path_event(m, p, failed, nr_valid);
		return;
	}
	ev->path = p;
	ev->failed = failed;
	ev->nr_valid = nr_valid;
	spin_lock_irqsave(&m->event_lock, flags);
	list_add_tail(&ev->list, &m->path_events);
	spin_unlock_irqrestore(&m->event_lock, flags);
}

void lmpath_table_event(struct lmpath *m)
{
	queue_work(lmpath_event_wq, &m->trigger_event);
}

void lmpath_arm_nopath_timer(struct lmpath *m)
{
	unsigned long timeout = READ_ONCE(queue_if_no_path_timeout_secs) * HZ;

	lockdep_assert_held(&m->lock);

	if (timeout)
		mod_timer(&m->nopath_timer, jiffies + timeout);
}

void lmpath_disarm_nopath_timer(struct lmpath *m)
{
	lockdep_assert_held(&m->lock);

	timer_delete(&m->nopath_timer);
}

void lmpath_run_queued_io(struct lmpath *m)
{
	dm_table_run_md_queue_async(m->ti->table);
	process_queued_io_list(m);
}

/* Temporarily avoid a group (disable_group, pg_init busy) or stop doing so. */
static void bypass_pg(struct lmpath *m, struct lmpath_pg *pg, bool bypassed)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	WRITE_ONCE(pg->bypassed, bypassed);
	WRITE_ONCE(m->current_path, NULL);
	WRITE_ONCE(m->current_pg, NULL);
	spin_unlock_irqrestore(&m->lock, flags);

	queue_work(lmpath_event_wq, &m->trigger_event);
}

static struct lmpath_pg *pg_from_arg(struct lmpath *m, const char *arg)
{
	unsigned int pg_num;
	char dummy;

	if (!arg || sscanf(arg, "%u%c", &pg_num, &dummy) != 1 || !pg_num ||
	    !m->nr_pgs || pg_num > m->nr_pgs)
		return NULL;

	return &m->pgs[pg_num - 1];
}

/* Use @pg from the next mapped I/O on, and stop bypassing every group. */
static int switch_pg_num(struct lmpath *m, const char *arg)
{
	struct lmpath_pg *pg = pg_from_arg(m, arg);
	unsigned long flags;
	unsigned int i;

	if (!pg) {
		DMWARN("invalid PG number supplied to %s", __func__);
		return -EINVAL;
	}

	spin_lock_irqsave(&m->lock, flags);
	for (i = 0; i < m->nr_pgs; i++)
		WRITE_ONCE(m->pgs[i].bypassed, false);
	WRITE_ONCE(m->current_path, NULL);
	WRITE_ONCE(m->current_pg, NULL);
	WRITE_ONCE(m->next_pg, pg);
	spin_unlock_irqrestore(&m->lock, flags);

	queue_work(lmpath_event_wq, &m->trigger_event);
	return 0;
}

static int bypass_pg_num(struct lmpath *m, const char *arg, bool bypassed)
{
	struct lmpath_pg *pg = pg_from_arg(m, arg);

	if (!pg) {
		DMWARN("invalid PG number supplied to bypass_pg");
		return -EINVAL;
	}

	bypass_pg(m, pg, bypassed);
	return 0;
}

/*
 * If we run out of usable paths, should we queue I/O or fail it?
 * @save_old_value keeps the current setting for resume to restore.
 */
static void queue_if_no_path(struct lmpath *m, bool enable,
			     bool save_old_value, const char *caller)
{
	const char *name = dm_table_device_name(m->ti->table);
	bool cur, saved;
	unsigned long flags;

	DMDEBUG("%s: %s caller=%s enable=%d save_old_value=%d",
		name, __func__, caller, enable, save_old_value);

	spin_lock_irqsave(&m->lock, flags);

	cur = test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags);
	saved = test_bit(LMPF_SAVED_QUEUE_IF_NO_PATH, &m->flags);

	if (save_old_value) {
		if (unlikely(!cur && saved))
			DMERR("%s: QIFNP disabled but saved as enabled, saving again loses state, not saving!",
			      name);
		else
			assign_bit(LMPF_SAVED_QUEUE_IF_NO_PATH, &m->flags, cur);
	} else if (!enable && saved) {
		/* fail_if_no_path overrides what a suspend saved */
		clear_bit(LMPF_SAVED_QUEUE_IF_NO_PATH, &m->flags);
	}
	assign_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags, enable);

	spin_unlock_irqrestore(&m->lock, flags);

	if (!enable) {
		dm_table_run_md_queue_async(m->ti->table);
		process_queued_io_list(m);
	}
}

static void lmpath_nopath_timeout(struct timer_list *t)
{
	struct lmpath *m = from_timer(m, t, nopath_timer);

	DMWARN("queue_if_no_path timeout on %s, failing queued IO",
	       dm_table_device_name(m->ti->table));
	queue_if_no_path(m, false, false, __func__);
}

static struct lmpath_path_event *next_path_event(struct lmpath *m)
{
	struct lmpath_path_event *ev;
	unsigned long flags;

	spin_lock_irqsave(&m->event_lock, flags);
	ev = list_first_entry_or_null(&m->path_events,
				      struct lmpath_path_event, list);
	if (ev)
		list_del(&ev->list);
	spin_unlock_irqrestore(&m->event_lock, flags);
	return ev;
}

/*
 * One table event per path uevent: dm core keeps the uevents of a map on
 * a list it sends newest first at the next table event, so two changes
 * between two table events (a failure and a reinstate) would reach udev
 * reversed, each with the other's DM_NR_VALID_PATHS.  The workqueue is
 * ordered, so the old and the new table of a reload keep their order too.
 */
static void lmpath_trigger_event(struct work_struct *work)
{
	struct lmpath *m = container_of(work, struct lmpath, trigger_event);
	struct lmpath_path_event *ev;
	bool sent = false;

	while ((ev = next_path_event(m))) {
		send_path_event(m, ev->path, ev->failed, ev->nr_valid);
		dm_table_event(m->ti->table);
		kfree(ev);
		sent = true;
	}
	if (!sent)
		dm_table_event(m->ti->table);
}

/*
 *---------------------------------------------------------------
 * pg_init: hardware handler activation (slow path)
 *---------------------------------------------------------------
 */
static void lmpath_pg_init_work(struct work_struct *work)
{
	lmpath_pg_init_run(container_of(work, struct lmpath, pg_init_work));
}

/* Should a failed activation be retried at once? */
static bool pg_init_limit_reached(struct lmpath *m)
{
	bool limit_reached = false;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (atomic_read(&m->pg_init_count) <= m->pg_init_retries &&
	    !test_bit(LMPF_PG_INIT_DISABLED, &m->flags))
		set_bit(LMPF_PG_INIT_REQUIRED, &m->flags);
	else
		limit_reached = true;
	spin_unlock_irqrestore(&m->lock, flags);

	return limit_reached;
}

static void pg_init_done(void *data, int errors)
{
	struct lmpath_path *p = data;
	struct lmpath_pg *pg = p->pg;
	struct lmpath *m = pg->m;
	bool delay_retry = false;

	switch (errors) {
	case SCSI_DH_OK:
		break;
	case SCSI_DH_NOSYS:
		if (!m->hw_handler_name) {
			errors = 0;
			break;
		}
		DMERR("Could not failover the device: Handler scsi_dh_%s Error %d.",
		      m->hw_handler_name, errors);
		/* Fail the path for now, so we do not ping-pong. */
		lmpath_fail_path(p);
		break;
	case SCSI_DH_DEV_TEMP_BUSY:
		/* Probably a firmware upgrade on the controller: try the others. */
		bypass_pg(m, pg, true);
		break;
	case SCSI_DH_RETRY:
		delay_retry = true;
		fallthrough;
	case SCSI_DH_IMM_RETRY:
	case SCSI_DH_RES_TEMP_UNAVAIL:
		if (pg_init_limit_reached(m))
			lmpath_fail_path(p);
		errors = 0;
		break;
	case SCSI_DH_DEV_OFFLINED:
	default:
		lmpath_fail_path(p);
	}

	lmpath_pg_init_finished(p, errors, delay_retry);
}

static void activate_or_offline_path(struct lmpath_path *p)
{
	struct request_queue *q = bdev_get_queue(p->dev->bdev);

	if (lmpath_path_usable(p) && !blk_queue_dying(q))
		scsi_dh_activate(q, pg_init_done, p);
	else
		pg_init_done(p, SCSI_DH_DEV_OFFLINED);
}

static void activate_path_work(struct work_struct *work)
{
	struct lmpath_path *p = container_of(work, struct lmpath_path,
					     activate_path.work);

	activate_or_offline_path(p);
}

/*
 *---------------------------------------------------------------
 * Request-based map/end_io (fast path, lock-free)
 *---------------------------------------------------------------
 */
static int lmpath_clone_and_map(struct dm_target *ti, struct request *rq,
				union map_info *map_context,
				struct request **__clone)
{
	struct lmpath *m = ti->private;
	struct lmpath_io *io = map_context->ptr;
	size_t nr_bytes = blk_rq_bytes(rq);
	struct lmpath_path *p;
	struct request_queue *q;
	struct request *clone;
	struct lmpath_ps *ps;

	p = lmpath_pick(m, nr_bytes);
	if (!p) {
		if (test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags) ||
		    dm_noflush_suspending(ti))
			return DM_MAPIO_DELAY_REQUEUE;
		lmpath_report_eio(m);
		return DM_MAPIO_KILL;
	}

	if (lmpath_must_hold_io(m)) {
		lmpath_kick_pg_init(m);
		return DM_MAPIO_DELAY_REQUEUE;
	}

	io->path = p;
	io->nr_bytes = nr_bytes;

	q = bdev_get_queue(p->dev->bdev);
	clone = blk_mq_alloc_request(q, rq->cmd_flags | REQ_NOMERGE,
				     BLK_MQ_REQ_NOWAIT);
	if (IS_ERR(clone)) {
		/* The path's queue is going away: stop using it. */
		if (blk_queue_dying(q)) {
			lmpath_fail_path_fast(m, p);
			return DM_MAPIO_DELAY_REQUEUE;
		}

		/*
		 * The path is out of tags.  Plain REQUEUE becomes
		 * BLK_STS_RESOURCE, so blk-mq reruns our queue when the path
		 * frees a tag (SCHED_RESTART) and the scheduler above keeps
		 * merging meanwhile; a delayed requeue would hide the busy
		 * state from it.
		 */
		return DM_MAPIO_REQUEUE;
	}
	clone->bio = NULL;
	clone->biotail = NULL;
	clone->cmd_flags |= REQ_FAILFAST_TRANSPORT;
	*__clone = clone;

	ps = &p->pg->ps;
	if (ps->type->start_io)
		ps->type->start_io(ps, &p->ps_path, nr_bytes);
	return DM_MAPIO_REMAPPED;
}

static void lmpath_release_clone(struct request *clone,
				 union map_info *map_context)
{
	if (unlikely(map_context)) {
		/* Still in map: undo lmpath_clone_and_map()'s start_io. */
		struct lmpath_io *io = map_context->ptr;
		struct lmpath_path *p = io->path;

		if (p && p->pg->ps.type->end_io)
			p->pg->ps.type->end_io(&p->pg->ps, &p->ps_path,
					       io->nr_bytes,
					       clone->io_start_time_ns);
	}

	blk_mq_free_request(clone);
}

static int lmpath_end_io(struct dm_target *ti, struct request *clone,
			 blk_status_t error, union map_info *map_context)
{
	struct lmpath *m = ti->private;
	struct lmpath_io *io = map_context->ptr;
	struct lmpath_path *p = io->path;
	int r = DM_ENDIO_DONE;

	/*
	 * A path error sends the original request back to dm core, which
	 * clones it again and maps it to another path.  Requeueing the clone
	 * here would need new bio clones, that is memory allocation on the
	 * completion path (see dm-rq.c, end_clone_bio).
	 */
	if (error && blk_path_error(error)) {
		r = error == BLK_STS_RESOURCE ? DM_ENDIO_DELAY_REQUEUE :
						DM_ENDIO_REQUEUE;

		if (p)
			lmpath_fail_path_fast(m, p);

		if (!atomic_read(&m->nr_valid_paths) &&
		    !test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags) &&
		    !dm_noflush_suspending(ti)) {
			if (error == BLK_STS_IOERR)
				lmpath_report_eio(m);
			/* complete with the original error */
			r = DM_ENDIO_DONE;
		}
	}

	if (p && p->pg->ps.type->end_io)
		p->pg->ps.type->end_io(&p->pg->ps, &p->ps_path, io->nr_bytes,
				       clone->io_start_time_ns);

	return r;
}

/*
 *---------------------------------------------------------------
 * Bio-based map/end_io (fast path, lock-free)
 *---------------------------------------------------------------
 */

static int __lmpath_map_bio(struct lmpath *m, struct bio *bio,
			    struct lmpath_io *io)
{
	struct lmpath_path *p;
	struct lmpath_ps *ps;

	switch (lmpath_map_bio_path(m, bio->bi_iter.bi_size, &io->node, &p)) {
	case LMPATH_BIO_PATH:
		break;
	case LMPATH_BIO_QUEUED:
		return DM_MAPIO_SUBMITTED;
	case LMPATH_BIO_NO_PATH:
		if (dm_noflush_suspending(m->ti))
			return DM_MAPIO_REQUEUE;
		lmpath_report_eio(m);
		return DM_MAPIO_KILL;
	}

	ps = &p->pg->ps;
	io->path = p;
	if (ps->type->features & LMPATH_PS_USE_HR_TIMER)
		io->start_time_ns = ktime_get_ns();

	bio->bi_status = 0;
	bio_set_dev(bio, p->dev->bdev);
	bio->bi_opf |= REQ_FAILFAST_TRANSPORT;

	if (ps->type->start_io)
		ps->type->start_io(ps, &p->ps_path, io->nr_bytes);
	return DM_MAPIO_REMAPPED;
}

static int lmpath_map_bio(struct dm_target *ti, struct bio *bio)
{
	struct lmpath_io *io = io_from_bio(bio);

	io->path = NULL;
	io->nr_bytes = bio->bi_iter.bi_size;
	io->start_time_ns = 0;
	lmpath_bio_record(record_from_io(io), bio);

	return __lmpath_map_bio(ti->private, bio, io);
}

static void lmpath_process_queued_bios(struct work_struct *work)
{
	struct lmpath *m = container_of(work, struct lmpath,
					process_queued_bios);
	struct llist_node *list;
	struct lmpath_io *io, *tmp;
	struct blk_plug plug;
	struct bio *bio;
	int r;

	list = lmpath_take_queued_io(m);
	if (!list)
		return;
	/* llist is LIFO; resubmit in arrival order. */
	list = llist_reverse_order(list);

	blk_start_plug(&plug);
	llist_for_each_entry_safe(io, tmp, list, node) {
		bio = dm_bio_from_per_bio_data(io, lmpath_per_bio_data_size());
		lmpath_bio_restore(record_from_io(io), bio);

		r = __lmpath_map_bio(m, bio, io);
		switch (r) {
		case DM_MAPIO_KILL:
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
			break;
		case DM_MAPIO_REQUEUE:
			bio->bi_status = BLK_STS_DM_REQUEUE;
			bio_endio(bio);
			break;
		case DM_MAPIO_REMAPPED:
			submit_bio_noacct(bio);
			break;
		case DM_MAPIO_SUBMITTED:
			break;
		default:
			WARN_ONCE(true, "__lmpath_map_bio() returned %d\n", r);
		}
	}
	blk_finish_plug(&plug);
}

static int lmpath_end_io_bio(struct dm_target *ti, struct bio *clone,
			     blk_status_t *error)
{
	struct lmpath *m = ti->private;
	struct lmpath_io *io = io_from_bio(clone);
	struct lmpath_path *p = io->path;
	u64 start_time = io->start_time_ns;
	int r = DM_ENDIO_DONE;

	/*
	 * End the I/O on its path now, and only once: a bio queued below
	 * belongs to the drain work, which may fail it (running this function
	 * again) or map it elsewhere before we would get here.  Forgetting
	 * the path keeps a later completion of this bio off its counters.
	 */
	if (p) {
		struct lmpath_ps *ps = &p->pg->ps;

		if (ps->type->end_io) {
			if (!start_time)
				start_time = dm_start_time_ns_from_clone(clone);
			ps->type->end_io(ps, &p->ps_path, io->nr_bytes,
					 start_time);
		}
		io->path = NULL;
	}

	if (!*error || !blk_path_error(*error))
		return r;

	/*
	 * Once queued the bio belongs to the drain work, which may complete
	 * it (and a suspend and dtr may then free @m): from here on only
	 * lmpath_end_io_bio_path() touches @m, and the return value tells
	 * what it did.
	 */
	if (lmpath_end_io_bio_path(m, p, &io->node) == LMPATH_BIO_QUEUED)
		return DM_ENDIO_INCOMPLETE;

	if (dm_noflush_suspending(ti)) {
		r = DM_ENDIO_REQUEUE;
	} else {
		lmpath_report_eio(m);
		*error = BLK_STS_IOERR;
	}
	return r;
}

/*
 *---------------------------------------------------------------
 * busy (fast path, lock-free)
 *---------------------------------------------------------------
 */

/*
 * Busy only when I/O could be mapped but every usable path of the group
 * it would go to is busy: then blk-mq keeps requests in its scheduler,
 * where they merge, instead of pushing them down to wait on the path.
 * Not busy when I/O would be failed or queued here, or dm core would not
 * hand it to us.
 */
static int lmpath_busy(struct dm_target *ti)
{
	struct lmpath *m = ti->private;
	struct lmpath_pg *pg, *next_pg;
	bool busy = true, has_active = false;
	unsigned int i;

	if (atomic_read(&m->pg_init_in_progress))
		return true;

	/* No path: request mode relies on map's delayed requeue. */
	if (!atomic_read(&m->nr_valid_paths) &&
	    test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags))
		return m->queue_mode != DM_TYPE_REQUEST_BASED;

	/* Guess the group the next I/O will use. */
	pg = READ_ONCE(m->current_pg);
	next_pg = READ_ONCE(m->next_pg);
	if (unlikely(!READ_ONCE(m->current_path) && next_pg))
		pg = next_pg;

	/* Unknown without choosing, and choosing may start pg_init. */
	if (!pg)
		return false;

	for (i = 0; i < pg->nr_paths; i++) {
		struct lmpath_path *p = &pg->paths[i];

		if (!lmpath_path_usable(p))
			continue;
		has_active = true;
		if (!blk_lld_busy(bdev_get_queue(p->dev->bdev))) {
			busy = false;
			break;
		}
	}

	/* No usable path here: the next map switches group, let it run. */
	if (!has_active)
		busy = false;

	return busy;
}

/*
 *---------------------------------------------------------------
 * Constructor and destructor
 *---------------------------------------------------------------
 */
static int setup_scsi_dh(struct block_device *bdev, struct lmpath *m,
			 const char **attached_handler_name, char **error)
{
	struct request_queue *q = bdev_get_queue(bdev);
	int r;

	if (test_bit(LMPF_RETAIN_ATTACHED_HW_HANDLER, &m->flags)) {
retain:
		if (*attached_handler_name) {
			/* Parameters were meant for another handler: drop them. */
			if (m->hw_handler_name &&
			    strcmp(*attached_handler_name, m->hw_handler_name)) {
				kfree(m->hw_handler_params);
				m->hw_handler_params = NULL;
			}

			/*
			 * Use the attached handler; the TABLE status then
			 * shows it instead of the one in the table line.
			 */
			kfree(m->hw_handler_name);
			m->hw_handler_name = *attached_handler_name;
			*attached_handler_name = NULL;
		}
	}

	if (m->hw_handler_name) {
		r = scsi_dh_attach(q, m->hw_handler_name);
		if (r == -EBUSY) {
			DMINFO("retaining handler on device %pg", bdev);
			goto retain;
		}
		if (r < 0) {
			*error = "error attaching hardware handler";
			return r;
		}

		if (m->hw_handler_params) {
			r = scsi_dh_set_params(q, m->hw_handler_params);
			if (r < 0) {
				*error = "unable to set hardware handler parameters";
				return r;
			}
		}
	}

	return 0;
}

int lmpath_attach_path(struct lmpath *m, struct lmpath_path *p,
		       const char *path)
{
	struct dm_target *ti = m->ti;
	const char *attached = NULL;
	int r;

	r = dm_get_device(ti, path, dm_table_get_mode(ti->table), &p->dev);
	if (r) {
		ti->error = "error getting device";
		return r;
	}

	INIT_DELAYED_WORK(&p->activate_path, activate_path_work);
	INIT_WORK(&p->fail_work, lmpath_fail_work);

	attached = scsi_dh_attached_handler_name(bdev_get_queue(p->dev->bdev),
						 GFP_KERNEL);
	if (attached || m->hw_handler_name) {
		r = setup_scsi_dh(p->dev->bdev, m, &attached, &ti->error);
		kfree(attached);
		if (r) {
			dm_put_device(ti, p->dev);
			p->dev = NULL;
			return r;
		}
	}

	return 0;
}

void lmpath_detach_path(struct lmpath *m, struct lmpath_path *p)
{
	dm_put_device(m->ti, p->dev);
	p->dev = NULL;
}

static struct lmpath *alloc_lmpath(struct dm_target *ti)
{
	struct lmpath *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return NULL;

	m->ti = ti;
	m->queue_mode = DM_TYPE_NONE;
	m->pg_init_delay_msecs = LMPATH_PG_INIT_DELAY_DEFAULT;
	atomic_set(&m->nr_valid_paths, 0);
	atomic_set(&m->pg_init_in_progress, 0);
	atomic_set(&m->pg_init_count, 0);
	init_waitqueue_head(&m->pg_init_wait);
	spin_lock_init(&m->lock);
	spin_lock_init(&m->event_lock);
	INIT_LIST_HEAD(&m->path_events);
	mutex_init(&m->work_mutex);
	INIT_WORK(&m->trigger_event, lmpath_trigger_event);
	INIT_WORK(&m->pg_init_work, lmpath_pg_init_work);
	INIT_WORK(&m->process_queued_bios, lmpath_process_queued_bios);
	init_llist_head(&m->queued_bios);
	timer_setup(&m->nopath_timer, lmpath_nopath_timeout, 0);

	ti->private = m;
	return m;
}

static void free_lmpath(struct lmpath *m)
{
	struct lmpath_path_event *ev;

	/* dtr flushed trigger_event: nothing is left but after a failed ctr */
	while ((ev = next_path_event(m)))
		kfree(ev);
	lmpath_free_topology(m);
	mutex_destroy(&m->work_mutex);
	kfree(m);
}

/* The table grammar is described in lmpath-table.c. */
static int lmpath_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	struct lmpath *m;
	unsigned long flags;
	int r;

	m = alloc_lmpath(ti);
	if (!m) {
		ti->error = "can't allocate multipath";
		return -EINVAL;
	}

	r = lmpath_parse_table(m, &as);
	if (r)
		goto bad;
	dm_table_set_type(ti->table, m->queue_mode);

	spin_lock_irqsave(&m->lock, flags);
	__lmpath_enable_nopath_timeout(m);
	spin_unlock_irqrestore(&m->lock, flags);

	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	if (m->queue_mode == DM_TYPE_BIO_BASED)
		ti->per_io_data_size = lmpath_per_bio_data_size();
	else
		ti->per_io_data_size = sizeof(struct lmpath_io);

	return 0;

bad:
	free_lmpath(m);
	return r;
}

/* The hook lmpath-path.c's quiescing drives (see lmpath.h). */
void lmpath_flush(struct lmpath *m, enum lmpath_flush what)
{
	unsigned int i, j;

	switch (what) {
	case LMPATH_FLUSH_PG_INIT_WORK:
		flush_work(&m->pg_init_work);
		break;
	case LMPATH_FLUSH_ACTIVATIONS:
		flush_workqueue(klmpath_handlerd);
		break;
	case LMPATH_FLUSH_FAIL_WORK:
		for (i = 0; i < m->nr_pgs; i++)
			for (j = 0; j < m->pgs[i].nr_paths; j++)
				flush_work(&m->pgs[i].paths[j].fail_work);
		break;
	case LMPATH_FLUSH_QUEUED_IO:
		flush_work(&m->process_queued_bios);
		break;
	case LMPATH_FLUSH_EVENT:
		flush_work(&m->trigger_event);
		break;
	case LMPATH_FLUSH_NOPATH_TIMER:
		disable_nopath_timeout(m);
		break;
	}
}

static void lmpath_dtr(struct dm_target *ti)
{
	struct lmpath *m = ti->private;

	lmpath_stop(m);
	free_lmpath(m);
}

/*
 *---------------------------------------------------------------
 * Suspend and resume
 *---------------------------------------------------------------
 */

/*
 * A suspend with flush cannot finish while I/O is queued, so it stops
 * queueing (and fails what is queued when no path is left).  A noflush
 * suspend keeps queue_if_no_path: dm core holds the I/O instead.  The
 * setting is saved for resume either way.
 */
static void lmpath_presuspend(struct dm_target *ti)
{
	struct lmpath *m = ti->private;

	if (m->queue_mode == DM_TYPE_BIO_BASED || !dm_noflush_suspending(ti))
		queue_if_no_path(m, false, true, __func__);
}

static void lmpath_postsuspend(struct dm_target *ti)
{
	struct lmpath *m = ti->private;

	mutex_lock(&m->work_mutex);
	lmpath_flush_all(m);
	mutex_unlock(&m->work_mutex);
}

static void lmpath_resume(struct dm_target *ti)
{
	struct lmpath *m = ti->private;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (test_bit(LMPF_SAVED_QUEUE_IF_NO_PATH, &m->flags)) {
		set_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags);
		clear_bit(LMPF_SAVED_QUEUE_IF_NO_PATH, &m->flags);
	}
	spin_unlock_irqrestore(&m->lock, flags);
}

/*
 *---------------------------------------------------------------
 * Status and messages
 *---------------------------------------------------------------
 */
static void lmpath_status(struct dm_target *ti, status_type_t type,
			  unsigned int status_flags, char *result,
			  unsigned int maxlen)
{
	struct lmpath *m = ti->private;
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	lmpath_emit_status(m, type, result, maxlen);
	spin_unlock_irqrestore(&m->lock, flags);
}

/* Apply @action to every path on device @dev. */
static int action_dev(struct lmpath *m, dev_t dev,
		      int (*action)(struct lmpath_path *p))
{
	unsigned int i, j;
	int r = -EINVAL;

	for (i = 0; i < m->nr_pgs; i++) {
		struct lmpath_pg *pg = &m->pgs[i];

		for (j = 0; j < pg->nr_paths; j++)
			if (pg->paths[j].dev->bdev->bd_dev == dev)
				r = action(&pg->paths[j]);
	}

	return r;
}

static int lmpath_message(struct dm_target *ti, unsigned int argc,
			  char **argv, char *result, unsigned int maxlen)
{
	struct lmpath *m = ti->private;
	int (*action)(struct lmpath_path *p);
	unsigned long flags;
	dev_t dev;
	int r = -EINVAL;

	mutex_lock(&m->work_mutex);

	if (dm_suspended(ti)) {
		r = -EBUSY;
		goto out;
	}

	if (argc == 1) {
		if (!strcasecmp(argv[0], "queue_if_no_path")) {
			queue_if_no_path(m, true, false, __func__);
			spin_lock_irqsave(&m->lock, flags);
			__lmpath_enable_nopath_timeout(m);
			spin_unlock_irqrestore(&m->lock, flags);
			r = 0;
			goto out;
		} else if (!strcasecmp(argv[0], "fail_if_no_path")) {
			queue_if_no_path(m, false, false, __func__);
			disable_nopath_timeout(m);
			r = 0;
			goto out;
		}
	}

	if (argc != 2) {
		DMWARN("Invalid multipath message arguments. Expected 2 arguments, got %d.",
		       argc);
		goto out;
	}

	if (!strcasecmp(argv[0], "disable_group")) {
		r = bypass_pg_num(m, argv[1], true);
		goto out;
	} else if (!strcasecmp(argv[0], "enable_group")) {
		r = bypass_pg_num(m, argv[1], false);
		goto out;
	} else if (!strcasecmp(argv[0], "switch_group")) {
		r = switch_pg_num(m, argv[1]);
		goto out;
	} else if (!strcasecmp(argv[0], "reinstate_path")) {
		action = lmpath_reinstate_path;
	} else if (!strcasecmp(argv[0], "fail_path")) {
		action = lmpath_fail_path;
	} else {
		DMWARN("Unrecognised multipath message received: %s", argv[0]);
		goto out;
	}

	r = lmpath_devt_from_path(argv[1], &dev);
	if (r) {
		DMWARN("message: error getting device %s", argv[1]);
		goto out;
	}

	r = action_dev(m, dev, action);

out:
	mutex_unlock(&m->work_mutex);
	return r;
}

/*
 *---------------------------------------------------------------
 * ioctls and devices
 *---------------------------------------------------------------
 */

/* ioctls (SG_IO included) go to the path I/O would use now. */
static int lmpath_prepare_ioctl(struct dm_target *ti,
				struct block_device **bdev)
{
	struct lmpath *m = ti->private;
	struct lmpath_path *p;
	unsigned long flags;
	int r;

	p = lmpath_pick(m, 0);
	if (p) {
		if (!test_bit(LMPF_QUEUE_IO, &m->flags)) {
			*bdev = p->dev->bdev;
			r = 0;
		} else {
			/* pg_init has not started or completed */
			r = -ENOTCONN;
		}
	} else {
		/* No path is available */
		r = test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags) ? -ENOTCONN :
								 -EIO;
	}

	if (r == -ENOTCONN) {
		if (!READ_ONCE(m->current_pg))
			/* Path status changed, redo selection */
			(void)lmpath_choose_path(m, 0);
		spin_lock_irqsave(&m->lock, flags);
		if (test_bit(LMPF_PG_INIT_REQUIRED, &m->flags))
			(void)__lmpath_pg_init_all_paths(m);
		spin_unlock_irqrestore(&m->lock, flags);
		dm_table_run_md_queue_async(m->ti->table);
		process_queued_io_list(m);
	}

	/* Pass ioctls through only if the device sizes match exactly. */
	if (!r && ti->len != bdev_nr_sectors(*bdev))
		return 1;
	return r;
}

static int lmpath_iterate_devices(struct dm_target *ti,
				  iterate_devices_callout_fn fn, void *data)
{
	struct lmpath *m = ti->private;
	unsigned int i, j;
	int r;

	for (i = 0; i < m->nr_pgs; i++) {
		struct lmpath_pg *pg = &m->pgs[i];

		for (j = 0; j < pg->nr_paths; j++) {
			r = fn(ti, pg->paths[j].dev, ti->begin, ti->len, data);
			if (r)
				return r;
		}
	}

	return 0;
}

/*
 *---------------------------------------------------------------
 * Module
 *---------------------------------------------------------------
 */
static struct target_type lmpath_target = {
	.name = "lmpath",
	.version = {1, 0, 0},
	.features = DM_TARGET_SINGLETON | DM_TARGET_IMMUTABLE |
		    DM_TARGET_PASSES_INTEGRITY,
	.module = THIS_MODULE,
	.ctr = lmpath_ctr,
	.dtr = lmpath_dtr,
	.clone_and_map_rq = lmpath_clone_and_map,
	.release_clone_rq = lmpath_release_clone,
	.rq_end_io = lmpath_end_io,
	.map = lmpath_map_bio,
	.end_io = lmpath_end_io_bio,
	.presuspend = lmpath_presuspend,
	.postsuspend = lmpath_postsuspend,
	.resume = lmpath_resume,
	.status = lmpath_status,
	.message = lmpath_message,
	.prepare_ioctl = lmpath_prepare_ioctl,
	.iterate_devices = lmpath_iterate_devices,
	.busy = lmpath_busy,
};

/*
 * The same target under the stock name, for tools that only know
 * "multipath".  It reports the stock version because multipath-tools
 * enables features by target version.
 */
static struct target_type lmpath_alias_target;
static bool lmpath_alias_registered;

static void lmpath_register_alias(void)
{
	int r;

	lmpath_alias_target = lmpath_target;
	INIT_LIST_HEAD(&lmpath_alias_target.list);
	lmpath_alias_target.name = "multipath";
	lmpath_alias_target.version[0] = 1;
	lmpath_alias_target.version[1] = 14;
	lmpath_alias_target.version[2] = 0;

	r = dm_register_target(&lmpath_alias_target);
	if (r) {
		DMWARN("not registered as \"multipath\" (%d): is dm-multipath loaded?",
		       r);
		/* The parameter tells userspace which target "multipath" is. */
		alias_multipath = false;
		return;
	}

	lmpath_alias_registered = true;
	DMINFO("also registered as \"multipath\"");
}

static int __init dm_lmpath_init(void)
{
	int r = -ENOMEM;

	klmpathd = alloc_workqueue("klmpathd", WQ_MEM_RECLAIM, 0);
	if (!klmpathd)
		goto bad_klmpathd;

	/* A separate queue keeps controller activations from queueing up. */
	klmpath_handlerd = alloc_ordered_workqueue("klmpath_handlerd",
						   WQ_MEM_RECLAIM);
	if (!klmpath_handlerd)
		goto bad_handlerd;

	lmpath_event_wq = alloc_ordered_workqueue("lmpath_event", 0);
	if (!lmpath_event_wq)
		goto bad_event_wq;

	r = dm_register_target(&lmpath_target);
	if (r < 0)
		goto bad_register;

	if (alias_multipath)
		lmpath_register_alias();

	return 0;

bad_register:
	destroy_workqueue(lmpath_event_wq);
bad_event_wq:
	destroy_workqueue(klmpath_handlerd);
bad_handlerd:
	destroy_workqueue(klmpathd);
bad_klmpathd:
	DMERR("initialisation failed: %d", r);
	return r;
}

static void __exit dm_lmpath_exit(void)
{
	if (lmpath_alias_registered)
		dm_unregister_target(&lmpath_alias_target);
	dm_unregister_target(&lmpath_target);

	destroy_workqueue(lmpath_event_wq);
	destroy_workqueue(klmpath_handlerd);
	destroy_workqueue(klmpathd);
}

module_init(dm_lmpath_init);
module_exit(dm_lmpath_exit);

module_param_named(queue_if_no_path_timeout_secs,
		   queue_if_no_path_timeout_secs, ulong, 0644);
MODULE_PARM_DESC(queue_if_no_path_timeout_secs,
		 "No available paths queue IO timeout in seconds");

module_param(alias_multipath, bool, 0444);
MODULE_PARM_DESC(alias_multipath,
		 "Also register as the \"multipath\" target when dm-multipath is not loaded (reads Y only while registered)");

MODULE_DESCRIPTION(DM_NAME " lockless multipath target");
MODULE_LICENSE("GPL");
