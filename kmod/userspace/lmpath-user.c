// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel side that lmpath-table.c leans on, for the userspace build:
 * dm core's argument splitting, the allocation the constructor does
 * before lmpath_parse_table(), lmpath_attach_path()/lmpath_detach_path()
 * over fake path devices, and the hooks and fast path of lmpath-path.c
 * for the race tests.  Behaviour follows the stock target
 * (drivers/md/dm-mpath.c parse_path(), setup_scsi_dh()).
 */
#include <ctype.h>

#include "lmpath.h"
#include "lmpath-user.h"

#define DM_MSG_PREFIX "lmpath-user"

struct fake_dev {
	const char *majmin;
	const char *path;
	bool scsi;
};

static const struct fake_dev fake_devs[] = {
	{"8:16", "/dev/sdb", true},	   {"8:32", "/dev/sdc", true},
	{"8:48", "/dev/sdd", true},	   {"8:64", "/dev/sde", true},
	{"259:0", "/dev/nvme0n1", false}, {"259:1", "/dev/nvme1n1", false},
	{"259:2", "/dev/nvme2n1", false}, {"259:3", "/dev/nvme3n1", false},
};

static const char *const scsi_dh_names[] = {"alua", "rdac", "emc", "hp_sw"};

struct fake_dm_dev {
	struct dm_dev dev;
	const struct fake_dev *fake;
};

static struct target_type lmpath_user_type = {
	.name = "lmpath",
	.version = {1, 15, 0},
};

static const struct fake_dev *lookup_fake(const char *path)
{
	unsigned int i, major, minor;
	char dummy, buf[16];

	/* dm_devt_from_path(): "major:minor" first, else a device node */
	if (sscanf(path, "%u:%u%c", &major, &minor, &dummy) == 2) {
		snprintf(buf, sizeof(buf), "%u:%u", major, minor);
		path = buf;
	}
	for (i = 0; i < ARRAY_SIZE(fake_devs); i++)
		if (!strcmp(path, fake_devs[i].majmin) || !strcmp(path, fake_devs[i].path))
			return &fake_devs[i];
	return NULL;
}

int lmpath_user_device_known(const char *path)
{
	return lookup_fake(path) != NULL;
}

static bool scsi_dh_known(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(scsi_dh_names); i++)
		if (!strcmp(name, scsi_dh_names[i]))
			return true;
	return false;
}

static const char *attached_handler;

void lmpath_user_set_attached_handler(const char *name)
{
	attached_handler = name;
}

int lmpath_attach_path(struct lmpath *m, struct lmpath_path *p, const char *dev)
{
	struct dm_target *ti = m->ti;
	const struct fake_dev *fake = lookup_fake(dev);
	struct fake_dm_dev *fd;

	if (!fake) {
		ti->error = "error getting device";
		return -ENXIO;
	}

	/*
	 * setup_scsi_dh(): unless a test says so, fake devices have no handler
	 * attached already, so only a handler named in the table matters.  It must exist and the
	 * device must be SCSI.
	 */
	if (m->hw_handler_name && (!fake->scsi || !scsi_dh_known(m->hw_handler_name))) {
		ti->error = "error attaching hardware handler";
		return fake->scsi ? -EINVAL : -ENODEV;
	}

	/* setup_scsi_dh(): with retain, a handler already attached is used */
	if (attached_handler && fake->scsi && test_bit(LMPF_RETAIN_ATTACHED_HW_HANDLER, &m->flags) &&
	    (!m->hw_handler_name || strcmp(m->hw_handler_name, attached_handler))) {
		char *name = kstrdup(attached_handler, GFP_KERNEL);

		if (!name)
			return -ENOMEM;
		kfree(m->hw_handler_params);
		m->hw_handler_params = NULL;
		kfree(m->hw_handler_name);
		m->hw_handler_name = name;
	}

	fd = kzalloc(sizeof(*fd), GFP_KERNEL);
	if (!fd)
		return -ENOMEM;
	fd->fake = fake;
	snprintf(fd->dev.name, sizeof(fd->dev.name), "%s", fake->majmin);
	p->dev = &fd->dev;
	return 0;
}

