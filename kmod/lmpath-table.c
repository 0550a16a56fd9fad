// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-lmpath: the table grammar, in both directions.
 *
 * The constructor parser builds the immutable topology (groups, paths,
 * selectors) and the status code prints it back, in the exact format of
 * the stock multipath target so that tools cannot tell the two apart and
 * a TABLE status fed back to the constructor yields the same table.
 *
 * This file uses only the primitives listed in SHIM.md; opening a path
 * device is left to lmpath_attach_path() in lmpath-target.c.
 */
#include <linux/device-mapper.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "lmpath.h"

#define DM_MSG_PREFIX "lmpath"

/*
 *---------------------------------------------------------------
 * Constructor parsing
 *
 * <#features> [<feature> [<arg>]]*
 * <#hw_handler args> [<hw_handler> [<arg>]*]
 * <#priority groups> <initial priority group>
 *     [<selector> <#selector args> [<arg>]*
 *      <#paths> <#per-path selector args>
 *         [<path> [<arg>]*]+ ]+
 *
 * features: queue_if_no_path, retain_attached_hw_handler,
 *           pg_init_retries <1..50>, pg_init_delay_msecs <0..60000>,
 *           queue_mode <bio|rq|mq>
 *---------------------------------------------------------------
 */
int lmpath_parse_features(struct lmpath *m, struct dm_arg_set *as)
{
	static const struct dm_arg _args[] = {
		{0, 8, "invalid number of feature args"},
		{1, 50, "pg_init_retries must be between 1 and 50"},
		{0, 60000, "pg_init_delay_msecs must be between 0 and 60000"},
	};
	struct dm_target *ti = m->ti;
	const char *name;
	unsigned int argc;
	int r;

	r = dm_read_arg_group(_args, as, &argc, &ti->error);
	if (r)
		return -EINVAL;

	while (argc && !r) {
		name = dm_shift_arg(as);
		argc--;

		if (!strcasecmp(name, "queue_if_no_path")) {
			set_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags);
			continue;
		}

		if (!strcasecmp(name, "retain_attached_hw_handler")) {
			set_bit(LMPF_RETAIN_ATTACHED_HW_HANDLER, &m->flags);
			continue;
		}

		if (!strcasecmp(name, "pg_init_retries") && argc >= 1) {
			r = dm_read_arg(_args + 1, as, &m->pg_init_retries,
					&ti->error);
			argc--;
			continue;
		}

		if (!strcasecmp(name, "pg_init_delay_msecs") && argc >= 1) {
			r = dm_read_arg(_args + 2, as, &m->pg_init_delay_msecs,
					&ti->error);
			argc--;
			continue;
		}

		if (!strcasecmp(name, "queue_mode") && argc >= 1) {
			const char *mode = dm_shift_arg(as);

			if (!strcasecmp(mode, "bio")) {
				m->queue_mode = DM_TYPE_BIO_BASED;
			} else if (!strcasecmp(mode, "rq") ||
				   !strcasecmp(mode, "mq")) {
				m->queue_mode = DM_TYPE_REQUEST_BASED;
			} else {
				ti->error = "Unknown 'queue_mode' requested";
				r = -EINVAL;
			}
			argc--;
			continue;
		}

		ti->error = "Unrecognised multipath feature request";
		r = -EINVAL;
	}

	return r;
}

/*
 * The handler name, and its arguments packed the way scsi_dh_set_params()
 * wants them: the argument count in decimal, then each argument, all
 * NUL-terminated back to back.
 */
static int parse_hw_handler(struct lmpath *m, struct dm_arg_set *as)
{
	static const struct dm_arg _args[] = {
		{0, 1024, "invalid number of hardware handler args"},
	};
	struct dm_target *ti = m->ti;
	unsigned int hw_argc, i;
	char *p;
	int len;

	if (dm_read_arg_group(_args, as, &hw_argc, &ti->error))
		return -EINVAL;

	if (!hw_argc)
		return 0;

	if (m->queue_mode == DM_TYPE_BIO_BASED) {
		dm_consume_args(as, hw_argc);
		DMERR("bio-based multipath doesn't allow hardware handler args");
		return 0;
	}

	m->hw_handler_name = kstrdup(dm_shift_arg(as), GFP_KERNEL);
	if (!m->hw_handler_name) {
		ti->error = "memory allocation failed";
		return -ENOMEM;
	}

	if (hw_argc > 1) {
		len = 4;
		for (i = 0; i < hw_argc - 1; i++)
			len += strlen(as->argv[i]) + 1;

		p = kzalloc(len, GFP_KERNEL);
		if (!p) {
			ti->error = "memory allocation failed";
			kfree(m->hw_handler_name);
			m->hw_handler_name = NULL;
			return -ENOMEM;
		}
		m->hw_handler_params = p;

		p += sprintf(p, "%u", hw_argc - 1) + 1;
		for (i = 0; i < hw_argc - 1; i++)
			p += sprintf(p, "%s", as->argv[i]) + 1;
	}
	dm_consume_args(as, hw_argc - 1);

	return 0;
}

