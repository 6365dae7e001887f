/* tests/fault/write_hold.c — an LD_PRELOAD shim that makes write(2) to one
 * chosen file return late: the bytes are handed over at once (the reader
 * may have them straight away), and the call returns only when the test
 * lets it — what a thread preempted on its way out of write() sees.  For
 * the pad bus's clock sync (test_pad_sync): a host that reads its clock
 * after write() returns can read it after the pad has the SYNC.  Built by
 * the Makefile as $(BUILD)/tests/libwrite_hold.so, without sanitizers (an
 * ASan daemon needs ASAN_OPTIONS=verify_asan_link_order=0 to take it).
 *
 * It changes nothing unless ARBITER_HOLD_PATH and ARBITER_HOLD_GATE are
 * set: then a write() to a file descriptor whose path (/proc/self/fd) is
 * exactly ARBITER_HOLD_PATH is made and, if it wrote every byte, returns
 * once one byte has been read from the FIFO ARBITER_HOLD_GATE — the test
 * writes a byte for each write it lets return, and holds the FIFO open
 * (O_RDWR, close-on-exec) from before the daemon starts, so that its
 * opening here does not block.  Once the FIFO reads end of file (the test
 * closed it), writes are not held any more: a daemon being stopped is not
 * stuck.  Only the thread that writes to the chosen file waits; everything
 * else goes to libc untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int fd, const void *buf, size_t n);

static int gate_fd = -1;
static bool gate_gone;

static bool held(int fd) {
        const char *want = getenv("ARBITER_HOLD_PATH");
        char link[64], path[PATH_MAX];
        ssize_t n;

        if (gate_gone || !want || !*want || !getenv("ARBITER_HOLD_GATE"))
                return false;
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        n = readlink(link, path, sizeof path - 1);
        if (n < 0)
                return false;
        path[n] = '\0';
        return strcmp(path, want) == 0;
}

/* Waits for the test's byte; end of file or a broken gate ends holding. */
static void wait_gate(void) {
        char c;
        ssize_t r;

        if (gate_fd < 0) {
                do
                        gate_fd = open(getenv("ARBITER_HOLD_GATE"), O_RDONLY | O_CLOEXEC);
                while (gate_fd < 0 && errno == EINTR);
                if (gate_fd < 0) {
                        gate_gone = true;
                        return;
                }
        }
        do
                r = read(gate_fd, &c, 1);
        while (r < 0 && errno == EINTR);
        if (r <= 0)
                gate_gone = true;
}

ssize_t write(int fd, const void *buf, size_t n) {
        static write_fn real;
        ssize_t r;
        int saved;

        if (!real)
                real = (write_fn) dlsym(RTLD_NEXT, "write");
        if (!real) {
                errno = ENOSYS;
                return -1;
        }
        if (!held(fd))
                return real(fd, buf, n);
        r = real(fd, buf, n);
        saved = errno;
        if (r == (ssize_t) n && n > 0)
                wait_gate();    /* a failed or short write the test never sees whole */
        errno = saved;
        return r;
}
