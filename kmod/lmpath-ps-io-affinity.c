// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-lmpath io-affinity path selector: each path serves the CPUs in its
 * cpumask; I/O goes to the path mapped to the submitting CPU, else to a
 * usable path mapped to a CPU of the same NUMA node, else to any usable
 * mapped path.
 *
 * The CPU-to-path map is built by the constructor and never changes, so
 * selection only reads it.  The CPU number is a hint: a migration between
 * reading it and submitting costs locality, not correctness, so no
 * preemption is disabled.
 *
 * Per-path arguments: <cpumask> (hex, as in /proc/irq/N/smp_affinity).
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/device-mapper.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "lmpath-ps.h"

#define DM_MSG_PREFIX "lmpath io-affinity"

struct ioa_path {
	struct lmpath_ps_path *path;
	cpumask_var_t cpumask;		/* as given in the table; constant */
};

struct ioa_selector {
	struct lmpath_ps_paths base;	/* no cursor */
	struct ioa_path **cpu_map;	/* nr_cpu_ids entries; constant */
	cpumask_var_t mapped;		/* CPUs with an entry; constant */
	atomic_t map_misses;		/* I/O from CPUs with no entry */
	struct ioa_path paths[];
};

/* Only too_many_paths is used: the one argument is a cpumask. */
static const struct lmpath_ps_spec ioa_spec =
	LMPATH_PS_SPEC("io-affinity", 0, 1);

static void ioa_destroy(struct lmpath_ps *ps)
{
	struct ioa_selector *s = ps->context;
	unsigned int i;

	for (i = 0; i < s->base.nr_paths; i++)
		free_cpumask_var(s->paths[i].cpumask);
	free_cpumask_var(s->mapped);
	kfree(s->cpu_map);
	lmpath_ps_free(ps);
}

static int ioa_create(struct lmpath_ps *ps, unsigned int nr_paths,
		      unsigned int argc, char **argv)
{
	struct ioa_selector *s;

	s = lmpath_ps_alloc(ps, struct_size(s, paths, nr_paths), nr_paths,
			    &ioa_spec);
	if (!s)
		return -ENOMEM;

	s->cpu_map = kcalloc(nr_cpu_ids, sizeof(*s->cpu_map), GFP_KERNEL);
	if (!s->cpu_map)
		goto bad;

	if (!zalloc_cpumask_var(&s->mapped, GFP_KERNEL))
		goto bad;

	atomic_set(&s->map_misses, 0);
	return 0;

bad:
	ioa_destroy(ps);
	return -ENOMEM;
}

static int ioa_add_path(struct lmpath_ps *ps, struct lmpath_ps_path *path,
			unsigned int argc, char **argv, char **error)
{
	struct ioa_selector *s = ps->context;
	unsigned int cpu, added = 0;
	struct ioa_path *ip;
	int i;

	if (argc != 1) {
		*error = "io-affinity ps: invalid number of arguments";
		return -EINVAL;
	}

	/* On an error below, destroy frees the cpumask of this counted slot. */
	i = lmpath_ps_add_slot(&s->base, error);
	if (i < 0)
		return i;

	ip = &s->paths[i];
	if (!zalloc_cpumask_var(&ip->cpumask, GFP_KERNEL)) {
		*error = "io-affinity ps: Error allocating cpumask context";
		return -ENOMEM;
	}

	if (cpumask_parse(argv[0], ip->cpumask)) {
		*error = "io-affinity ps: invalid cpumask";
		return -EINVAL;
	}

	for_each_cpu(cpu, ip->cpumask) {
		if (cpu >= nr_cpu_ids) {
			DMWARN_LIMIT("Ignoring mapping for CPU %u. Max CPU is %u",
				     cpu, nr_cpu_ids);
			break;
		}
		if (s->cpu_map[cpu]) {
			DMWARN("CPU mapping for %u exists. Ignoring.", cpu);
			continue;
		}
		cpumask_set_cpu(cpu, s->mapped);
		s->cpu_map[cpu] = ip;
		added++;
	}

	if (!added) {
		*error = "io-affinity ps: No new/valid CPU mapping found";
		return -EINVAL;
	}

	ip->path = path;
	path->context = ip;
	return 0;
}

static inline bool ioa_usable(const struct ioa_path *ip)
{
	return ip && lmpath_ps_path_usable(ip->path);
}

static struct lmpath_ps_path *ioa_select_path(struct lmpath_ps *ps,
					      size_t nr_bytes)
{
	struct ioa_selector *s = ps->context;
	unsigned int cpu = raw_smp_processor_id();
	struct ioa_path *ip = s->cpu_map[cpu];
	unsigned int i;

	if (ioa_usable(ip))
		return ip->path;

	if (!ip)
		atomic_inc(&s->map_misses);

	for_each_cpu(i, cpumask_of_node(cpu_to_node(cpu))) {
		ip = s->cpu_map[i];
		if (ioa_usable(ip))
			return ip->path;
	}

	for_each_cpu(i, s->mapped) {
		ip = s->cpu_map[i];
		if (ioa_usable(ip))
			return ip->path;
	}

	return NULL;
}

static int ioa_status(struct lmpath_ps *ps, struct lmpath_ps_path *path,
		      status_type_t type, char *result, unsigned int maxlen)
{
	struct ioa_selector *s = ps->context;
	struct ioa_path *ip;
	unsigned int sz = 0;

	if (!path) {
		DMEMIT("0 ");
		return sz;
	}

	switch (type) {
	case STATUSTYPE_INFO:
		DMEMIT("%d ", atomic_read(&s->map_misses));
		break;
	case STATUSTYPE_TABLE:
		ip = path->context;
		DMEMIT("%*pb ", cpumask_pr_args(ip->cpumask));
		break;
	case STATUSTYPE_IMA:
		*result = '\0';
		break;
	}

	return sz;
}

const struct lmpath_ps_type lmpath_ps_io_affinity = {
	.name		= "io-affinity",
	.table_args	= 1,
	.info_args	= 1,
	.create		= ioa_create,
	.destroy	= ioa_destroy,
	.add_path	= ioa_add_path,
	.select_path	= ioa_select_path,
	.status		= ioa_status,
};
