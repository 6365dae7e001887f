/* tests/fault/fsync_fault.c — an LD_PRELOAD shim that makes fsync(2) and
 * fdatasync(2) slow or failing on chosen files, for the spool's tests
 * (test_spool_fault, the soak scenes).  Built by the Makefile as
 * $(BUILD)/tests/libfsync_fault.so, without sanitizers (an ASan daemon
 * needs ASAN_OPTIONS=verify_asan_link_order=0 to take it).
 *
 * It changes nothing unless ARBITER_FAULT_PATH is set: then, for a file
 * descriptor whose path (/proc/self/fd) contains that string,
 *   - ARBITER_FAULT_GATE=FIFO: the call first opens FIFO for reading, so it
 *     blocks until a writer holds the FIFO open (the test "opens the gate"
 *     by opening it for writing and keeping it open);
 *   - ARBITER_FAULT_FAIL_IF=FILE: while FILE exists, the call fails with EIO
 *     without syncing (the test creates FILE at the moment it chooses).
 * Other descriptors, and everything else, go to libc untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*sync_fn)(int fd);

static int faulty(int fd) {
        const char *want = getenv("ARBITER_FAULT_PATH");
        char link[64], path[PATH_MAX];
        ssize_t n;

        if (!want || !*want)
                return 0;
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        n = readlink(link, path, sizeof path - 1);
        if (n < 0)
                return 0;
        path[n] = '\0';
        return strstr(path, want) != NULL;
}

/* The gate, then the failure, then the real call. */
static int intercept(int fd, const char *name) {
        const char *gate = getenv("ARBITER_FAULT_GATE"), *fail_if = getenv("ARBITER_FAULT_FAIL_IF");
        sync_fn real = (sync_fn) dlsym(RTLD_NEXT, name);

        if (!real) {
                errno = ENOSYS;
                return -1;
        }
        if (!faulty(fd))
                return real(fd);
        if (gate && *gate) {
                int g;
                do
                        g = open(gate, O_RDONLY | O_CLOEXEC);
                while (g < 0 && errno == EINTR);
                if (g >= 0)
                        close(g);
        }
        if (fail_if && *fail_if && access(fail_if, F_OK) == 0) {
                errno = EIO;
                return -1;
        }
        return real(fd);
}

int fsync(int fd) {
        return intercept(fd, "fsync");
}

int fdatasync(int fd) {
        return intercept(fd, "fdatasync");
}
