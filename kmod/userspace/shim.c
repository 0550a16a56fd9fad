// SPDX-License-Identifier: GPL-2.0-only
/*
 * Userspace implementations of the kernel primitives in lmpath-shim.h.
 * Where the kernel's behaviour is visible in a table (number parsing,
 * cpumask syntax, status text) this follows lib/vsprintf.c, lib/bitmap.c
 * and drivers/md/dm-table.c.
 */
#include <ctype.h>
#include <time.h>

#include <linux/device-mapper.h>

unsigned int nr_cpu_ids = 4;
unsigned int lmpath_shim_nr_nodes = 1;
unsigned long jiffies;
unsigned long lmpath_shim_warnings;

static _Thread_local unsigned int shim_cpu;

void lmpath_shim_set_cpu(unsigned int cpu)
{
	if (cpu >= NR_CPUS)
		abort();
	shim_cpu = cpu;
}

unsigned int lmpath_shim_cpu(void)
{
	return shim_cpu;
}

void *lmpath_shim_zalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

void *lmpath_shim_alloc_percpu(size_t size)
{
	if (size > LMPATH_SHIM_PCPU_STRIDE)
		abort();
	return calloc(NR_CPUS, LMPATH_SHIM_PCPU_STRIDE);
}

void lmpath_shim_free_percpu(void *p)
{
	free(p);
}

/* ---- cpumask */

bool zalloc_cpumask_var(cpumask_var_t *mask, gfp_t flags)
{
	(void)flags;
	*mask = calloc(1, sizeof(**mask));
	return *mask != NULL;
}

bool alloc_cpumask_var(cpumask_var_t *mask, gfp_t flags)
{
	return zalloc_cpumask_var(mask, flags);
}

void free_cpumask_var(cpumask_var_t mask)
{
	free(mask);
}

unsigned int lmpath_shim_cpumask_next(int n, const struct cpumask *m)
{
	unsigned int cpu;

	for (cpu = n + 1; cpu < nr_cpu_ids; cpu++)
		if (test_bit(cpu, m->bits))
			return cpu;
	return nr_cpu_ids;
}

unsigned int cpumask_weight(const struct cpumask *m)
{
	unsigned int cpu, w = 0;

	for_each_cpu(cpu, m)
		w++;
	return w;
}

bool cpumask_empty(const struct cpumask *m)
{
	return cpumask_first(m) >= nr_cpu_ids;
}

/* CPUs are spread over lmpath_shim_nr_nodes nodes in blocks. */
int cpu_to_node(int cpu)
{
	unsigned int per = DIV_ROUND_UP(nr_cpu_ids, lmpath_shim_nr_nodes);

	return per ? (unsigned int)cpu / per : 0;
}

const struct cpumask *cpumask_of_node(int node)
{
	static _Thread_local struct cpumask m;
	unsigned int cpu;

	memset(&m, 0, sizeof(m));
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu_to_node(cpu) == node)
			m.bits[cpu / BITS_PER_LONG] |= BIT(cpu % BITS_PER_LONG);
	return &m;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * lib/bitmap.c bitmap_parse(): comma-separated 32-bit hex chunks, lowest
 * chunk last; up to the first newline; blanks and commas around chunks
 * are skipped; a chunk of more than 8 digits or a bit at or above
 * nr_cpumask_bits is -EOVERFLOW; anything not hex is -EINVAL.
 */