/*
 * The number of paths is read after the selector's own arguments, but the
 * selector wants it to size its arrays once.  Peek at it; a bad value is
 * reported in its turn, after the selector was built, as in the stock
 * target.
 */
static unsigned int peek_nr_paths(struct dm_arg_set *as, unsigned int skip)
{
	unsigned int n;
	char dummy;

	if (as->argc <= skip ||
	    sscanf(as->argv[skip], "%u%c", &n, &dummy) != 1 ||
	    n < 1 || n > LMPATH_MAX_PATHS)
		return 1;

	return n;
}

static int parse_path_selector(struct lmpath_pg *pg, struct dm_arg_set *as)
{
	static const struct dm_arg _args[] = {
		{0, 1024, "invalid number of path selector args"},
	};
	struct dm_target *ti = pg->m->ti;
	const struct lmpath_ps_type *type;
	unsigned int ps_argc;
	int r;

	type = lmpath_ps_lookup(dm_shift_arg(as));
	if (!type) {
		ti->error = "unknown path selector type";
		return -EINVAL;
	}

	r = dm_read_arg_group(_args, as, &ps_argc, &ti->error);
	if (r)
		return -EINVAL;

	r = type->create(&pg->ps, peek_nr_paths(as, ps_argc), ps_argc,
			 as->argv);
	if (r) {
		ti->error = "path selector constructor failed";
		return r;
	}

	pg->ps.type = type;
	dm_consume_args(as, ps_argc);
	return 0;
}

static int parse_path(struct lmpath_pg *pg, struct lmpath_path *p,
		      struct dm_arg_set *as)
{
	struct lmpath *m = pg->m;
	struct dm_target *ti = m->ti;
	int r;

	p->pg = pg;
	set_bit(LMPP_USABLE, &p->ps_path.flags);

	r = lmpath_attach_path(m, p, dm_shift_arg(as));
	if (r)
		return r;

	return pg->ps.type->add_path(&pg->ps, &p->ps_path, as->argc, as->argv,
				     &ti->error);
}

static int parse_priority_group(struct lmpath_pg *pg, struct dm_arg_set *as)
{
	static const struct dm_arg _args[] = {
		{1, 1024, "invalid number of paths"},
		{0, 1024, "invalid number of selector args"},
	};
	struct dm_target *ti = pg->m->ti;
	unsigned int i, nr_paths, nr_selector_args, nr_args;
	int r;

	if (as->argc < 2) {
		as->argc = 0;
		ti->error = "not enough priority group arguments";
		return -EINVAL;
	}

	r = parse_path_selector(pg, as);
	if (r)
		return r;

	r = dm_read_arg(_args, as, &nr_paths, &ti->error);
	if (r)
		return r;

	r = dm_read_arg(_args + 1, as, &nr_selector_args, &ti->error);
	if (r)
		return r;

	pg->paths = kvcalloc(nr_paths, sizeof(*pg->paths), GFP_KERNEL);
	if (!pg->paths) {
		ti->error = "couldn't allocate paths";
		return -ENOMEM;
	}

	nr_args = 1 + nr_selector_args;
	for (i = 0; i < nr_paths; i++) {
		struct dm_arg_set path_args;

		if (as->argc < nr_args) {
			ti->error = "not enough path parameters";
			return -EINVAL;
		}

		path_args.argc = nr_args;
		path_args.argv = as->argv;

		/* Count it first so that a failure unwinds it too. */
		pg->nr_paths++;
		r = parse_path(pg, &pg->paths[i], &path_args);
		if (r)
			return r;

		dm_consume_args(as, nr_args);
	}

	return 0;
}

/* Release a group's paths and selector, also when half-built. */
static void free_pg(struct lmpath *m, struct lmpath_pg *pg)
{
	unsigned int i;

	for (i = 0; i < pg->nr_paths; i++)
		if (pg->paths[i].dev)
			lmpath_detach_path(m, &pg->paths[i]);

	if (pg->ps.type)
		pg->ps.type->destroy(&pg->ps);
	kvfree(pg->paths);
	pg->paths = NULL;
	pg->nr_paths = 0;
}

static int parse_surplus_group(struct lmpath *m, struct dm_arg_set *as)
{
	struct lmpath_pg *pg;
	int r;

	pg = kzalloc(sizeof(*pg), GFP_KERNEL);
	if (!pg) {
		m->ti->error = "couldn't allocate priority group";
		return -ENOMEM;
	}
	pg->m = m;

	r = parse_priority_group(pg, as);
	free_pg(m, pg);
	kfree(pg);
	return r;
}

