/* tests/integration/avrpad_proc.c — see avrpad_proc.h. */
#define _GNU_SOURCE
#include "tests/integration/avrpad_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

#define MAX_PADS        16
/* How long quit may take before the pad is killed. */
#define STOP_WAIT_MS    5000

static struct avrpad_proc *live[MAX_PADS];

/* CLOCK_REALTIME (pthread_cond_timedwait's clock) ms from now. */
static struct timespec deadline_in(int ms) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += ms / 1000;
        ts.tv_nsec += (long) (ms % 1000) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
        }
        return ts;
}

static void *read_stdout(void *arg) {
        struct avrpad_proc *p = arg;
        FILE *copy = fopen(p->out_path, "w");
        char buf[4096];

        for (;;) {
                ssize_t n = read(p->out_fd, buf, sizeof buf);

                if (n < 0 && errno == EINTR)
                        continue;
                pthread_mutex_lock(&p->lock);
                if (n <= 0) {
                        p->eof = true;
                        pthread_cond_broadcast(&p->grew);
                        pthread_mutex_unlock(&p->lock);
                        break;
                }
                if (p->len + (size_t) n + 1 > p->cap) {
                        size_t cap = p->cap ? p->cap : 65536;
                        while (p->len + (size_t) n + 1 > cap)
                                cap *= 2;
                        char *o = realloc(p->out, cap);
                        if (!o)
                                abort();
                        p->out = o;
                        p->cap = cap;
                }
                memcpy(p->out + p->len, buf, (size_t) n);
                p->len += (size_t) n;
                p->out[p->len] = '\0';
                pthread_cond_broadcast(&p->grew);
                pthread_mutex_unlock(&p->lock);
                if (copy) {
                        fwrite(buf, 1, (size_t) n, copy);
                        fflush(copy);
                }
        }
        if (copy)
                fclose(copy);
        return NULL;
}

/* Reaps p (already signalled or told to quit) and its reader: its stdout
 * ends when it exits; SIGKILL when that has not happened within wait_ms. */
static int reap(struct avrpad_proc *p, int wait_ms) {
        struct timespec deadline = deadline_in(wait_ms);
        int status = 0;
        pid_t r;

        pthread_mutex_lock(&p->lock);
        while (!p->eof && pthread_cond_timedwait(&p->grew, &p->lock, &deadline) != ETIMEDOUT)
                ;
        bool ended = p->eof;
        pthread_mutex_unlock(&p->lock);
        if (!ended)
                kill(p->pid, SIGKILL);
        r = waitpid(p->pid, &status, 0);
        if (p->reading)
                pthread_join(p->reader, NULL);
        p->reading = false;
        close(p->out_fd);
        if (p->in_fd >= 0)
                close(p->in_fd);
        p->in_fd = -1;
        for (int i = 0; i < MAX_PADS; i++)
                if (live[i] == p)
                        live[i] = NULL;
        p->pid = 0;
        free(p->out);
        p->out = NULL;
        p->len = p->cap = 0;
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->grew);
        if (r < 0)
                return -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int harness_kill_avrpads(void **state) {
        (void) state;
        for (int i = 0; i < MAX_PADS; i++)
                if (live[i] && live[i]->pid > 0) {
                        kill(live[i]->pid, SIGKILL);
                        reap(live[i], STOP_WAIT_MS);
                }
        return 0;
}

static void kill_at_exit(void) {
        harness_kill_avrpads(NULL);
}