void lmpath_detach_path(struct lmpath *m, struct lmpath_path *p)
{
	(void)m;
	kfree(container_of(p->dev, struct fake_dm_dev, dev));
	p->dev = NULL;
}

/* drivers/md/dm-table.c dm_split_args(), on a private copy */
static int split_args(unsigned int *argc, char ***argvp, char *input)
{
	char *start, *end = input, *out, **argv;
	unsigned int size = 8;

	*argc = 0;
	argv = calloc(size, sizeof(*argv));
	if (!argv)
		return -ENOMEM;

	for (;;) {
		start = skip_spaces(end);
		if (!*start)
			break;

		end = out = start;
		while (*end) {
			if (*end == '\\' && *(end + 1)) {
				*out++ = *(end + 1);
				end += 2;
				continue;
			}
			if (isspace((unsigned char)*end))
				break;
			*out++ = *end++;
		}

		if (*argc + 1 > size) {
			char **bigger = realloc(argv, 2 * size * sizeof(*argv));

			if (!bigger) {
				free(argv);
				return -ENOMEM;
			}
			argv = bigger;
			size *= 2;
		}

		if (*end)
			end++;
		*out = '\0';
		argv[(*argc)++] = start;
	}

	*argvp = argv;
	return 0;
}

struct lmpath_user_map {
	struct lmpath m;
	struct dm_target ti;
	char *copy;
	char **argv;
};

int lmpath_user_create(const char *table, struct lmpath **out, const char **error)
{
	struct lmpath_user_map *um;
	struct lmpath *m;
	struct dm_arg_set as;
	unsigned int argc;
	int r;

	*out = NULL;
	*error = NULL;
	um = kzalloc(sizeof(*um), GFP_KERNEL);
	if (!um)
		return -ENOMEM;
	um->copy = strdup(table);
	if (!um->copy || split_args(&argc, &um->argv, um->copy)) {
		free(um->copy);
		kfree(um);
		*error = "couldn't split parameters";
		return -ENOMEM;
	}

	m = &um->m;
	um->ti.type = &lmpath_user_type;
	um->ti.error = "Unknown error"; /* dm_table_add_target() */
	um->ti.private = m;
	m->ti = &um->ti;
	m->pg_init_delay_msecs = LMPATH_PG_INIT_DELAY_DEFAULT;
	spin_lock_init(&m->lock);
	mutex_init(&m->work_mutex);

	as.argc = argc;
	as.argv = um->argv;

	r = lmpath_parse_table(m, &as);
	if (r)
		goto bad;

	*out = m;
	return 0;

bad:
	*error = um->ti.error;
	lmpath_user_destroy(m);
	return r;
}

void lmpath_user_destroy(struct lmpath *m)
{
	struct lmpath_user_map *um;

	if (!m)
		return;
	um = container_of(m, struct lmpath_user_map, m);
	lmpath_free_topology(m);
	mutex_destroy(&m->work_mutex);
	pthread_mutex_destroy(&m->lock.m);
	free(um->argv);
	free(um->copy);
	kfree(um);
}

void lmpath_user_status(struct lmpath *m, int table, char *buf, unsigned int maxlen)
{
	if (!maxlen)
		return;
	buf[0] = '\0';
	spin_lock(&m->lock);
	lmpath_emit_status(m, table ? STATUSTYPE_TABLE : STATUSTYPE_INFO, buf, maxlen);
	spin_unlock(&m->lock);
}

unsigned int lmpath_user_nr_pgs(const struct lmpath *m)
{
	return m->nr_pgs;
}

unsigned int lmpath_user_nr_paths(const struct lmpath *m, unsigned int pg)
{
	return pg < m->nr_pgs ? m->pgs[pg].nr_paths : 0;
}

struct lmpath_ps *lmpath_user_ps(struct lmpath *m, unsigned int pg)
{
	return pg < m->nr_pgs ? &m->pgs[pg].ps : NULL;
}