int cpumask_parse(const char *buf, struct cpumask *dstp)
{
	const char *nl = strchr(buf, '\n');
	const char *start = buf;
	const char *end = (nl ? nl : buf + strlen(buf)) - 1;
	u32 chunks[NR_CPUS / 32] = {0};
	unsigned int nchunks = 0, i, bit;

	for (;;) {
		u32 val = 0;
		int digits = 0;

		while (start <= end && (isspace((unsigned char)*end) || *end == ','))
			end--;
		if (start > end)
			break;
		if (nchunks == DIV_ROUND_UP(nr_cpumask_bits, 32))
			return -EOVERFLOW;
		while (start <= end && *end != ',' && !isspace((unsigned char)*end)) {
			int h = hex_value(*end);

			if (h < 0)
				return -EINVAL;
			if (digits == 8)
				return -EOVERFLOW;
			val |= (u32)h << (4 * digits++);
			end--;
		}
		chunks[nchunks++] = val;
	}

	for (bit = nr_cpumask_bits; bit < nchunks * 32; bit++)
		if (chunks[bit / 32] & (1u << (bit % 32)))
			return -EOVERFLOW;

	memset(dstp, 0, sizeof(*dstp));
	for (i = 0; i < nchunks * 32 && i < nr_cpumask_bits; i++)
		if (chunks[i / 32] & (1u << (i % 32)))
			dstp->bits[i / BITS_PER_LONG] |= BIT(i % BITS_PER_LONG);
	return 0;
}

/* lib/vsprintf.c bitmap_string(): "%*pb" */
static int bitmap_string(char *buf, size_t size, const unsigned long *bits, int nr_bits)
{
	int chunksz = nr_bits & 31 ? nr_bits & 31 : 32;
	int bit, n = 0;
	bool first = true;

	for (bit = DIV_ROUND_UP(nr_bits, 32) * 32 - 32; bit >= 0; bit -= 32) {
		u32 val = 0;
		int i;

		for (i = 0; i < chunksz; i++)
			if (test_bit(bit + i, bits))
				val |= 1u << i;
		n += snprintf(buf + n, size > (size_t)n ? size - n : 0, "%s%0*x", first ? "" : ",",
			      DIV_ROUND_UP(chunksz, 4), val);
		first = false;
		chunksz = 32;
	}
	return n;
}

/* ---- text */

static int shim_vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n;

	if (!size)
		return 0;
	n = vsnprintf(buf, size, fmt, ap);
	if (n < 0)
		return 0;
	return (size_t)n >= size ? (int)size - 1 : n;
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = shim_vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/*
 * DMEMIT: scnprintf plus the kernel's "%*pb".  The only user passes it as
 * the leading conversion ("%*pb "), which is all this handles.
 */
int lmpath_shim_emit(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (!strncmp(fmt, "%*pb", 4)) {
		char tmp[NR_CPUS + NR_CPUS / 8 + 8];
		int nbits = va_arg(ap, int);
		const unsigned long *bits = va_arg(ap, const unsigned long *);

		bitmap_string(tmp, sizeof(tmp), bits, nbits);
		n = scnprintf(buf, size, "%s", tmp);
		if ((size_t)n + 1 < size)
			n += shim_vscnprintf(buf + n, size - n, fmt + 4, ap);
	} else {
		n = shim_vscnprintf(buf, size, fmt, ap);
	}
	va_end(ap);
	return n;
}

char *lmpath_shim_skip_spaces(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return (char *)s;
}

/*
 * lib/vsprintf.c simple_strntoull() for base 10: digits only, the value
 * wraps modulo 2^64 on overflow (the kernel ignores the overflow there).
 */
static u64 strtoull_wrap(const char *s, const char **end)
{
	u64 v = 0;

	while (isdigit((unsigned char)*s))
		v = v * 10 + (u64)(*s++ - '0');
	*end = s;
	return v;
}

/*
 * lib/vsprintf.c vsscanf(), for the conversions lmpath uses: %u %d %c
 * (and %llu), blanks in the format skipping blanks in the input, other
 * characters matched literally.  Differences from glibc that a table can
 * show: %u takes no sign ("-1" and "+1" are not numbers), an overflowing
 * number wraps instead of saturating, and conversion stops at the end of
 * the input before %c.
 */
