/*
 * A disk whose flush stalls now and then, as a virtual disk's does: every SLOW_EVERY-th
 * fsync or fdatasync of a process (default 200) returns SLOW_MS later (default 40 ms).
 * For bench/fanout.py (docs/performance.md, "Fan-out latency"): the bare server never
 * flushes, so only what waits for our flushes is slowed.
 *
 *   gcc -O2 -shared -fPIC -o /tmp/slow_disk.so bench/slow_disk.c -ldl
 *   SLOW_EVERY=200 SLOW_MS=40 LD_PRELOAD=/tmp/slow_disk.so .venv/bin/python bench/fanout.py --scenario B --seconds 20
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static unsigned long calls;

static void maybe_stall(void) {
    unsigned long n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    const char *every = getenv("SLOW_EVERY"), *ms = getenv("SLOW_MS");
    long e = every ? atol(every) : 200, m = ms ? atol(ms) : 40;
    if (e > 0 && n % (unsigned long)e == 0) {
        struct timespec t = {m / 1000, (m % 1000) * 1000000L};
        nanosleep(&t, 0);
    }
}

int fdatasync(int fd) {
    static int (*real)(int) = 0;
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int rc = real(fd);
    maybe_stall();
    return rc;
}

int fsync(int fd) {
    static int (*real)(int) = 0;
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int rc = real(fd);
    maybe_stall();
    return rc;
}