int lmpath_parse_topology(struct lmpath *m, struct dm_arg_set *as)
{
	static const struct dm_arg _args[] = {
		{0, LMPATH_MAX_PGS, "invalid number of priority groups"},
		{0, LMPATH_MAX_PGS, "invalid initial priority group number"},
	};
	struct dm_target *ti = m->ti;
	unsigned int nr_pgs, next_pg_num, pg_count = 0;
	unsigned int nr_valid = 0;
	int r;

	r = parse_hw_handler(m, as);
	if (r)
		return r;

	r = dm_read_arg(_args, as, &nr_pgs, &ti->error);
	if (r)
		return r;

	r = dm_read_arg(_args + 1, as, &next_pg_num, &ti->error);
	if (r)
		return r;

	if ((!nr_pgs && next_pg_num) || (nr_pgs && !next_pg_num)) {
		ti->error = "invalid initial priority group";
		return -EINVAL;
	}

	if (nr_pgs) {
		m->pgs = kvcalloc(nr_pgs, sizeof(*m->pgs), GFP_KERNEL);
		if (!m->pgs) {
			ti->error = "couldn't allocate priority group";
			return -ENOMEM;
		}
	}

	while (as->argc) {
		struct lmpath_pg *pg;

		if (pg_count >= nr_pgs) {
			/*
			 * More groups than announced.  Parse them anyway, so
			 * that an error inside one is reported as the stock
			 * target reports it, then refuse the count.
			 */
			r = parse_surplus_group(m, as);
			if (r)
				return r;
			pg_count++;
			continue;
		}

		pg = &m->pgs[pg_count++];
		pg->m = m;
		pg->pg_num = pg_count;
		m->nr_pgs = pg_count;

		r = parse_priority_group(pg, as);
		if (r)
			return r;

		nr_valid += pg->nr_paths;
		if (pg->pg_num == next_pg_num)
			m->next_pg = pg;
	}

	if (pg_count != nr_pgs) {
		ti->error = "priority group count mismatch";
		return -EINVAL;
	}

	atomic_set(&m->nr_valid_paths, nr_valid);
	return 0;
}

/* Undo lmpath_parse_topology(), also after it failed half-way. */
/*
 * The whole table, in the constructor's order (stock multipath_ctr() and
 * alloc_multipath_stage2()): the features; the defaults they leave
 * (request mode; bio mode only discovers an attached scsi_dh, never sets
 * one); I/O held until the first map has picked a group; then the
 * handler and the groups.
 */
int lmpath_parse_table(struct lmpath *m, struct dm_arg_set *as)
{
	int r;

	r = lmpath_parse_features(m, as);
	if (r)
		return r;

	if (m->queue_mode == DM_TYPE_NONE)
		m->queue_mode = DM_TYPE_REQUEST_BASED;
	else if (m->queue_mode == DM_TYPE_BIO_BASED)
		set_bit(LMPF_RETAIN_ATTACHED_HW_HANDLER, &m->flags);

	set_bit(LMPF_QUEUE_IO, &m->flags);

	return lmpath_parse_topology(m, as);
}

void lmpath_free_topology(struct lmpath *m)
{
	unsigned int i;

	for (i = 0; i < m->nr_pgs; i++)
		free_pg(m, &m->pgs[i]);
	kvfree(m->pgs);
	m->pgs = NULL;
	m->nr_pgs = 0;

	kfree(m->hw_handler_name);
	m->hw_handler_name = NULL;
	kfree(m->hw_handler_params);
	m->hw_handler_params = NULL;
}

/*
 *---------------------------------------------------------------
 * Status
 *
 * INFO:
 * 2 <queue_io> <pg_init_count> <#handler status args (0)>
 * <#groups> <active group>
 *     [<D|A|E> <#selector status args> [<arg>]*
 *      <#paths> <#per-path selector status args>
 *         [<path> <A|F> <fail count> [<arg>]*]+ ]+
 *
 * TABLE: the constructor grammar above, canonicalised.
 *
 * The caller holds m->lock so that the text is one consistent snapshot.
 *---------------------------------------------------------------
 */
static char pg_state(struct lmpath *m, struct lmpath_pg *pg)
{
	if (READ_ONCE(pg->bypassed))
		return 'D';	/* disabled */
	if (pg == READ_ONCE(m->current_pg))
		return 'A';	/* active */
	return 'E';		/* enabled */
}

static int emit_ps(struct lmpath_pg *pg, struct lmpath_path *p,
		   status_type_t type, char *result, unsigned int maxlen)
{
	unsigned int sz = 0;

	if (pg->ps.type->status)
		return pg->ps.type->status(&pg->ps, p ? &p->ps_path : NULL,
					   type, result, maxlen);
	if (!p)
		DMEMIT("0 ");
	return sz;
}

