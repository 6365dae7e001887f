/* tests/integration/pgrelay_proc.c — see pgrelay_proc.h. */
#define _GNU_SOURCE
#include "tests/integration/pgrelay_proc.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

#define MAX_RELAYS      8
/* How long quit may take before the relay is killed. */
#define STOP_WAIT_MS    5000
#define POLL_SLICE_MS   50

static pid_t live[MAX_RELAYS];

static void kill_all(void) {
        for (int i = 0; i < MAX_RELAYS; i++)
                if (live[i] > 0) {
                        kill(live[i], SIGKILL);
                        waitpid(live[i], NULL, 0);
                        live[i] = 0;
                }
}

int harness_kill_pgrelays(void **state) {
        (void) state;
        kill_all();
        return 0;
}

static void track(pid_t pid) {
        static bool registered;

        if (!registered)
                atexit(kill_all);
        registered = true;
        for (int i = 0; i < MAX_RELAYS; i++)
                if (live[i] == 0) {
                        live[i] = pid;
                        return;
                }
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fail_msg("more than %d relays at once", MAX_RELAYS);
}

static void untrack(pid_t pid) {
        for (int i = 0; i < MAX_RELAYS; i++)
                if (live[i] == pid)
                        live[i] = 0;
}

/* Its next line, which must start with expect, copied into line. */
static void answer(struct pgrelay_proc *r, const char *expect, char *line, size_t size) {
        int64_t deadline = mono_ms() + HARNESS_WAIT_MS;

        for (;;) {
                char *nl = memchr(r->buf, '\n', r->len);
                if (nl) {
                        *nl = '\0';
                        if (strncmp(r->buf, expect, strlen(expect)) != 0)
                                fail_msg("pgrelay answered \"%s\", not %s… (its log: %s)", r->buf, expect,
                                         r->log_path);
                        if (line)
                                snprintf(line, size, "%.*s", (int) (size - 1), r->buf);
                        r->len -= (size_t) (nl + 1 - r->buf);
                        memmove(r->buf, nl + 1, r->len);
                        return;
                }
                int64_t left = deadline - mono_ms();
                if (left <= 0)
                        fail_msg("pgrelay gave no %s line within %d ms (its log: %s)", expect, HARNESS_WAIT_MS,
                                 r->log_path);
                struct pollfd p = { .fd = r->out_fd, .events = POLLIN };
                if (poll(&p, 1, left < POLL_SLICE_MS ? (int) left : POLL_SLICE_MS) <= 0)
                        continue;
                ssize_t n = read(r->out_fd, r->buf + r->len, sizeof r->buf - 1 - r->len);
                if (n <= 0)
                        fail_msg("pgrelay exited before its %s line (its log: %s)", expect, r->log_path);
                r->len += (size_t) n;
        }
}

static void ask(struct pgrelay_proc *r, const char *command, const char *expect, char *line, size_t size) {
        size_t len = strlen(command);

        assert_true(r->pid > 0);
        assert_true(write(r->in_fd, command, len) == (ssize_t) len);
        assert_true(write(r->in_fd, "\n", 1) == 1);
        answer(r, expect, line, size);
}

void pgrelay_start(struct pgrelay_proc *r, const char *dir, const char *server_dir) {
        static unsigned n;
        int in[2], out[2];
        char *bin;

        memset(r, 0, sizeof *r);
        snprintf(r->dir, sizeof r->dir, "%s", dir);
        assert_int_equal(run_cmd("mkdir -p '%s' && chmod 0700 '%s'", dir, dir), 0);
        snprintf(r->log_path, sizeof r->log_path, "%s/pgrelay-%d-%u.log", harness_env("ARBITER_TEST_TMP"),
                 (int) getpid(), n++);
        assert_true(asprintf(&bin, "%s/tests/pgrelay", harness_env("ARBITER_TEST_BUILD")) > 0);
        assert_int_equal(pipe2(in, O_CLOEXEC), 0);
        assert_int_equal(pipe2(out, O_CLOEXEC), 0);
        r->pid = fork();
        assert_true(r->pid >= 0);
        if (r->pid == 0) {
                int log = open(r->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

                dup2(in[0], STDIN_FILENO);
                dup2(out[1], STDOUT_FILENO);
                dup2(log, STDERR_FILENO);
                execl(bin, bin, dir, server_dir, (char *) NULL);
                _exit(127);
        }
        track(r->pid);
        close(in[0]);
        close(out[1]);
        free(bin);
        r->in_fd = in[1];
        r->out_fd = out[0];
        answer(r, "LISTENING", NULL, 0);
}

unsigned pgrelay_cut(struct pgrelay_proc *r) {
        char line[128];

        ask(r, "cut", "CUT", line, sizeof line);
        return (unsigned) strtoul(line + 4, NULL, 10);
}

void pgrelay_restore(struct pgrelay_proc *r) {
        ask(r, "restore", "RESTORED", NULL, 0);
}

struct pgrelay_count pgrelay_count(struct pgrelay_proc *r) {
        struct pgrelay_count c = { 0 };
        char line[160];

        ask(r, "count", "CONNECTIONS", line, sizeof line);
        if (sscanf(line, "CONNECTIONS %u ACCEPTED %lu REFUSED %lu", &c.connections, &c.accepted, &c.refused) != 3)
                fail_msg("pgrelay's count: \"%s\"", line);
        return c;
}

char *pgrelay_dsn(const struct pgrelay_proc *r, const char *dsn) {
        const char *host = strstr(dsn, "host=");
        char *out;

        assert_non_null(host);
        size_t end = strcspn(host, " ");
        assert_true(asprintf(&out, "%.*shost=%s%s", (int) (host - dsn), dsn, r->dir, host + end) > 0);
        return out;
}

void pgrelay_stop(struct pgrelay_proc *r) {
        int64_t deadline = mono_ms() + STOP_WAIT_MS;

        if (r->pid <= 0)
                return;
        if (write(r->in_fd, "quit\n", 5) != 5) {
                /* gone already: reaped below */
        }
        close(r->in_fd);
        while (waitpid(r->pid, NULL, WNOHANG) == 0) {
                if (mono_ms() > deadline) {
                        kill(r->pid, SIGKILL);
                        waitpid(r->pid, NULL, 0);
                        break;
                }
                usleep(POLL_SLICE_MS * 1000);
        }
        close(r->out_fd);
        untrack(r->pid);
        r->pid = 0;
}