struct lmpath_ps_path *lmpath_user_path(struct lmpath *m, unsigned int pg, unsigned int path)
{
	if (pg >= m->nr_pgs || path >= m->pgs[pg].nr_paths)
		return NULL;
	return &m->pgs[pg].paths[path].ps_path;
}

const char *lmpath_user_path_name(const struct lmpath_ps_path *path)
{
	return container_of(path, struct lmpath_path, ps_path)->dev->name;
}

void lmpath_user_set_cpu(unsigned int cpu)
{
	lmpath_shim_set_cpu(cpu);
}

void lmpath_user_set_nr_cpus(unsigned int nr_cpus, unsigned int nr_nodes)
{
	if (!nr_cpus || nr_cpus > NR_CPUS || !nr_nodes)
		abort();
	nr_cpu_ids = nr_cpus;
	lmpath_shim_nr_nodes = nr_nodes;
}

void lmpath_user_set_clock(const unsigned long long *ns)
{
	lmpath_shim_set_clock((const u64 *)ns);
}

/*
 * The fast path of lmpath-path.c, and the hooks it calls on the block
 * layer side, for the race tests.
 */
static struct lmpath_user_hooks user_hooks;

void lmpath_user_set_hooks(const struct lmpath_user_hooks *hooks)
{
	user_hooks = *hooks;
}

void lmpath_shim_race_point(const char *where)
{
	if (user_hooks.race_point)
		user_hooks.race_point(user_hooks.ctx, where);
}

void lmpath_kick_queued_io(struct lmpath *m)
{
	(void)m;
	if (user_hooks.kick_queued_io)
		user_hooks.kick_queued_io(user_hooks.ctx);
}

void lmpath_queue_pg_init_work(struct lmpath *m)
{
	(void)m;
	if (user_hooks.queue_pg_init_work)
		user_hooks.queue_pg_init_work(user_hooks.ctx);
}

bool lmpath_queue_activation(struct lmpath_path *p, unsigned long delay)
{
	(void)delay;
	return user_hooks.queue_activation &&
	       user_hooks.queue_activation(user_hooks.ctx, p->dev->name);
}

void lmpath_queue_fail_work(struct lmpath_path *p)
{
	if (user_hooks.queue_fail_work)
		user_hooks.queue_fail_work(user_hooks.ctx, p->dev->name);
}

void lmpath_path_event(struct lmpath_path *p, bool failed, int nr_valid)
{
	if (user_hooks.path_event)
		user_hooks.path_event(user_hooks.ctx, failed, p->dev->name, nr_valid);
}

void lmpath_table_event(struct lmpath *m)
{
	(void)m;
	if (user_hooks.table_event)
		user_hooks.table_event(user_hooks.ctx);
}

void lmpath_arm_nopath_timer(struct lmpath *m)
{
	(void)m;
	if (user_hooks.nopath_timer)
		user_hooks.nopath_timer(user_hooks.ctx, true);
}

void lmpath_disarm_nopath_timer(struct lmpath *m)
{
	(void)m;
	if (user_hooks.nopath_timer)
		user_hooks.nopath_timer(user_hooks.ctx, false);
}

/* dm_table_run_md_queue_async() has nothing to run here: bio mode */
void lmpath_run_queued_io(struct lmpath *m)
{
	lmpath_kick_queued_io(m);
}

void lmpath_flush(struct lmpath *m, enum lmpath_flush what)
{
	static const char *const names[] = {
		[LMPATH_FLUSH_PG_INIT_WORK] = "pg_init work",
		[LMPATH_FLUSH_ACTIVATIONS] = "activations",
		[LMPATH_FLUSH_FAIL_WORK] = "fail work",
		[LMPATH_FLUSH_QUEUED_IO] = "queued io",
		[LMPATH_FLUSH_EVENT] = "event",
		[LMPATH_FLUSH_NOPATH_TIMER] = "nopath timer",
	};

	(void)m;
	if (what >= ARRAY_SIZE(names) || !names[what])
		abort();
	if (user_hooks.flush)
		user_hooks.flush(user_hooks.ctx, names[what]);
}

void lmpath_user_flush_all(struct lmpath *m)
{
	lmpath_flush_all(m);
}

