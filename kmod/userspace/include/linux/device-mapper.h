/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The part of include/linux/device-mapper.h that the lmpath table and
 * selector code uses, with dm_read_arg() and friends behaving as in
 * drivers/md/dm-table.c.
 */
#ifndef LMPATH_SHIM_DEVICE_MAPPER_H
#define LMPATH_SHIM_DEVICE_MAPPER_H

#include <lmpath-shim.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { STATUSTYPE_INFO, STATUSTYPE_TABLE, STATUSTYPE_IMA } status_type_t;

enum dm_queue_mode {
	DM_TYPE_NONE = 0,
	DM_TYPE_BIO_BASED = 1,
	DM_TYPE_REQUEST_BASED = 2,
	DM_TYPE_DAX_BIO_BASED = 3,
};

struct block_device;
struct dm_table;

struct dm_dev {
	struct block_device *bdev;
	blk_mode_t mode;
	char name[16];
};

struct target_type {
	const char *name;
	unsigned int version[3];
};

struct dm_target {
	struct dm_table *table;
	struct target_type *type;
	sector_t begin;
	sector_t len;
	unsigned int num_flush_bios;
	unsigned int num_discard_bios;
	unsigned int num_write_zeroes_bios;
	unsigned int per_io_data_size;
#ifdef __cplusplus
	void *private_; /* "private" is a C++ keyword; same layout */
#else
	void *private;
#endif
	char *error;
};

struct dm_arg_set {
	unsigned int argc;
	char **argv;
};

struct dm_arg {
	unsigned int min;
	unsigned int max;
	char *error;
};

int dm_read_arg(const struct dm_arg *arg, struct dm_arg_set *arg_set, unsigned int *value,
		char **error);
int dm_read_arg_group(const struct dm_arg *arg, struct dm_arg_set *arg_set, unsigned int *value,
		      char **error);
const char *dm_shift_arg(struct dm_arg_set *as);
void dm_consume_args(struct dm_arg_set *as, unsigned int num_args);

/* DMEMIT needs `result`, `maxlen` and `sz` in scope, as in the kernel. */
int lmpath_shim_emit(char *buf, size_t size, const char *fmt, ...);
#define DMEMIT(x...)                                                                               \
	(sz += ((sz >= maxlen) ? 0 : lmpath_shim_emit(result + sz, maxlen - sz, x)))
#define DMEMIT_TARGET_NAME_VERSION(y)                                                              \
	DMEMIT("target_name=%s,target_version=%u.%u.%u", (y)->name, (y)->version[0],              \
	       (y)->version[1], (y)->version[2])

/* the map's name in messages; there is no dm_table here */
#define dm_table_device_name(t) ((void)(t), "lmpath-user")

#define DM_NAME "device-mapper"
#define DMERR(fmt, ...) lmpath_shim_log(KERN_ERR, DM_MSG_PREFIX, fmt, ##__VA_ARGS__)
#define DMWARN(fmt, ...) lmpath_shim_log(KERN_WARNING, DM_MSG_PREFIX, fmt, ##__VA_ARGS__)
#define DMINFO(fmt, ...) lmpath_shim_log(KERN_INFO, DM_MSG_PREFIX, fmt, ##__VA_ARGS__)
#define DMDEBUG(fmt, ...) lmpath_shim_log(KERN_DEBUG, DM_MSG_PREFIX, fmt, ##__VA_ARGS__)
#define DMERR_LIMIT DMERR
#define DMWARN_LIMIT DMWARN
#define DMINFO_LIMIT DMINFO
#define DMDEBUG_LIMIT DMDEBUG

#ifdef __cplusplus
}
#endif

#endif /* LMPATH_SHIM_DEVICE_MAPPER_H */
