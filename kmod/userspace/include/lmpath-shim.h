/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace stand-ins for the kernel primitives that lmpath-table.c and the
 * lmpath-ps*.c selectors use (kmod/SHIM.md), so that the same source files
 * build into a static library for GoogleTest, libFuzzer and
 * ThreadSanitizer.
 *
 * The stand-ins keep the kernel's semantics where a test could observe the
 * difference:
 *  - sscanf() is the kernel's: no sign for %u, 32-bit wrap on overflow;
 *  - dm_read_arg()/dm_read_arg_group()/dm_shift_arg() follow dm-table.c;
 *  - DMEMIT() understands %*pb (cpumask_pr_args) and truncates like the
 *    kernel's scnprintf;
 *  - per-CPU data is per "CPU", a number each thread sets for itself with
 *    lmpath_shim_set_cpu(), and this_cpu ops are single atomic accesses;
 *  - READ_ONCE/WRITE_ONCE, bitops and atomics are compiler atomics with
 *    the kernel's ordering (relaxed unless the kernel op is fully ordered),
 *    so ThreadSanitizer sees exactly the synchronisation the kernel has.
 *
 * Each header under linux/ in this folder includes this one file.
 */
#ifndef LMPATH_SHIM_H
#define LMPATH_SHIM_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- types */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned int gfp_t;
typedef unsigned int blk_mode_t;
typedef unsigned int fmode_t;
typedef u64 sector_t;

#define __percpu
#define __rcu
#define __user
#define __must_check
#define __maybe_unused __attribute__((unused))
#define noinline __attribute__((noinline))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define fallthrough __attribute__((fallthrough))

#define GFP_KERNEL 0u
#define GFP_NOIO 0u
#define GFP_ATOMIC 0u
#define GFP_NOWAIT 0u
#define __GFP_ZERO 1u

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define BITS_PER_LONG 64
#define BIT(n) (1UL << (n))

#ifndef __cplusplus
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define min(a, b)                                                                                  \
	({                                                                                         \
		__typeof__(a) _a = (a);                                                            \
		__typeof__(b) _b = (b);                                                            \
		_a < _b ? _a : _b;                                                                 \
	})
#define max(a, b)                                                                                  \
	({                                                                                         \
		__typeof__(a) _a = (a);                                                            \
		__typeof__(b) _b = (b);                                                            \
		_a > _b ? _a : _b;                                                                 \
	})
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define struct_size(p, member, n) (sizeof(*(p)) + sizeof((p)->member[0]) * (size_t)(n))
#endif

/* ---- errors as pointers */
#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) ((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }
static inline bool IS_ERR_OR_NULL(const void *ptr) { return !ptr || IS_ERR(ptr); }

/* ---- compiler and memory ordering */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()
#define barrier() __asm__ __volatile__("" ::: "memory")
#define xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define cmpxchg(p, o, n)                                                                           \
	({                                                                                         \
		__typeof__(*(p)) _o = (o);                                                         \
		__atomic_compare_exchange_n((p), &_o, (n), false, __ATOMIC_SEQ_CST,                \
					    __ATOMIC_SEQ_CST);                             \
		_o;                                                                                \
	})
#define try_cmpxchg(p, po, n)                                                                      \
	__atomic_compare_exchange_n((p), (po), (n), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define cpu_relax() barrier()

/* ---- bitops on unsigned long words */
static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return (__atomic_load_n(addr + nr / BITS_PER_LONG, __ATOMIC_RELAXED) >>
		(nr % BITS_PER_LONG)) & 1;
}
static inline void set_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_or(addr + nr / BITS_PER_LONG, BIT(nr % BITS_PER_LONG), __ATOMIC_RELAXED);
}
static inline void clear_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and(addr + nr / BITS_PER_LONG, ~BIT(nr % BITS_PER_LONG), __ATOMIC_RELAXED);
}
static inline void assign_bit(long nr, volatile unsigned long *addr, bool value)
{
	if (value)
		set_bit(nr, addr);
	else
		clear_bit(nr, addr);
}
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	unsigned long m = BIT(nr % BITS_PER_LONG);

	return __atomic_fetch_or(addr + nr / BITS_PER_LONG, m, __ATOMIC_SEQ_CST) & m;
}
static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	unsigned long m = BIT(nr % BITS_PER_LONG);

	return __atomic_fetch_and(addr + nr / BITS_PER_LONG, ~m, __ATOMIC_SEQ_CST) & m;
}
#define __set_bit set_bit
#define __clear_bit clear_bit

