/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-lmpath: the differences between the kernels we build for (Debian 6.1
 * and 6.12), and the few device-mapper core exports whose prototypes live
 * in headers that are not installed.  Only lmpath-target.c includes this.
 * API differences are detected from the headers by Kbuild (feature macros
 * LMPATH_HAVE_*), not from version numbers.
 */
#ifndef DM_LMPATH_COMPAT_H
#define DM_LMPATH_COMPAT_H

#include <linux/device-mapper.h>

/*
 * Exported by dm-mod, declared in drivers/md/dm-uevent.h and dm-rq.h.
 * The signatures are the same in 6.1 and 6.12.
 */
enum dm_uevent_type {
	DM_UEVENT_PATH_FAILED,
	DM_UEVENT_PATH_REINSTATED,
};

void dm_path_uevent(enum dm_uevent_type event_type, struct dm_target *ti,
		    const char *path, unsigned int nr_valid_paths);
void dm_mq_kick_requeue_list(struct mapped_device *md);

/*
 * Resolve a message argument ("8:16" or "/dev/sdb") to a dev_t without
 * opening the device: dm_get_dev_t() until 6.8, dm_devt_from_path() after.
 * Kbuild defines LMPATH_HAVE_DM_DEVT_FROM_PATH when the headers declare
 * it, which also covers distribution kernels with the change backported.
 */
static inline int lmpath_devt_from_path(const char *path, dev_t *dev)
{
#ifdef LMPATH_HAVE_DM_DEVT_FROM_PATH
	return dm_devt_from_path(path, dev);
#else
	*dev = dm_get_dev_t(path);
	return *dev ? 0 : -ENODEV;
#endif
}

#endif /* DM_LMPATH_COMPAT_H */
