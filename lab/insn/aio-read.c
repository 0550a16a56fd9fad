/*
 * lab/insn/aio-read DEVICE QD N: N 4 KiB O_DIRECT reads at random offsets
 * (the same offsets every run), QD in flight through Linux AIO (the
 * io_submit path fio's libaio engine takes), with the instruction
 * counter's window (insn-count.c) open around exactly those N reads and
 * nothing else: the process start, the open and a warm-up run outside it.
 * Pinned to CPU 0.  Exits 0 when all N reads completed in full.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BS 4096
#define MAX_QD 256
#define WARMUP 256

static uint64_t rng = 0x9e3779b97f4a7c15ULL; /* fixed seed: same offsets every run */

static uint64_t next_offset(uint64_t blocks) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (rng % blocks) * BS;
}

static void mark_on(void) {
    __asm__ volatile("xchg %%bx, %%bx" ::: "memory");
}
static void mark_off(void) {
    __asm__ volatile("xchg %%cx, %%cx" ::: "memory");
}

/* Reads n blocks with qd in flight; returns how many completed in full. */
static long run(aio_context_t ctx, int fd, char *bufs, int qd, long n, uint64_t blocks) {
    struct iocb cbs[MAX_QD], *ptrs[MAX_QD];
    struct io_event ev[MAX_QD];
    long submitted = 0, done = 0, good = 0;
    int nfree = qd, free_slots[MAX_QD];

    for (int i = 0; i < qd; i++)
        free_slots[i] = i;
    while (done < n) {
        int k = 0;
        while (nfree > 0 && submitted < n) {
            int s = free_slots[--nfree];
            memset(&cbs[s], 0, sizeof(cbs[s]));
            cbs[s].aio_data = (uint64_t)s;
            cbs[s].aio_lio_opcode = IOCB_CMD_PREAD;
            cbs[s].aio_fildes = (uint32_t)fd;
            cbs[s].aio_buf = (uint64_t)(uintptr_t)(bufs + (size_t)s * BS);
            cbs[s].aio_nbytes = BS;
            cbs[s].aio_offset = (int64_t)next_offset(blocks);
            ptrs[k++] = &cbs[s];
            submitted++;
        }
        if (k > 0 && syscall(SYS_io_submit, ctx, (long)k, ptrs) != k)
            return -1;
        long got = syscall(SYS_io_getevents, ctx, 1L, (long)qd, ev, NULL);
        if (got <= 0)
            return -1;
        for (long i = 0; i < got; i++) {
            if (ev[i].res == BS)
                good++;
            free_slots[nfree++] = (int)ev[i].data;
        }
        done += got;
    }
    return good;
}

int main(int argc, char **argv) {
    aio_context_t ctx = 0;
    uint64_t bytes = 0;
    cpu_set_t cpu;
    void *bufs;
    long n, good;
    int fd, qd;

    if (argc != 4) {
        fprintf(stderr, "usage: aio-read DEVICE QD N\n");
        return 2;
    }
    qd = atoi(argv[2]);
    n = atol(argv[3]);
    if (qd < 1 || qd > MAX_QD || n < 1) {
        fprintf(stderr, "aio-read: QD must be 1..%d and N at least 1\n", MAX_QD);
        return 2;
    }
    CPU_ZERO(&cpu);
    CPU_SET(0, &cpu);
    if (sched_setaffinity(0, sizeof(cpu), &cpu) != 0)
        perror("aio-read: sched_setaffinity");
    fd = open(argv[1], O_RDONLY | O_DIRECT);
    if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes) != 0 || bytes < BS) {
        perror(argv[1]);
        return 1;
    }
    if (posix_memalign(&bufs, BS, (size_t)qd * BS) != 0 ||
        syscall(SYS_io_setup, (long)MAX_QD, &ctx) != 0) {
        perror("aio-read: setup");
        return 1;
    }
    memset(bufs, 0, (size_t)qd * BS);
    if (run(ctx, fd, bufs, qd, WARMUP, bytes / BS) != WARMUP) {
        fprintf(stderr, "aio-read: warm-up reads failed\n");
        return 1;
    }
    mark_on();
    good = run(ctx, fd, bufs, qd, n, bytes / BS);
    mark_off();
    printf("%ld\n", good);
    return good == n ? 0 : 1;
}