/* ---- atomics: non-value-returning ops are unordered, the rest fully ordered */
typedef struct {
	int counter;
} atomic_t;
typedef struct {
	s64 counter;
} atomic64_t;
typedef struct {
	long counter;
} atomic_long_t;

#define ATOMIC_INIT(i) {(i)}
#define LMPATH_SHIM_ATOMIC(pfx, T)                                                                 \
	static inline T pfx##_read(const pfx##_t *v)                                               \
	{                                                                                          \
		return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);                             \
	}                                                                                          \
	static inline void pfx##_set(pfx##_t *v, T i)                                              \
	{                                                                                          \
		__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);                                \
	}                                                                                          \
	static inline void pfx##_add(T i, pfx##_t *v)                                              \
	{                                                                                          \
		__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);                              \
	}                                                                                          \
	static inline void pfx##_sub(T i, pfx##_t *v)                                              \
	{                                                                                          \
		__atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED);                              \
	}                                                                                          \
	static inline void pfx##_inc(pfx##_t *v) { pfx##_add(1, v); }                              \
	static inline void pfx##_dec(pfx##_t *v) { pfx##_sub(1, v); }                              \
	static inline T pfx##_add_return(T i, pfx##_t *v)                                          \
	{                                                                                          \
		return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);                       \
	}                                                                                          \
	static inline T pfx##_sub_return(T i, pfx##_t *v)                                          \
	{                                                                                          \
		return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST);                       \
	}                                                                                          \
	static inline T pfx##_fetch_add(T i, pfx##_t *v)                                           \
	{                                                                                          \
		return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST);                       \
	}                                                                                          \
	static inline T pfx##_fetch_sub(T i, pfx##_t *v)                                           \
	{                                                                                          \
		return __atomic_fetch_sub(&v->counter, i, __ATOMIC_SEQ_CST);                       \
	}                                                                                          \
	static inline T pfx##_inc_return(pfx##_t *v) { return pfx##_add_return(1, v); }            \
	static inline T pfx##_dec_return(pfx##_t *v) { return pfx##_sub_return(1, v); }            \
	static inline bool pfx##_dec_and_test(pfx##_t *v) { return pfx##_sub_return(1, v) == 0; }  \
	static inline bool pfx##_inc_and_test(pfx##_t *v) { return pfx##_add_return(1, v) == 0; }  \
	static inline T pfx##_xchg(pfx##_t *v, T i)                                                \
	{                                                                                          \
		return __atomic_exchange_n(&v->counter, i, __ATOMIC_SEQ_CST);                      \
	}                                                                                          \
	static inline T pfx##_cmpxchg(pfx##_t *v, T o, T n)                                        \
	{                                                                                          \
		__atomic_compare_exchange_n(&v->counter, &o, n, false, __ATOMIC_SEQ_CST,           \
					    __ATOMIC_SEQ_CST);                             \
		return o;                                                                          \
	}                                                                                          \
	static inline bool pfx##_try_cmpxchg(pfx##_t *v, T *o, T n)                                \
	{                                                                                          \
		return __atomic_compare_exchange_n(&v->counter, o, n, false, __ATOMIC_SEQ_CST,     \
						   __ATOMIC_SEQ_CST);                      \
	}                                                                                          \
	static inline bool pfx##_add_unless(pfx##_t *v, T a, T u)                                  \
	{                                                                                          \
		T c = pfx##_read(v);                                                               \
		do {                                                                               \
			if (c == u)                                                                \
				return false;                                                      \
		} while (!pfx##_try_cmpxchg(v, &c, c + a));                                        \
		return true;                                                                       \
	}
LMPATH_SHIM_ATOMIC(atomic, int)
LMPATH_SHIM_ATOMIC(atomic64, s64)
LMPATH_SHIM_ATOMIC(atomic_long, long)
#define atomic_inc_not_zero(v) atomic_add_unless((v), 1, 0)

/* ---- CPUs: a thread is a CPU; it says which with lmpath_shim_set_cpu() */
#define NR_CPUS 64
extern unsigned int nr_cpu_ids;
extern unsigned int lmpath_shim_nr_nodes;
void lmpath_shim_set_cpu(unsigned int cpu);
unsigned int lmpath_shim_cpu(void);
#define raw_smp_processor_id() lmpath_shim_cpu()
#define smp_processor_id() lmpath_shim_cpu()
#define get_cpu() lmpath_shim_cpu()
#define put_cpu() do { } while (0)
#define preempt_disable() do { } while (0)
#define preempt_enable() do { } while (0)
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)
#define num_possible_cpus() nr_cpu_ids
#define num_online_cpus() nr_cpu_ids