void avrpad_start(struct avrpad_proc *p, const char *const *args) {
        static unsigned n;
        static bool registered;
        int in[2], out[2];
        char *bin, *elf;

        memset(p, 0, sizeof *p);
        if (!registered) {
                atexit(kill_at_exit);
                registered = true;
        }
        snprintf(p->log_path, sizeof p->log_path, "%s/avrpad-%d-%u.log", harness_env("ARBITER_TEST_TMP"),
                 (int) getpid(), n);
        snprintf(p->out_path, sizeof p->out_path, "%s/avrpad-%d-%u.out", harness_env("ARBITER_TEST_TMP"),
                 (int) getpid(), n++);
        assert_true(asprintf(&bin, "%s/tests/avr/avrpad", harness_env("ARBITER_TEST_BUILD")) > 0);
        assert_true(asprintf(&elf, "%s/firmware/pad.elf", harness_env("ARBITER_TEST_BUILD")) > 0);
        if (access(bin, X_OK) != 0 || access(elf, R_OK) != 0)
                fail_msg("%s or %s is missing: make build-tests builds them", bin, elf);
        assert_int_equal(pipe2(in, O_CLOEXEC), 0);
        assert_int_equal(pipe2(out, O_CLOEXEC), 0);
        pthread_mutex_init(&p->lock, NULL);
        pthread_cond_init(&p->grew, NULL);
        p->pid = fork();
        assert_true(p->pid >= 0);
        if (p->pid == 0) {
                int log = open(p->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
                const char *argv[64] = { bin };
                int i = 1;

                dup2(in[0], STDIN_FILENO);
                dup2(out[1], STDOUT_FILENO);
                dup2(log, STDERR_FILENO);
                for (const char *const *a = args; a && *a && i < 62; a++)
                        argv[i++] = *a;
                argv[i++] = elf;
                execv(bin, (char **) argv);
                _exit(127);
        }
        close(in[0]);
        close(out[1]);
        free(bin);
        free(elf);
        p->in_fd = in[1];
        p->out_fd = out[0];
        for (int i = 0; i < MAX_PADS; i++)
                if (!live[i]) {
                        live[i] = p;
                        break;
                }
        assert_int_equal(pthread_create(&p->reader, NULL, read_stdout, p), 0);
        p->reading = true;

        /* first line: "PTY /dev/pts/N" */
        char line[256];
        size_t at = 0;
        if (!avrpad_wait(p, &at, "PTY ", HARNESS_WAIT_MS, line, sizeof line))
                fail_msg("avrpad printed no PTY line; see %s and %s", p->out_path, p->log_path);
        if (strncmp(line, "PTY ", 4) != 0)
                fail_msg("avrpad's first line should be \"PTY <path>\", not \"%s\"", line);
        snprintf(p->pty, sizeof p->pty, "%.127s", line + 4);
}

void avrpad_send(struct avrpad_proc *p, const char *fmt, ...) {
        char *line;
        va_list ap;

        assert_true(p->pid > 0);
        va_start(ap, fmt);
        assert_true(vasprintf(&line, fmt, ap) > 0);
        va_end(ap);
        size_t len = strlen(line);
        line = realloc(line, len + 2);
        assert_non_null(line);
        line[len++] = '\n';
        /* one write, so that a command is never split by another's */
        if (write(p->in_fd, line, len) != (ssize_t) len)
                fail_msg("avrpad (pid %d) does not take commands: %s; see %s", (int) p->pid, strerror(errno),
                         p->out_path);
        free(line);
}

size_t avrpad_mark(struct avrpad_proc *p) {
        pthread_mutex_lock(&p->lock);
        size_t n = p->len;
        pthread_mutex_unlock(&p->lock);
        return n;
}

/* The first complete line at or after *from containing one of needles
 * (NULL-terminated): its index, -1 when none; the lock is held. */
static int find_line(struct avrpad_proc *p, size_t *from, const char *const *needles, char *line, size_t size) {
        size_t at = *from;

        while (at < p->len) {
                char *start = p->out + at, *nl = memchr(start, '\n', p->len - at);
                int hit = -1;

                if (!nl)
                        return -1;
                *nl = '\0';
                for (int i = 0; hit < 0 && needles[i]; i++)
                        if (strstr(start, needles[i]))
                                hit = i;
                if (hit >= 0 && line && size)
                        snprintf(line, size, "%s", start);
                *nl = '\n';
                at = (size_t) (nl + 1 - p->out);
                if (hit >= 0) {
                        *from = at;
                        return hit;
                }
        }
        return -1;
}

int avrpad_wait_any(struct avrpad_proc *p, size_t *from, const char *const *needles, int timeout_ms, char *line,
                    size_t size) {
        struct timespec deadline = deadline_in(timeout_ms);
        int found;

        pthread_mutex_lock(&p->lock);
        while ((found = find_line(p, from, needles, line, size)) < 0 && !p->eof)
                if (pthread_cond_timedwait(&p->grew, &p->lock, &deadline) == ETIMEDOUT) {
                        found = find_line(p, from, needles, line, size);
                        break;
                }
        pthread_mutex_unlock(&p->lock);
        return found;
}

bool avrpad_wait(struct avrpad_proc *p, size_t *from, const char *needle, int timeout_ms, char *line,
                 size_t size) {
        const char *const needles[] = { needle, NULL };

        return avrpad_wait_any(p, from, needles, timeout_ms, line, size) == 0;
}

void avrpad_expect(struct avrpad_proc *p, size_t *from, const char *needle, char *line, size_t size) {
        if (!avrpad_wait(p, from, needle, HARNESS_WAIT_MS, line, size))
                fail_msg("the emulated pad (pid %d) printed no \"%s\" within %d ms; see %s", (int) p->pid, needle,
                         HARNESS_WAIT_MS, p->out_path);
}

unsigned avrpad_count(struct avrpad_proc *p, size_t from, const char *needle) {
        unsigned n = 0;

        const char *const needles[] = { needle, NULL };

        pthread_mutex_lock(&p->lock);
        while (find_line(p, &from, needles, NULL, 0) == 0)
                n++;
        pthread_mutex_unlock(&p->lock);
        return n;
}

int64_t avrpad_field(const char *line, const char *key) {
        size_t k = strlen(key);

        for (const char *at = strstr(line, key); at; at = strstr(at + 1, key))
                if ((at == line || at[-1] == ' ') && at[k] == ' ')
                        return strtoll(at + k + 1, NULL, 10);
        fail_msg("no \"%s\" in the pad's line \"%s\"", key, line);
        return 0;
}

double avrpad_emu_us(const char *line) {
        if (line[0] != '[')
                fail_msg("the pad's line \"%s\" has no emulated time", line);
        return strtod(line + 1, NULL);
}

int avrpad_stop(struct avrpad_proc *p) {
        if (p->pid <= 0)
                return -1;
        if (write(p->in_fd, "quit\n", 5) != 5) {
                /* gone already: reaped below */
        }
        close(p->in_fd);
        p->in_fd = -1;
        return reap(p, STOP_WAIT_MS);
}