static void emit_features(struct lmpath *m, char *result, unsigned int maxlen,
			  unsigned int *szp)
{
	bool qinp = test_bit(LMPF_QUEUE_IF_NO_PATH, &m->flags);
	bool retain = test_bit(LMPF_RETAIN_ATTACHED_HW_HANDLER, &m->flags);
	bool delay = m->pg_init_delay_msecs != LMPATH_PG_INIT_DELAY_DEFAULT;
	bool bio = m->queue_mode == DM_TYPE_BIO_BASED;
	unsigned int sz = *szp;

	DMEMIT("%u ", qinp + (m->pg_init_retries > 0) * 2 + delay * 2 +
	       retain + bio * 2);
	if (qinp)
		DMEMIT("queue_if_no_path ");
	if (m->pg_init_retries)
		DMEMIT("pg_init_retries %u ", m->pg_init_retries);
	if (delay)
		DMEMIT("pg_init_delay_msecs %u ", m->pg_init_delay_msecs);
	if (retain)
		DMEMIT("retain_attached_hw_handler ");
	if (bio)
		DMEMIT("queue_mode bio ");

	*szp = sz;
}

static void emit_ima(struct lmpath *m, char *result, unsigned int maxlen)
{
	struct dm_target *ti = m->ti;
	unsigned int sz = 0, i, j;

	DMEMIT_TARGET_NAME_VERSION(ti->type);
	DMEMIT(",nr_priority_groups=%u", m->nr_pgs);

	for (i = 0; i < m->nr_pgs; i++) {
		struct lmpath_pg *pg = &m->pgs[i];

		DMEMIT(",pg_state_%u=%c", i, pg_state(m, pg));
		DMEMIT(",nr_pgpaths_%u=%u", i, pg->nr_paths);
		DMEMIT(",path_selector_name_%u=%s", i, pg->ps.type->name);

		for (j = 0; j < pg->nr_paths; j++) {
			struct lmpath_path *p = &pg->paths[j];

			DMEMIT(",path_name_%u_%u=%s,is_active_%u_%u=%c,fail_count_%u_%u=%u",
			       i, j, p->dev->name,
			       i, j, lmpath_path_usable(p) ? 'A' : 'F',
			       i, j, p->fail_count);
			if (pg->ps.type->status) {
				DMEMIT(",path_selector_status_%u_%u=", i, j);
				sz += emit_ps(pg, p, STATUSTYPE_IMA,
					      result + sz, maxlen - sz);
			}
		}
	}
	DMEMIT(";");
}

void lmpath_emit_status(struct lmpath *m, status_type_t type,
			char *result, unsigned int maxlen)
{
	struct lmpath_pg *cur, *next;
	unsigned int sz = 0, i, j, pg_num;

	if (type == STATUSTYPE_IMA) {
		emit_ima(m, result, maxlen);
		return;
	}

	if (type == STATUSTYPE_INFO)
		DMEMIT("2 %u %u ", test_bit(LMPF_QUEUE_IO, &m->flags),
		       atomic_read(&m->pg_init_count));
	else
		emit_features(m, result, maxlen, &sz);

	if (!m->hw_handler_name || type == STATUSTYPE_INFO)
		DMEMIT("0 ");
	else
		DMEMIT("1 %s ", m->hw_handler_name);

	DMEMIT("%u ", m->nr_pgs);

	next = READ_ONCE(m->next_pg);
	cur = READ_ONCE(m->current_pg);
	if (next)
		pg_num = next->pg_num;
	else if (cur)
		pg_num = cur->pg_num;
	else
		pg_num = m->nr_pgs ? 1 : 0;
	DMEMIT("%u ", pg_num);

	for (i = 0; i < m->nr_pgs; i++) {
		struct lmpath_pg *pg = &m->pgs[i];
		const struct lmpath_ps_type *pst = pg->ps.type;

		if (type == STATUSTYPE_INFO)
			DMEMIT("%c ", pg_state(m, pg));
		else
			DMEMIT("%s ", pst->name);

		sz += emit_ps(pg, NULL, type, result + sz, maxlen - sz);

		DMEMIT("%u %u ", pg->nr_paths,
		       type == STATUSTYPE_INFO ? pst->info_args :
						 pst->table_args);

		for (j = 0; j < pg->nr_paths; j++) {
			struct lmpath_path *p = &pg->paths[j];

			if (type == STATUSTYPE_INFO)
				DMEMIT("%s %s %u ", p->dev->name,
				       lmpath_path_usable(p) ? "A" : "F",
				       p->fail_count);
			else
				DMEMIT("%s ", p->dev->name);

			if (pst->status)
				sz += emit_ps(pg, p, type, result + sz,
					      maxlen - sz);
		}
	}
}