/* per-CPU data: NR_CPUS slots of the element size, 64-byte apart */
#define LMPATH_SHIM_PCPU_STRIDE 64
void *lmpath_shim_alloc_percpu(size_t size);
void lmpath_shim_free_percpu(void *p);
#define alloc_percpu(type) ((type *)lmpath_shim_alloc_percpu(sizeof(type)))
#define alloc_percpu_gfp(type, gfp) alloc_percpu(type)
#define free_percpu(p) lmpath_shim_free_percpu(p)
#define per_cpu_ptr(p, cpu)                                                                        \
	((__typeof__(p))((char *)(p) + (size_t)(cpu) * LMPATH_SHIM_PCPU_STRIDE))
#define this_cpu_ptr(p) per_cpu_ptr(p, lmpath_shim_cpu())
#define raw_cpu_ptr(p) this_cpu_ptr(p)
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), cpu))
#define this_cpu_read(pcp) __atomic_load_n(this_cpu_ptr(&(pcp)), __ATOMIC_RELAXED)
#define this_cpu_write(pcp, v) __atomic_store_n(this_cpu_ptr(&(pcp)), (v), __ATOMIC_RELAXED)
#define this_cpu_add(pcp, v) ((void)__atomic_fetch_add(this_cpu_ptr(&(pcp)), (v), __ATOMIC_RELAXED))
#define this_cpu_sub(pcp, v) ((void)__atomic_fetch_sub(this_cpu_ptr(&(pcp)), (v), __ATOMIC_RELAXED))
#define this_cpu_inc(pcp) this_cpu_add(pcp, 1)
#define this_cpu_dec(pcp) this_cpu_sub(pcp, 1)
#define this_cpu_add_return(pcp, v) __atomic_add_fetch(this_cpu_ptr(&(pcp)), (v), __ATOMIC_RELAXED)
#define this_cpu_inc_return(pcp) this_cpu_add_return(pcp, 1)
#define __this_cpu_read this_cpu_read
#define __this_cpu_write this_cpu_write
#define __this_cpu_inc this_cpu_inc
#define raw_cpu_read this_cpu_read
#define raw_cpu_write this_cpu_write