void lmpath_user_stop(struct lmpath *m)
{
	lmpath_stop(m);
}

struct lmpath_user_io {
	struct lmpath_io io;
	int state;
};

struct lmpath_user_io *lmpath_user_io_new(void)
{
	return kzalloc(sizeof(struct lmpath_user_io), GFP_KERNEL);
}

void lmpath_user_io_free(struct lmpath_user_io *uio)
{
	kfree(uio);
}

int lmpath_user_io_state(const struct lmpath_user_io *uio)
{
	return __atomic_load_n(&uio->state, __ATOMIC_ACQUIRE);
}

const char *lmpath_user_io_path(const struct lmpath_user_io *uio)
{
	return uio->io.path ? uio->io.path->dev->name : NULL;
}

/* lmpath-target.c __lmpath_map_bio(), without the bio */
static void map_one(struct lmpath *m, struct lmpath_user_io *uio)
{
	struct lmpath_path *p;
	int state;

	switch (lmpath_map_bio_path(m, 4096, &uio->io.node, &p)) {
	case LMPATH_BIO_QUEUED:
		state = LMPATH_USER_IO_QUEUED;
		break;
	case LMPATH_BIO_NO_PATH:
		state = LMPATH_USER_IO_FAILED;
		break;
	default:
		uio->io.path = p;
		state = LMPATH_USER_IO_MAPPED;
	}
	__atomic_store_n(&uio->state, state, __ATOMIC_RELEASE);
}

void lmpath_user_map_bio(struct lmpath *m, struct lmpath_user_io *uio)
{
	uio->io.path = NULL;
	map_one(m, uio);
}

/* lmpath-target.c lmpath_process_queued_bios(), without the bios */
unsigned int lmpath_user_drain(struct lmpath *m)
{
	struct llist_node *list = lmpath_take_queued_io(m), *next;
	unsigned int n = 0;

	for (; list; list = next, n++) {
		next = list->next;
		map_one(m, container_of(list, struct lmpath_user_io, io.node));
	}
	return n;
}

void lmpath_user_pg_init_work(struct lmpath *m)
{
	lmpath_pg_init_run(m);
}

int lmpath_user_io_held(struct lmpath *m)
{
	return test_bit(LMPF_QUEUE_IO, &m->flags);
}

int lmpath_user_pg_init_in_progress(struct lmpath *m)
{
	return atomic_read(&m->pg_init_in_progress);
}

/* What bypass_pg() and switch_group leave: no current group or path. */
void lmpath_user_forget_group(struct lmpath *m)
{
	spin_lock(&m->lock);
	WRITE_ONCE(m->current_path, NULL);
	WRITE_ONCE(m->current_pg, NULL);
	spin_unlock(&m->lock);
}

/* fail_path() on every path, without the reporting. */
void lmpath_user_fail_all_paths(struct lmpath *m)
{
	unsigned int i, j;

	spin_lock(&m->lock);
	for (i = 0; i < m->nr_pgs; i++)
		for (j = 0; j < m->pgs[i].nr_paths; j++)
			if (test_and_clear_bit(LMPP_USABLE, &m->pgs[i].paths[j].ps_path.flags))
				atomic_dec(&m->nr_valid_paths);
	if (READ_ONCE(m->current_path))
		WRITE_ONCE(m->current_path, NULL);
	spin_unlock(&m->lock);
}

/* reinstate_path() on every failed path, without the reporting. */
void lmpath_user_reinstate_all_paths(struct lmpath *m)
{
	unsigned int i, j;

	spin_lock(&m->lock);
	for (i = 0; i < m->nr_pgs; i++) {
		struct lmpath_pg *pg = &m->pgs[i];

		for (j = 0; j < pg->nr_paths; j++) {
			struct lmpath_path *p = &pg->paths[j];

			if (lmpath_path_usable(p))
				continue;
			if (pg->ps.type->reinstate_path)
				pg->ps.type->reinstate_path(&pg->ps, &p->ps_path);
			set_bit(LMPP_USABLE, &p->ps_path.flags);
			if (atomic_inc_return(&m->nr_valid_paths) == 1)
				WRITE_ONCE(m->current_path, NULL);
		}
	}
	spin_unlock(&m->lock);
}

