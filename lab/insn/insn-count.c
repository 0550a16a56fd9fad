/*
 * A QEMU TCG plugin that counts the guest instructions executed between two
 * marker instructions, per translated block, and the atomic read-modify-write
 * instructions among them, per instruction.
 *
 *   qemu-system-x86_64 ... -plugin PATH/libinsn-count.so,out=DIR
 *
 * The guest opens a window by executing `xchg %bx,%bx` in user space and
 * closes it with `xchg %cx,%cx` (lab/insn/mark does either).  Closing writes
 * DIR/last.txt (through a temporary file and a rename, before the marker
 * instruction retires, so the guest can read it at once) and zeroes the
 * counters:
 *
 *   window N
 *   tb VADDR NINSNS EXECS        one line per block executed in the window
 *   lock VADDR EXECS             one line per atomic instruction executed
 *   total INSNS                  instructions in the window, all vCPUs
 *
 * A block's instructions are counted when it is entered, as QEMU's own
 * "insn" counting does; a block left early by an exception counts whole.
 * Addresses are guest virtual: lab/insn/report maps them to functions with
 * the guest's /proc/kallsyms.
 */
#include "insn-decode.h"
#include "qemu-plugin-api.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

struct tb_rec {
    uint64_t vaddr;
    uint64_t ninsns;
    uint64_t execs;
    struct tb_rec *next;
};

struct lock_rec {
    uint64_t vaddr;
    uint64_t execs;
    struct lock_rec *next;
};

static pthread_mutex_t lists_lock = PTHREAD_MUTEX_INITIALIZER; /* protects the two lists */
static struct tb_rec *tbs;
static struct lock_rec *locks;
static int counting; /* a window is open; read and written with __atomic */
static unsigned window;
static char out_dir[4096];

static void tb_exec(unsigned int vcpu, void *udata) {
    struct tb_rec *r = udata;

    (void)vcpu;
    if (__atomic_load_n(&counting, __ATOMIC_RELAXED))
        __atomic_fetch_add(&r->execs, 1, __ATOMIC_RELAXED);
}

static void lock_exec(unsigned int vcpu, void *udata) {
    struct lock_rec *r = udata;

    (void)vcpu;
    if (__atomic_load_n(&counting, __ATOMIC_RELAXED))
        __atomic_fetch_add(&r->execs, 1, __ATOMIC_RELAXED);
}

static void write_window(void) {
    char tmp[4200], dst[4200];
    uint64_t total = 0;
    FILE *f;

    snprintf(tmp, sizeof(tmp), "%s/last.txt.tmp", out_dir);
    snprintf(dst, sizeof(dst), "%s/last.txt", out_dir);
    f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "insn-count: cannot write %s: %s\n", tmp, strerror(errno));
        return;
    }
    fprintf(f, "window %u\n", window);
    pthread_mutex_lock(&lists_lock);
    for (struct tb_rec *r = tbs; r; r = r->next) {
        uint64_t n = __atomic_exchange_n(&r->execs, 0, __ATOMIC_RELAXED);
        if (n) {
            fprintf(f, "tb %llx %llu %llu\n", (unsigned long long)r->vaddr,
                    (unsigned long long)r->ninsns, (unsigned long long)n);
            total += n * r->ninsns;
        }
    }
    for (struct lock_rec *r = locks; r; r = r->next) {
        uint64_t n = __atomic_exchange_n(&r->execs, 0, __ATOMIC_RELAXED);
        if (n)
            fprintf(f, "lock %llx %llu\n", (unsigned long long)r->vaddr, (unsigned long long)n);
    }
    pthread_mutex_unlock(&lists_lock);
    fprintf(f, "total %llu\n", (unsigned long long)total);
    if (fclose(f) != 0 || rename(tmp, dst) != 0)
        fprintf(stderr, "insn-count: cannot write %s: %s\n", dst, strerror(errno));
}

static void mark_on(unsigned int vcpu, void *udata) {
    (void)vcpu;
    (void)udata;
    /* Whatever ran since the last window does not count. */
    pthread_mutex_lock(&lists_lock);
    for (struct tb_rec *r = tbs; r; r = r->next)
        __atomic_store_n(&r->execs, 0, __ATOMIC_RELAXED);
    for (struct lock_rec *r = locks; r; r = r->next)
        __atomic_store_n(&r->execs, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lists_lock);
    __atomic_store_n(&counting, 1, __ATOMIC_SEQ_CST);
}

static void mark_off(unsigned int vcpu, void *udata) {
    (void)vcpu;
    (void)udata;
    if (!__atomic_exchange_n(&counting, 0, __ATOMIC_SEQ_CST))
        return;
    window++;
    write_window();
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    size_t n = qemu_plugin_tb_n_insns(tb);
    struct tb_rec *r = calloc(1, sizeof(*r));

    (void)id;
    if (!r)
        abort();
    r->vaddr = qemu_plugin_tb_vaddr(tb);
    r->ninsns = n;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t va = qemu_plugin_insn_vaddr(insn);
        struct lock_rec *l;

        switch (insn_classify(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn), va)) {
        case INSN_MARK_ON:
            qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_on, QEMU_PLUGIN_CB_NO_REGS, NULL);
            break;
        case INSN_MARK_OFF:
            qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_off, QEMU_PLUGIN_CB_NO_REGS, NULL);
            break;
        case INSN_LOCKED:
            l = calloc(1, sizeof(*l));
            if (!l)
                abort();
            l->vaddr = va;
            pthread_mutex_lock(&lists_lock);
            l->next = locks;
            locks = l;
            pthread_mutex_unlock(&lists_lock);
            qemu_plugin_register_vcpu_insn_exec_cb(insn, lock_exec, QEMU_PLUGIN_CB_NO_REGS, l);
            break;
        case INSN_PLAIN:
            break;
        }
    }
    pthread_mutex_lock(&lists_lock);
    r->next = tbs;
    tbs = r;
    pthread_mutex_unlock(&lists_lock);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, r);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "out=", 4) == 0)
            snprintf(out_dir, sizeof(out_dir), "%s", argv[i] + 4);
    if (!out_dir[0]) {
        fprintf(stderr, "insn-count: usage: -plugin libinsn-count.so,out=DIR\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    return 0;
}