/* ---- cpumask (the CPUMASK_OFFSTACK flavour: nr_cpumask_bits == nr_cpu_ids) */
struct cpumask {
	unsigned long bits[NR_CPUS / BITS_PER_LONG];
};
typedef struct cpumask *cpumask_var_t;
#define nr_cpumask_bits nr_cpu_ids
#define cpumask_bits(m) ((m)->bits)
bool zalloc_cpumask_var(cpumask_var_t *mask, gfp_t flags);
bool alloc_cpumask_var(cpumask_var_t *mask, gfp_t flags);
void free_cpumask_var(cpumask_var_t mask);
int cpumask_parse(const char *buf, struct cpumask *dstp);
unsigned int lmpath_shim_cpumask_next(int n, const struct cpumask *m);
const struct cpumask *cpumask_of_node(int node);
int cpu_to_node(int cpu);
#define cpumask_test_cpu(cpu, m) test_bit((cpu), (m)->bits)
#define cpumask_set_cpu(cpu, m) set_bit((cpu), (m)->bits)
#define cpumask_clear_cpu(cpu, m) clear_bit((cpu), (m)->bits)
#define cpumask_next(n, m) lmpath_shim_cpumask_next((n), (m))
#define cpumask_first(m) lmpath_shim_cpumask_next(-1, (m))
#define for_each_cpu(cpu, mask)                                                                    \
	for ((cpu) = lmpath_shim_cpumask_next(-1, (mask)); (cpu) < nr_cpu_ids;                     \
	     (cpu) = lmpath_shim_cpumask_next((cpu), (mask)))
unsigned int cpumask_weight(const struct cpumask *m);
bool cpumask_empty(const struct cpumask *m);
/* printf("%*pb", cpumask_pr_args(m)): DMEMIT knows this pair */
#define cpumask_pr_args(m) (int)nr_cpu_ids, (const void *)(m)->bits
#define numa_node_id() cpu_to_node(lmpath_shim_cpu())

/* ---- memory: plain malloc, so ASan and TSan see every object */
void *lmpath_shim_zalloc(size_t size);
#define kmalloc(s, f) malloc(s)
#define kzalloc(s, f) lmpath_shim_zalloc(s)
#define kcalloc(n, s, f) calloc((n), (s))
#define kmalloc_array(n, s, f) calloc((n), (s))
#define kvmalloc(s, f) malloc(s)
#define kvzalloc(s, f) lmpath_shim_zalloc(s)
#define kvcalloc(n, s, f) calloc((n), (s))
#define kvmalloc_array(n, s, f) calloc((n), (s))
#define kfree(p) free((void *)(p))
#define kvfree(p) free((void *)(p))
#define kfree_const(p) free((void *)(p))
#define kstrdup(s, f) strdup(s)
#define kstrndup(s, n, f) strndup((s), (n))
#define kmemdup(p, n, f) memcpy(malloc(n), (p), (n))

/* ---- strings and numbers the kernel's way */
int lmpath_shim_sscanf(const char *buf, const char *fmt, ...);
#define sscanf lmpath_shim_sscanf
int scnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
#define skip_spaces lmpath_shim_skip_spaces
char *lmpath_shim_skip_spaces(const char *s);

/* ---- time */
u64 ktime_get_ns(void);
/* tests may run the clock themselves; NULL gives CLOCK_MONOTONIC back */
void lmpath_shim_set_clock(const u64 *ns);
#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL
#define HZ 250
extern unsigned long jiffies;
#define msecs_to_jiffies(m) ((unsigned long)(m) * HZ / 1000)
#define time_after64(a, b) ((s64)((b) - (a)) < 0)
#define time_before64(a, b) time_after64(b, a)
#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define div_u64(a, b) ((u64)(a) / (u32)(b))
#define div64_u64(a, b) ((u64)(a) / (u64)(b))

