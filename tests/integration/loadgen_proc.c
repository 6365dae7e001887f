/* tests/integration/loadgen_proc.c — see loadgen_proc.h. */
#define _GNU_SOURCE
#include "tests/integration/loadgen_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

/* How long quit may take before the generator is killed: it closes a few
 * thousand sockets. */
#define STOP_WAIT_MS 10000
#define POLL_SLICE_MS 50

static pid_t live;

static void kill_at_exit(void) {
        if (live > 0) {
                kill(live, SIGKILL);
                waitpid(live, NULL, 0);
                live = 0;
        }
}

static void parse_counters(const char *line, struct loadgen_status *ret) {
        static const struct {
                const char *key;
                size_t offset;
        } keys[] = {
                { "streams=", offsetof(struct loadgen_status, streams) },
                { "refused=", offsetof(struct loadgen_status, refused) },
                { "retry_after=", offsetof(struct loadgen_status, retry_after) },
                { "failed=", offsetof(struct loadgen_status, failed) },
                { "ended=", offsetof(struct loadgen_status, ended) },
                { "slow=", offsetof(struct loadgen_status, slow) },
                { "slow_closed=", offsetof(struct loadgen_status, slow_closed) },
                { "ok=", offsetof(struct loadgen_status, ok) },
        };

        memset(ret, 0, sizeof *ret);
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
                const char *at = strstr(line, keys[i].key);
                /* " streams=" and not "…_streams=": a key starts a word */
                while (at && at != line && at[-1] != ' ')
                        at = strstr(at + 1, keys[i].key);
                if (at)
                        *(unsigned *) ((char *) ret + keys[i].offset) = (unsigned) strtoul(at + strlen(keys[i].key),
                                                                                              NULL, 10);
        }
}

/* The next line of its stdout that starts with expect (others, such as an
 * earlier answer, are skipped), within timeout_ms; false when it did not
 * come. */
static bool try_answer(struct loadgen_proc *l, const char *expect, int timeout_ms, struct loadgen_status *ret) {
        int64_t deadline = mono_ms() + timeout_ms;

        for (;;) {
                char *nl;

                while ((nl = memchr(l->buf, '\n', l->len))) {
                        *nl = '\0';
                        bool match = strncmp(l->buf, expect, strlen(expect)) == 0;
                        if (match && ret)
                                parse_counters(l->buf, ret);
                        if (match)
                                print_message("# loadgen: %s\n", l->buf);
                        l->len -= (size_t) (nl + 1 - l->buf);
                        memmove(l->buf, nl + 1, l->len);
                        if (match)
                                return true;
                }
                int64_t left = deadline - mono_ms();
                if (left <= 0)
                        return false;
                struct pollfd p = { .fd = l->out_fd, .events = POLLIN };
                if (poll(&p, 1, left < POLL_SLICE_MS ? (int) left : POLL_SLICE_MS) <= 0)
                        continue;
                ssize_t n = read(l->out_fd, l->buf + l->len, sizeof l->buf - 1 - l->len);
                if (n <= 0)
                        fail_msg("loadgen exited before its %s line (its log: %s)", expect, l->log_path);
                l->len += (size_t) n;
        }
}

/* A time the generator takes to answer a status once it is asked. */
#define STATUS_WAIT_MS 5000

static void read_answer(struct loadgen_proc *l, const char *expect, int timeout_ms, struct loadgen_status *ret) {
        if (try_answer(l, expect, timeout_ms, ret))
                return;
        /* say where it got to */
        if (write(l->in_fd, "status\n", 7) == 7)
                try_answer(l, "STATUS", STATUS_WAIT_MS, NULL);
        fail_msg("loadgen gave no %s line within %d ms (its log: %s)", expect, timeout_ms, l->log_path);
}

void loadgen_start(struct loadgen_proc *l, int port, const char *const *args, int timeout_ms,
                   struct loadgen_status *ret_ready) {
        static unsigned n;
        int in[2], out[2];
        char *bin, port_text[16];

        static bool registered;

        memset(l, 0, sizeof *l);
        if (!registered)
                atexit(kill_at_exit);
        registered = true;
        snprintf(l->log_path, sizeof l->log_path, "%s/loadgen-%d-%u.log", harness_env("ARBITER_TEST_TMP"),
                 (int) getpid(), n++);
        snprintf(port_text, sizeof port_text, "%d", port);
        assert_true(asprintf(&bin, "%s/tests/load/loadgen", harness_env("ARBITER_TEST_BUILD")) > 0);
        assert_int_equal(pipe2(in, O_CLOEXEC), 0);
        assert_int_equal(pipe2(out, O_CLOEXEC), 0);
        l->pid = fork();
        assert_true(l->pid >= 0);
        if (l->pid == 0) {
                int log = open(l->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
                const char *argv[64] = { bin, "--port", port_text };
                int i = 3;

                dup2(in[0], STDIN_FILENO);
                dup2(out[1], STDOUT_FILENO);
                dup2(log, STDERR_FILENO);
                for (const char *const *a = args; a && *a && i < 63; a++)
                        argv[i++] = *a;
                execv(bin, (char **) argv);
                _exit(127);
        }
        live = l->pid;
        close(in[0]);
        close(out[1]);
        free(bin);
        l->in_fd = in[1];
        l->out_fd = out[0];
        read_answer(l, "READY", timeout_ms, ret_ready);
}

void loadgen_ask(struct loadgen_proc *l, const char *command, const char *expect, int timeout_ms,
                 struct loadgen_status *ret) {
        size_t len = strlen(command);

        assert_true(l->pid > 0);
        assert_true(write(l->in_fd, command, len) == (ssize_t) len);
        assert_true(write(l->in_fd, "\n", 1) == 1);
        read_answer(l, expect, timeout_ms, ret);
}

void loadgen_stop(struct loadgen_proc *l) {
        int64_t deadline = mono_ms() + STOP_WAIT_MS;

        if (l->pid <= 0)
                return;
        if (write(l->in_fd, "quit\n", 5) != 5) {
                /* gone already: reaped below */
        }
        close(l->in_fd);
        while (waitpid(l->pid, NULL, WNOHANG) == 0) {
                if (mono_ms() > deadline) {
                        kill(l->pid, SIGKILL);
                        waitpid(l->pid, NULL, 0);
                        break;
                }
                usleep(POLL_SLICE_MS * 1000);
        }
        close(l->out_fd);
        if (live == l->pid)
                live = 0;
        l->pid = 0;
}
