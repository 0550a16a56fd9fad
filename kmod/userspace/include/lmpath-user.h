/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The userspace build of dm-lmpath's table grammar: what the unit tests,
 * the fuzzer and the race test call.  A "map" here is the constructor's
 * result (struct lmpath) with its dm_target, built from a table line the
 * way dm core and lmpath's constructor would, over fake path devices.
 */
#ifndef LMPATH_USER_H
#define LMPATH_USER_H

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

#ifdef __cplusplus
}
#endif

#endif /* LMPATH_USER_H */