/* ---- locks: pthread, so ThreadSanitizer knows them */
typedef struct {
	pthread_mutex_t m;
} spinlock_t;
struct mutex {
	pthread_mutex_t m;
};
#define spin_lock_init(l) pthread_mutex_init(&(l)->m, NULL)
#define spin_lock(l) pthread_mutex_lock(&(l)->m)
#define spin_unlock(l) pthread_mutex_unlock(&(l)->m)
#define spin_lock_irq(l) spin_lock(l)
#define spin_unlock_irq(l) spin_unlock(l)
#define spin_lock_irqsave(l, f) ((void)(f), spin_lock(l))
#define spin_unlock_irqrestore(l, f) ((void)(f), spin_unlock(l))
#define mutex_init(l) pthread_mutex_init(&(l)->m, NULL)
#define mutex_lock(l) pthread_mutex_lock(&(l)->m)
#define mutex_unlock(l) pthread_mutex_unlock(&(l)->m)
#define mutex_destroy(l) pthread_mutex_destroy(&(l)->m)
#define lockdep_assert_held(l) do { } while (0)
#define might_sleep() do { } while (0)

/* ---- things lmpath.h embeds but the shared files never run */
typedef struct {
	int unused;
} wait_queue_head_t;
struct work_struct {
	void (*func)(struct work_struct *work);
};
struct delayed_work {
	struct work_struct work;
};
struct timer_list {
	void (*function)(struct timer_list *t);
};
struct llist_node {
	struct llist_node *next;
};
struct llist_head {
	struct llist_node *first;
};
struct list_head {
	struct list_head *next, *prev;
};
#define init_waitqueue_head(w) ((void)(w))
#define wake_up(w) ((void)(w))
/* the waker's wake_up() is a no-op: the waiter polls, yielding */
#define io_wait_event(w, cond)                                                                     \
	do {                                                                                       \
		(void)(w);                                                                         \
		while (!(cond))                                                                    \
			sched_yield();                                                             \
	} while (0)
#define INIT_WORK(w, f) ((w)->func = (f))
#define INIT_DELAYED_WORK(w, f) ((w)->work.func = (f))
#define init_llist_head(h) ((h)->first = NULL)
/* llist_add() is a full barrier in the kernel (cmpxchg) */
static inline bool llist_add(struct llist_node *n, struct llist_head *h)
{
	struct llist_node *first = __atomic_load_n(&h->first, __ATOMIC_RELAXED);

	do {
		n->next = first;
	} while (!__atomic_compare_exchange_n(&h->first, &first, n, false, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	return first == NULL;
}
static inline struct llist_node *llist_del_all(struct llist_head *h)
{
	return __atomic_exchange_n(&h->first, NULL, __ATOMIC_SEQ_CST);
}
static inline bool llist_empty(const struct llist_head *h)
{
	return __atomic_load_n(&h->first, __ATOMIC_RELAXED) == NULL;
}

/* lmpath.h's lmpath_race_point(): a test's hook (lmpath-user.h) */
void lmpath_shim_race_point(const char *where);
#define lmpath_race_point(m, where) lmpath_shim_race_point(where)
#define rcu_read_lock() do { } while (0)
#define rcu_read_unlock() do { } while (0)
#define rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_CONSUME)
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

/* ---- logging: silent unless LMPATH_SHIM_LOG is set; counted for tests */
#define KERN_ERR "3"
#define KERN_WARNING "4"
#define KERN_INFO "6"
#define KERN_DEBUG "7"
extern unsigned long lmpath_shim_warnings;
void lmpath_shim_log(const char *level, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define pr_err(fmt, ...) lmpath_shim_log(KERN_ERR, "", fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) lmpath_shim_log(KERN_WARNING, "", fmt, ##__VA_ARGS__)
#define pr_warn_ratelimited pr_warn
#define pr_info(fmt, ...) lmpath_shim_log(KERN_INFO, "", fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) lmpath_shim_log(KERN_DEBUG, "", fmt, ##__VA_ARGS__)
#define WARN_ON(c) ({ bool _c = !!(c); if (_c) lmpath_shim_log(KERN_WARNING, "", "WARN_ON %s:%d", __FILE__, __LINE__); _c; })
#define WARN_ON_ONCE(c) WARN_ON(c)
#define BUG_ON(c) do { if (c) abort(); } while (0)

#ifdef __cplusplus
}
#endif

#endif /* LMPATH_SHIM_H */
