/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The userspace build of dm-lmpath's table grammar: what the unit tests,
 * the fuzzer and the race test call.  A "map" here is the constructor's
 * result (struct lmpath) with its dm_target, built from a table line the
 * way dm core and lmpath's constructor would, over fake path devices.
 */
#ifndef LMPATH_USER_H
#define LMPATH_USER_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lmpath;
struct lmpath_ps;
struct lmpath_ps_path;

/*
 * Fake path devices.  Known from the start: 8:16, 8:32, 8:48, 8:64
 * (also reachable as /dev/sdb../dev/sde) and 259:0..259:3 (/dev/nvme0n1..).
 * Each is a SCSI device (scsi_dh handlers alua, rdac, emc, hp_sw attach)
 * unless it is an NVMe one.
 */
int lmpath_user_device_known(const char *path);
/*
 * From now on every fake SCSI device has scsi_dh handler @name attached
 * (as scsi_dh_alua attaches itself to ALUA devices), or none with NULL.
 */
void lmpath_user_set_attached_handler(const char *name);

/*
 * Split @table like dm_split_args() and run the constructor on it.
 * Returns 0 and the map in *@out, or a negative errno and the
 * constructor's ti->error in *@error (a static string).
 */
int lmpath_user_create(const char *table, struct lmpath **out, const char **error);
void lmpath_user_destroy(struct lmpath *m);

/* dmsetup status (@table == 0) or dmsetup table (@table != 0) text. */
void lmpath_user_status(struct lmpath *m, int table, char *buf, unsigned int maxlen);

/* Topology, for tests that drive the selectors of a parsed map. */
unsigned int lmpath_user_nr_pgs(const struct lmpath *m);
unsigned int lmpath_user_nr_paths(const struct lmpath *m, unsigned int pg);
struct lmpath_ps *lmpath_user_ps(struct lmpath *m, unsigned int pg);
struct lmpath_ps_path *lmpath_user_path(struct lmpath *m, unsigned int pg, unsigned int path);
const char *lmpath_user_path_name(const struct lmpath_ps_path *path);

/* The "CPU" the calling thread runs on, and how many CPUs exist. */
void lmpath_user_set_cpu(unsigned int cpu);
void lmpath_user_set_nr_cpus(unsigned int nr_cpus, unsigned int nr_nodes);

/*
 * Make ktime_get_ns() read *@ns (a clock the test advances), or the real
 * monotonic clock again when @ns is NULL.
 */
void lmpath_user_set_clock(const unsigned long long *ns);

/*
 * The fast path of lmpath-path.c for race tests.  The hooks stand for
 * what lmpath-target.c does on the block layer side; each gets @ctx.
 * race_point is called where lmpath_race_point() stands in the code, so a
 * test can stop one thread there and run another (force an interleaving).
 * queue_activation returns whether the activation was queued (not already
 * pending).  Set them before any map is used, from one thread.
 */
struct lmpath_user_hooks {
	void (*kick_queued_io)(void *ctx);
	void (*queue_pg_init_work)(void *ctx);
	bool (*queue_activation)(void *ctx, const char *path);
	void (*race_point)(void *ctx, const char *where);
	/*
	 * lmpath_flush(): wait for one kind of work item, named as in
	 * lmpath.h's enum lmpath_flush: "pg_init work", "activations",
	 * "fail work", "queued io", "event", "nopath timer".
	 */
	void (*flush)(void *ctx, const char *what);
	/*
	 * Path failure and reinstatement (lmpath.h): queue path @path's
	 * failure report (the test runs it with lmpath_user_report_failure());
	 * a PATH_FAILED (@failed) or PATH_REINSTATED uevent; the table event;
	 * the no-path timer armed (@arm) or stopped.
	 */
	void (*queue_fail_work)(void *ctx, const char *path);
	void (*path_event)(void *ctx, bool failed, const char *path, int nr_valid);
	void (*table_event)(void *ctx);
	void (*nopath_timer)(void *ctx, bool arm);
	void *ctx;
};
void lmpath_user_set_hooks(const struct lmpath_user_hooks *hooks);

/* One bio's worth of per-I/O data, and what map or the drain did with it. */
enum {
	LMPATH_USER_IO_NEW,
	LMPATH_USER_IO_MAPPED, /* sent to lmpath_user_io_path() */
	LMPATH_USER_IO_QUEUED, /* waiting on the map's queue */
	LMPATH_USER_IO_FAILED, /* failed with EIO: no path, no queueing */
};
struct lmpath_user_io;
struct lmpath_user_io *lmpath_user_io_new(void);
void lmpath_user_io_free(struct lmpath_user_io *io);
int lmpath_user_io_state(const struct lmpath_user_io *io);
const char *lmpath_user_io_path(const struct lmpath_user_io *io);

/* bio mode's map, and the work that resubmits queued bios (returns how many) */
void lmpath_user_map_bio(struct lmpath *m, struct lmpath_user_io *io);
unsigned int lmpath_user_drain(struct lmpath *m);
/* the pg_init work that map kicks */
void lmpath_user_pg_init_work(struct lmpath *m);

int lmpath_user_io_held(struct lmpath *m);
int lmpath_user_pg_init_in_progress(struct lmpath *m);
/* the state disable_group leaves; every path failed, reinstated by message */
void lmpath_user_forget_group(struct lmpath *m);
void lmpath_user_fail_all_paths(struct lmpath *m);
void lmpath_user_reinstate_all_paths(struct lmpath *m);
/* postsuspend's and dtr's waits (lmpath_flush_all(), lmpath_stop()) */
void lmpath_user_flush_all(struct lmpath *m);
void lmpath_user_stop(struct lmpath *m);
/* path @name failed by message; its activation ended well (pg_init_done) */
void lmpath_user_fail_path(struct lmpath *m, const char *name);
void lmpath_user_pg_init_done(struct lmpath *m, const char *name);

/*
 * lmpath-path.c's failure and reinstatement, as lmpath-target.c calls
 * them: an I/O on path @name ended with a path error (request mode's
 * end_io); its queued failure report runs; the fail_path and
 * reinstate_path messages.
 */
void lmpath_user_io_error(struct lmpath *m, const char *name);
void lmpath_user_report_failure(struct lmpath *m, const char *name);
void lmpath_user_fail_path_message(struct lmpath *m, const char *name);
void lmpath_user_reinstate_path(struct lmpath *m, const char *name);
/*
 * Bio mode's end_io for @io, mapped and now failed with a path error:
 * afterwards LMPATH_USER_IO_QUEUED (handed to the drain work) or
 * LMPATH_USER_IO_FAILED.  Once queued, the drain may complete @io at any
 * time; the map must not be touched through @io afterwards.
 */
void lmpath_user_end_io_error(struct lmpath *m, struct lmpath_user_io *io);
int lmpath_user_nr_valid_paths(struct lmpath *m);
int lmpath_user_path_usable(struct lmpath *m, const char *name);
unsigned int lmpath_user_fail_count(struct lmpath *m, const char *name);
int lmpath_user_queue_if_no_path(struct lmpath *m);
/*
 * pg_init_done() for an activation of path @name that asks for a retry
 * (SCSI_DH_RETRY below the retry limit: pg_init is required again).
 */
void lmpath_user_pg_init_retry(struct lmpath *m, const char *name);
/* current_path is NULL or a path of current_pg (read under the lock) */
int lmpath_user_current_pair_consistent(struct lmpath *m);

#ifdef __cplusplus
}
#endif

#endif /* LMPATH_USER_H */