int lmpath_shim_sscanf(const char *str, const char *fmt, ...)
{
	va_list ap;
	int num = 0;

	va_start(ap, fmt);
	while (*fmt) {
		bool is_sign = false, is_ll = false, neg = false;
		const char *next;
		u64 v;

		if (isspace((unsigned char)*fmt)) {
			fmt = skip_spaces(++fmt);
			str = skip_spaces(str);
		}
		if (*fmt != '%' && *fmt) {
			if (*fmt++ != *str++)
				break;
			continue;
		}
		if (!*fmt)
			break;
		++fmt;
		if (fmt[0] == 'l' && fmt[1] == 'l') {
			is_ll = true;
			fmt += 2;
		}
		if (!*fmt || !*str)
			break;
		switch (*fmt++) {
		case 'c':
			*va_arg(ap, char *) = *str++;
			num++;
			continue;
		case 'd':
			is_sign = true;
			break;
		case 'u':
			break;
		default:
			abort(); /* not a conversion the lmpath code uses */
		}
		str = skip_spaces(str);
		if (is_sign && *str == '-') {
			neg = true;
			if (!isdigit((unsigned char)str[1]))
				break;
			str++;
		}
		if (!isdigit((unsigned char)*str))
			break;
		v = strtoull_wrap(str, &next);
		if (neg)
			v = -v;
		if (is_ll)
			*va_arg(ap, u64 *) = v;
		else if (is_sign)
			*va_arg(ap, int *) = (int)v;
		else
			*va_arg(ap, unsigned int *) = (unsigned int)v;
		str = next;
		num++;
	}
	va_end(ap);
	return num;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	const char *end;
	u64 v;

	if (base != 10 && base != 0)
		abort();
	if (*s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	v = strtoull_wrap(s, &end);
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT_MAX || end - s > 20)
		return -ERANGE;
	*res = v;
	return 0;
}

/* ---- drivers/md/dm-table.c */

static int validate_next_arg(const struct dm_arg *arg, struct dm_arg_set *arg_set,
			     unsigned int *value, char **error, unsigned int grouped)
{
	const char *arg_str = dm_shift_arg(arg_set);
	char dummy;

	if (!arg_str || (sscanf(arg_str, "%u%c", value, &dummy) != 1) || (*value < arg->min) ||
	    (*value > arg->max) || (grouped && arg_set->argc < *value)) {
		*error = arg->error;
		return -EINVAL;
	}

	return 0;
}

int dm_read_arg(const struct dm_arg *arg, struct dm_arg_set *arg_set, unsigned int *value,
		char **error)
{
	return validate_next_arg(arg, arg_set, value, error, 0);
}

int dm_read_arg_group(const struct dm_arg *arg, struct dm_arg_set *arg_set, unsigned int *value,
		      char **error)
{
	return validate_next_arg(arg, arg_set, value, error, 1);
}

const char *dm_shift_arg(struct dm_arg_set *as)
{
	char *r;

	if (as->argc) {
		as->argc--;
		r = *as->argv;
		as->argv++;
		return r;
	}

	return NULL;
}

void dm_consume_args(struct dm_arg_set *as, unsigned int num_args)
{
	if (num_args > as->argc)
		abort(); /* BUG_ON in the kernel */
	as->argc -= num_args;
	as->argv += num_args;
}

/* ---- time and logging */

static const u64 *fake_clock;

void lmpath_shim_set_clock(const u64 *ns)
{
	__atomic_store_n(&fake_clock, ns, __ATOMIC_RELEASE);
}

u64 ktime_get_ns(void)
{
	const u64 *fake = __atomic_load_n(&fake_clock, __ATOMIC_ACQUIRE);
	struct timespec ts;

	if (fake)
		return __atomic_load_n(fake, __ATOMIC_RELAXED);

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

void lmpath_shim_log(const char *level, const char *prefix, const char *fmt, ...)
{
	static bool checked, verbose;
	va_list ap;

	if (*level <= '4')
		__atomic_fetch_add(&lmpath_shim_warnings, 1, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&checked, __ATOMIC_RELAXED)) {
		__atomic_store_n(&verbose, getenv("LMPATH_SHIM_LOG") != NULL, __ATOMIC_RELAXED);
		__atomic_store_n(&checked, true, __ATOMIC_RELAXED);
	}
	if (!__atomic_load_n(&verbose, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	fprintf(stderr, "<%s>%s%s", level, prefix, *prefix ? ": " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