static struct lmpath_path *path_named(struct lmpath *m, const char *name)
{
	unsigned int i, j;

	for (i = 0; i < m->nr_pgs; i++)
		for (j = 0; j < m->pgs[i].nr_paths; j++)
			if (!strcmp(m->pgs[i].paths[j].dev->name, name))
				return &m->pgs[i].paths[j];
	abort();
}

/* pg_init_done() for a successful activation of path @name. */
void lmpath_user_pg_init_done(struct lmpath *m, const char *name)
{
	lmpath_pg_init_finished(path_named(m, name), 0, false);
}

/* fail_path() on path @name, without the reporting. */
void lmpath_user_fail_path(struct lmpath *m, const char *name)
{
	struct lmpath_path *p = path_named(m, name);

	spin_lock(&m->lock);
	if (test_and_clear_bit(LMPP_USABLE, &p->ps_path.flags))
		atomic_dec(&m->nr_valid_paths);
	if (READ_ONCE(m->current_path) == p)
		WRITE_ONCE(m->current_path, NULL);
	spin_unlock(&m->lock);
}

void lmpath_user_io_error(struct lmpath *m, const char *name)
{
	lmpath_fail_path_fast(m, path_named(m, name));
}

void lmpath_user_report_failure(struct lmpath *m, const char *name)
{
	lmpath_report_failure(path_named(m, name));
}

void lmpath_user_fail_path_message(struct lmpath *m, const char *name)
{
	lmpath_fail_path(path_named(m, name));
}

void lmpath_user_reinstate_path(struct lmpath *m, const char *name)
{
	lmpath_reinstate_path(path_named(m, name));
}

/* lmpath-target.c lmpath_end_io_bio() for a path error, without the bio */
void lmpath_user_end_io_error(struct lmpath *m, struct lmpath_user_io *uio)
{
	struct lmpath_path *p = uio->io.path;
	int state = LMPATH_USER_IO_QUEUED;

	/*
	 * As in the kernel: the path is forgotten before the bio may be
	 * queued, and once it is the drain owns @uio (it may complete it and
	 * the test may free the map): its state is set before.
	 */
	uio->io.path = NULL;
	__atomic_store_n(&uio->state, LMPATH_USER_IO_QUEUED, __ATOMIC_RELEASE);
	if (lmpath_end_io_bio_path(m, p, &uio->io.node) == LMPATH_BIO_NO_PATH) {
		state = LMPATH_USER_IO_FAILED;
		__atomic_store_n(&uio->state, state, __ATOMIC_RELEASE);
	}
}

int lmpath_user_nr_valid_paths(struct lmpath *m)
{
	return atomic_read(&m->nr_valid_paths);
}

int lmpath_user_path_usable(struct lmpath *m, const char *name)
{
	return lmpath_path_usable(path_named(m, name));
}

unsigned int lmpath_user_fail_count(struct lmpath *m, const char *name)
{
	struct lmpath_path *p = path_named(m, name);
	unsigned int n;

	spin_lock(&m->lock);
	n = p->fail_count;
	spin_unlock(&m->lock);
	return n;
}

int lmpath_user_queue_if_no_path(struct lmpath *m)
{
	return test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags);
}

void lmpath_user_pg_init_retry(struct lmpath *m, const char *name)
{
	/* lmpath-target.c pg_init_limit_reached(), below the limit */
	spin_lock(&m->lock);
	set_bit(LMPF_PG_INIT_REQUIRED, &m->flags);
	spin_unlock(&m->lock);
	lmpath_pg_init_finished(path_named(m, name), 0, true);
}

int lmpath_user_current_pair_consistent(struct lmpath *m)
{
	struct lmpath_path *p;
	int ok;

	spin_lock(&m->lock);
	p = READ_ONCE(m->current_path);
	ok = !p || p->pg == READ_ONCE(m->current_pg);
	spin_unlock(&m->lock);
	return ok;
}
