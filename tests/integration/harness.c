/* tests/integration/harness.c — see harness.h. */
#define _GNU_SOURCE
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#define MAX_DAEMONS 16

static pid_t live[MAX_DAEMONS];

static int64_t mono_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Whatever happens to the test program, no daemon outlives it. */
static void kill_leftovers(void) {
        for (int i = 0; i < MAX_DAEMONS; i++)
                if (live[i] > 0) {
                        kill(live[i], SIGKILL);
                        waitpid(live[i], NULL, 0);
                        live[i] = 0;
                }
}

int harness_kill_daemons(void **state) {
        (void) state;
        kill_leftovers();
        return 0;
}

static void track(pid_t pid) {
        static bool registered;
        if (!registered) {
                atexit(kill_leftovers);
                registered = true;
        }
        for (int i = 0; i < MAX_DAEMONS; i++)
                if (live[i] == 0) {
                        live[i] = pid;
                        return;
                }
}

static void untrack(pid_t pid) {
        for (int i = 0; i < MAX_DAEMONS; i++)
                if (live[i] == pid)
                        live[i] = 0;
}

const char *harness_env(const char *name) {
        const char *v = getenv(name);
        if (!v || !*v) {
                fprintf(stderr, "%s is not set: run the integration tests through `make test` "
                                "(tests/run.sh starts PostgreSQL and dbus-daemon for them)\n", name);
                exit(1);
        }
        return v;
}

const char *unique_name(const char *prefix) {
        static char buf[8][64];
        static unsigned n;
        char *b = buf[n % 8];
        snprintf(b, sizeof buf[0], "%s_%d_%u", prefix, (int) getpid(), n++);
        return b;
}

static int free_port(void) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof sa;
        int fd = socket(AF_INET, SOCK_STREAM, 0), port;

        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof sa), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &sa, &len), 0);
        port = ntohs(sa.sin_port);
        close(fd);
        return port;
}

static void bind_notify(struct daemon_proc *d) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        static unsigned n;

        snprintf(d->notify_path, sizeof d->notify_path, "%s/notify-%d-%u",
                 harness_env("ARBITER_TEST_TMP"), (int) getpid(), n++);
        assert_true(strlen(d->notify_path) < sizeof sa.sun_path);
        memcpy(sa.sun_path, d->notify_path, strlen(d->notify_path) + 1);
        unlink(d->notify_path);
        d->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(d->notify_fd >= 0);
        assert_int_equal(bind(d->notify_fd, (struct sockaddr *) &sa, sizeof sa), 0);
}

static void start(struct daemon_proc *d, const char *const *extra_env, const char *const *args,
                  bool wait_ready, bool socket_activated) {
        static unsigned n;
        char listen[64];

        memset(d, 0, sizeof *d);
        d->port = free_port();
        snprintf(d->url, sizeof d->url, "http://127.0.0.1:%d", d->port);
        snprintf(listen, sizeof listen, "127.0.0.1:%d", d->port);
        snprintf(d->log_path, sizeof d->log_path, "%s/daemon-%d-%u.log",
                 harness_env("ARBITER_TEST_TMP"), (int) getpid(), n++);
        bind_notify(d);

        const char *daemon = harness_env("ARBITER_TEST_DAEMON");
        const char *dsn = harness_env("ARBITER_TEST_DSN");
        char *migrations, *spool;
        assert_true(asprintf(&migrations, "%s/migrations", harness_env("ARBITER_TEST_ROOT")) > 0);
        /* A spool of its own per daemon (extra_env may name a shared one). */
        assert_true(asprintf(&spool, "%s/spool-%d-%u", harness_env("ARBITER_TEST_TMP"), (int) getpid(), n) > 0);

        d->pid = fork();
        assert_true(d->pid >= 0);
        if (d->pid == 0) {
                int log = open(d->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
                dup2(log, STDERR_FILENO);
                dup2(log, STDOUT_FILENO);
                setenv("NOTIFY_SOCKET", d->notify_path, 1);
                setenv("ARBITER_DSN", dsn, 1);
                setenv("ARBITER_LISTEN", listen, 1);
                setenv("ARBITER_BUS", "session", 1);
                setenv("ARBITER_MIGRATIONS", migrations, 1);
                setenv("ARBITER_SPOOL", spool, 1);
                setenv("ARBITER_LOG_LEVEL", "debug", 1);
                unsetenv("JOURNAL_STREAM");
                unsetenv("INVOCATION_ID");
                for (const char *const *e = extra_env; e && *e; e++)
                        putenv((char *) *e);
                const char *argv[48] = { daemon };
                int i = 1;
                if (socket_activated) {
                        /* systemd-socket-activate passes only the variables named with -E */
                        static const char *const pass[] = { "NOTIFY_SOCKET", "ARBITER_DSN", "ARBITER_BUS",
                                                            "ARBITER_MIGRATIONS", "ARBITER_LOG_LEVEL",
                                                            "ARBITER_SPOOL", "DBUS_SESSION_BUS_ADDRESS" };
                        argv[0] = "systemd-socket-activate";
                        argv[i++] = "-l";
                        argv[i++] = listen;
                        for (size_t k = 0; k < sizeof pass / sizeof pass[0]; k++) {
                                argv[i++] = "-E";
                                argv[i++] = pass[k];
                        }
                        argv[i++] = daemon;
                }
                for (const char *const *a = args; a && *a && i < 47; a++)
                        argv[i++] = *a;
                execvp(argv[0], (char **) argv);
                _exit(127);
        }
        free(migrations);
        free(spool);
        track(d->pid);
        if (wait_ready && !daemon_wait_notify(d, "READY=1", HARNESS_WAIT_MS)) {
                char *log = daemon_log(d);
                fprintf(stderr, "# arbiterd did not become ready; its log:\n%s\n", log);
                free(log);
                fail_msg("arbiterd sent no READY=1 within %d ms", HARNESS_WAIT_MS);
        }
}

void daemon_start(struct daemon_proc *d, const char *const *extra_env, const char *const *args,
                  bool wait_ready) {
        start(d, extra_env, args, wait_ready, false);
}

void daemon_start_socket_activated(struct daemon_proc *d, const char *const *extra_env) {
        start(d, extra_env, NULL, false, true);
        if (!daemon_wait_log(d, "Listening on", HARNESS_WAIT_MS))
                fail_msg("systemd-socket-activate did not start listening");
}

/* Reads every pending notify datagram into d->notified. */
static void drain_notify(struct daemon_proc *d) {
        char buf[1024];
        ssize_t n;

        while ((n = recv(d->notify_fd, buf, sizeof buf - 1, 0)) > 0) {
                buf[n] = '\0';
                size_t used = strlen(d->notified);
                snprintf(d->notified + used, sizeof d->notified - used, "%s\n", buf);
        }
}

bool daemon_wait_notify(struct daemon_proc *d, const char *needle, int timeout_ms) {
        int64_t deadline = mono_usec() + (int64_t) timeout_ms * 1000;

        for (;;) {
                drain_notify(d);
                if (strstr(d->notified, needle))
                        return true;
                if (mono_usec() > deadline)
                        return false;
                if (d->pid > 0 && waitpid(d->pid, NULL, WNOHANG) == d->pid) {
                        untrack(d->pid);
                        d->pid = 0;     /* exited before sending it */
                        drain_notify(d);
                        return strstr(d->notified, needle) != NULL;
                }
                struct pollfd p = { .fd = d->notify_fd, .events = POLLIN };
                poll(&p, 1, 50);
        }
}

static int decode_status(int status) {
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        return 128 + WTERMSIG(status);
}

int daemon_wait_exit(struct daemon_proc *d) {
        int64_t deadline = mono_usec() + (int64_t) HARNESS_WAIT_MS * 1000;
        int status = 0;

        while (d->pid > 0) {
                pid_t r = waitpid(d->pid, &status, WNOHANG);
                if (r == d->pid) {
                        drain_notify(d);
                        untrack(d->pid);
                        d->pid = 0;
                        if (d->notify_fd > 0)
                                close(d->notify_fd);
                        d->notify_fd = -1;
                        unlink(d->notify_path);
                        return decode_status(status);
                }
                if (mono_usec() > deadline) {
                        kill(d->pid, SIGKILL);
                        waitpid(d->pid, NULL, 0);
                        untrack(d->pid);
                        d->pid = 0;
                        fail_msg("arbiterd (pid) did not exit within %d ms; killed", HARNESS_WAIT_MS);
                }
                usleep(2000);
        }
        return -1;
}

int daemon_stop(struct daemon_proc *d, int sig, int64_t *ret_elapsed_usec) {
        int64_t t0 = mono_usec();
        int st;

        if (d->pid <= 0)
                return -1;
        kill(d->pid, sig);
        st = daemon_wait_exit(d);
        if (ret_elapsed_usec)
                *ret_elapsed_usec = mono_usec() - t0;
        return st;
}

char *daemon_log(const struct daemon_proc *d) {
        FILE *f = fopen(d->log_path, "r");
        char *buf = NULL;
        size_t len = 0;

        if (!f)
                return strdup("");
        FILE *m = open_memstream(&buf, &len);
        char chunk[4096];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
                fwrite(chunk, 1, n, m);
        fclose(m);
        fclose(f);
        return buf;
}

bool daemon_log_contains(const struct daemon_proc *d, const char *needle) {
        char *log = daemon_log(d);
        bool found = strstr(log, needle) != NULL;
        free(log);
        return found;
}

bool daemon_wait_log(const struct daemon_proc *d, const char *needle, int timeout_ms) {
        int64_t deadline = mono_usec() + (int64_t) timeout_ms * 1000;

        while (!daemon_log_contains(d, needle)) {
                if (mono_usec() > deadline)
                        return false;
                usleep(20000);
        }
        return true;
}

/* ---- the pad simulator ------------------------------------------------- */

static pid_t live_padsims[MAX_DAEMONS];

int harness_kill_padsims(void **state) {
        (void) state;
        for (int i = 0; i < MAX_DAEMONS; i++)
                if (live_padsims[i] > 0) {
                        kill(live_padsims[i], SIGKILL);
                        waitpid(live_padsims[i], NULL, 0);
                        live_padsims[i] = 0;
                }
        return 0;
}

static void kill_padsims_at_exit(void) {
        harness_kill_padsims(NULL);
}

void padsim_start(struct padsim_proc *p, const char *const *args) {
        static unsigned n;
        static bool registered;
        int in[2], out[2];
        char *bin;

        memset(p, 0, sizeof *p);
        if (!registered) {
                atexit(kill_padsims_at_exit);
                registered = true;
        }
        snprintf(p->log_path, sizeof p->log_path, "%s/padsim-%d-%u.log", harness_env("ARBITER_TEST_TMP"),
                 (int) getpid(), n++);
        assert_true(asprintf(&bin, "%s/arbiter-padsim", harness_env("ARBITER_TEST_BUILD")) > 0);
        assert_int_equal(pipe2(in, O_CLOEXEC), 0);
        assert_int_equal(pipe2(out, O_CLOEXEC), 0);
        p->pid = fork();
        assert_true(p->pid >= 0);
        if (p->pid == 0) {
                int log = open(p->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
                dup2(in[0], STDIN_FILENO);
                dup2(out[1], STDOUT_FILENO);
                dup2(log, STDERR_FILENO);
                const char *argv[48] = { bin };
                int i = 1;
                for (const char *const *a = args; a && *a && i < 45; a++)
                        argv[i++] = *a;
                argv[i++] = "--script";
                argv[i++] = "-";
                execv(bin, (char **) argv);
                _exit(127);
        }
        close(in[0]);
        close(out[1]);
        free(bin);
        p->script_fd = in[1];
        for (int i = 0; i < MAX_DAEMONS; i++)
                if (live_padsims[i] == 0) {
                        live_padsims[i] = p->pid;
                        break;
                }

        /* first line: "PTY /dev/pts/N" */
        FILE *f = fdopen(out[0], "r");
        char line[256] = "";
        assert_non_null(f);
        if (!fgets(line, sizeof line, f))
                fail_msg("arbiter-padsim printed nothing; see %s", p->log_path);
        fclose(f);
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "PTY ", 4) != 0)
                fail_msg("arbiter-padsim's first line should be \"PTY <path>\", not \"%s\"", line);
        snprintf(p->pty, sizeof p->pty, "%.127s", line + 4);
}

void padsim_send(struct padsim_proc *p, const char *fmt, ...) {
        char *line;
        va_list ap;

        va_start(ap, fmt);
        assert_true(vasprintf(&line, fmt, ap) > 0);
        va_end(ap);
        size_t len = strlen(line);
        assert_true(write(p->script_fd, line, len) == (ssize_t) len);
        assert_true(write(p->script_fd, "\n", 1) == 1);
        free(line);
}

void padsim_stop(struct padsim_proc *p) {
        if (p->pid <= 0)
                return;
        close(p->script_fd);
        kill(p->pid, SIGTERM);
        waitpid(p->pid, NULL, 0);
        for (int i = 0; i < MAX_DAEMONS; i++)
                if (live_padsims[i] == p->pid)
                        live_padsims[i] = 0;
        p->pid = 0;
}

bool padsim_log_contains(const struct padsim_proc *p, const char *needle) {
        struct daemon_proc fake = { 0 };
        snprintf(fake.log_path, sizeof fake.log_path, "%s", p->log_path);
        return daemon_log_contains(&fake, needle);
}

/* ---- HTTP --------------------------------------------------------------- */

struct buf {
        char *data;
        size_t len;
};

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata) {
        struct buf *b = userdata;
        size_t n = size * nmemb;
        char *d = realloc(b->data, b->len + n + 1);
        if (!d)
                return 0;
        memcpy(d + b->len, ptr, n);
        b->data = d;
        b->len += n;
        b->data[b->len] = '\0';
        return n;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *userdata) {
        struct http_reply *r = userdata;
        size_t n = size * nmemb;
        char line[512];

        snprintf(line, sizeof line, "%.*s", (int) (n < sizeof line ? n : sizeof line - 1), ptr);
        line[strcspn(line, "\r\n")] = '\0';
        if (strncasecmp(line, "Allow:", 6) == 0)
                snprintf(r->allow, sizeof r->allow, "%s", line + 6 + strspn(line + 6, " "));
        if (strncasecmp(line, "Arbiter-Read-From:", 18) == 0)
                snprintf(r->read_from, sizeof r->read_from, "%s", line + 18 + strspn(line + 18, " "));
        return n;
}

bool harness_expect_continue;

void http_request(const char *method, const char *url, const char *token, const char *content_type,
                  const char *body, size_t body_len, struct http_reply *ret) {
        CURL *c = curl_easy_init();
        struct curl_slist *headers = NULL;
        struct buf b = { 0 };
        char h[512];
        const char *ct = NULL;
        CURLcode rc;

        memset(ret, 0, sizeof *ret);
        assert_non_null(c);
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, ret);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long) HARNESS_WAIT_MS);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        if (strcmp(method, "HEAD") == 0)
                curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
        if (token) {
                snprintf(h, sizeof h, "Authorization: Bearer %s", token);
                headers = curl_slist_append(headers, h);
        }
        if (content_type) {
                snprintf(h, sizeof h, "Content-Type: %s", content_type);
                headers = curl_slist_append(headers, h);
        }
        if (!harness_expect_continue)
                headers = curl_slist_append(headers, "Expect:");
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        if (body) {
                curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
                curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) body_len);
        }
        rc = curl_easy_perform(c);
        if (rc != CURLE_OK)
                fail_msg("%s %s failed: %s", method, url, curl_easy_strerror(rc));
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &ret->status);
        curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
        if (ct)
                snprintf(ret->content_type, sizeof ret->content_type, "%s", ct);
        ret->body = b.data ? b.data : strdup("");
        ret->json = json_loads(ret->body, 0, NULL);
        curl_slist_free_all(headers);
        curl_easy_cleanup(c);
}

void http_get(const struct daemon_proc *d, const char *path, const char *token, struct http_reply *ret) {
        char url[512];
        snprintf(url, sizeof url, "%s%s", d->url, path);
        http_request("GET", url, token, NULL, NULL, 0, ret);
}

void http_post_json(const struct daemon_proc *d, const char *path, const char *token, const char *json,
                    struct http_reply *ret) {
        char url[512];
        snprintf(url, sizeof url, "%s%s", d->url, path);
        http_request("POST", url, token, "application/json", json, strlen(json), ret);
}

void http_reply_done(struct http_reply *r) {
        free(r->body);
        json_decref(r->json);
        memset(r, 0, sizeof *r);
}

/* ---- commands ----------------------------------------------------------- */

int run_cmd(const char *fmt, ...) {
        char *cmd;
        va_list ap;
        int st;

        va_start(ap, fmt);
        assert_true(vasprintf(&cmd, fmt, ap) > 0);
        va_end(ap);
        st = system(cmd);
        free(cmd);
        return st < 0 ? -1 : decode_status(st);
}

pid_t harness_dbus_monitor(const char *interface, const char *file) {
        char *pid_s = run_capture(NULL, "timeout 300 busctl --user monitor --match "
                                        "\"type='signal',interface='%s'\" > '%s' 2>&1 & echo $!", interface, file);
        pid_t pid = (pid_t) atoi(pid_s);

        free(pid_s);
        if (pid <= 0)
                fail_msg("busctl monitor did not start");
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                char *text = run_capture(NULL, "cat '%s'", file);
                bool listening = strstr(text, "Member=Probe") != NULL;

                free(text);
                if (listening)
                        return pid;
                if (mono_ms() > deadline) {
                        kill(pid, SIGTERM);
                        fail_msg("busctl monitor never showed the probe signal (%s)", file);
                }
                run_cmd("busctl --user emit /org/arbiter/test/probe %s Probe", interface);
                usleep(50000);
        }
}

char *run_capture(int *ret_status, const char *fmt, ...) {
        char *cmd, *buf = NULL;
        size_t len = 0;
        va_list ap;
        FILE *p, *m;
        char chunk[4096];
        size_t n;
        int st;

        va_start(ap, fmt);
        assert_true(vasprintf(&cmd, fmt, ap) > 0);
        va_end(ap);
        p = popen(cmd, "r");
        assert_non_null(p);
        m = open_memstream(&buf, &len);
        while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
                fwrite(chunk, 1, n, m);
        fclose(m);
        st = pclose(p);
        if (ret_status)
                *ret_status = st < 0 ? -1 : decode_status(st);
        free(cmd);
        return buf;
}

char *create_token(const char *role, const char *name) {
        int st;
        char *out = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none "
                                     "'%s' --create-token %s '%s' 2>/dev/null",
                                harness_env("ARBITER_TEST_DSN"), harness_env("ARBITER_TEST_ROOT"),
                                harness_env("ARBITER_TEST_DAEMON"), role, name);
        if (st != 0)
                fail_msg("arbiterd --create-token %s %s exited %d", role, name, st);
        out[strcspn(out, "\n")] = '\0';
        return out;
}

bool wait_database_state(const struct daemon_proc *d, const char *state, int timeout_ms) {
        int64_t deadline = mono_usec() + (int64_t) timeout_ms * 1000;

        for (;;) {
                struct http_reply r;
                http_get(d, "/v1/health", NULL, &r);
                const char *s = json_string_value(json_object_get(json_object_get(r.json, "database"), "state"));
                bool ok = s && strcmp(s, state) == 0;
                http_reply_done(&r);
                if (ok)
                        return true;
                if (mono_usec() > deadline)
                        return false;
                usleep(50000);
        }
}

bool wait_tokens_loaded(const struct daemon_proc *d, int timeout_ms) {
        int64_t deadline = mono_usec() + (int64_t) timeout_ms * 1000;

        for (;;) {
                struct http_reply r;
                http_get(d, "/v1/status", NULL, &r);
                bool ok = json_is_true(json_object_get(json_object_get(r.json, "tokens"), "loaded"));
                http_reply_done(&r);
                if (ok)
                        return true;
                if (mono_usec() > deadline)
                        return false;
                usleep(20000);
        }
}

char *create_database(const char *name) {
        char *dsn;
        int st = run_cmd("'%s/tools/pgcluster' '%s' psql -q -c 'CREATE DATABASE %s' >/dev/null",
                         harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_PGDIR"), name);
        assert_int_equal(st, 0);
        const char *base = harness_env("ARBITER_TEST_DSN");
        const char *db = strstr(base, "dbname=");
        assert_non_null(db);
        size_t db_end = strcspn(db, " ");
        assert_true(asprintf(&dsn, "%.*sdbname=%s%s", (int) (db - base), base, name, db + db_end) > 0);
        return dsn;
}

/* ---- docs/dbus.md ------------------------------------------------------- */

#define DOC_MAX_MEMBERS 64

void assert_dbus_doc_matches(const char *path, const char *iface) {
        char doc_path[512], line[1024], heading[160];
        char doc[DOC_MAX_MEMBERS][3][128];     /* kind, name, signature */
        size_t n_doc = 0, n_live = 0;
        bool in_section = false;
        int st;
        FILE *f;

        snprintf(doc_path, sizeof doc_path, "%s/docs/dbus.md", harness_env("ARBITER_TEST_ROOT"));
        snprintf(heading, sizeof heading, "### %s", iface);
        f = fopen(doc_path, "r");
        assert_non_null(f);
        while (fgets(line, sizeof line, f)) {
                char kind[32], name[128], sig[128];
                line[strcspn(line, "\n")] = '\0';
                if (strncmp(line, "### ", 4) == 0) {
                        in_section = strcmp(line, heading) == 0;
                        continue;
                }
                if (!in_section || sscanf(line, "| %31[A-Za-z] | %127[A-Za-z0-9_] | %127[^|]|", kind, name, sig) != 3)
                        continue;
                if (strcmp(kind, "Kind") == 0)
                        continue;
                sig[strcspn(sig, " ")] = '\0';
                assert_true(n_doc < DOC_MAX_MEMBERS);
                for (char *k = kind; *k; k++)
                        *k = (char) (*k >= 'A' && *k <= 'Z' ? *k + 32 : *k);
                snprintf(doc[n_doc][0], 128, "%s", kind);
                snprintf(doc[n_doc][1], 128, "%s", name);
                snprintf(doc[n_doc][2], 128, "%s", sig);
                n_doc++;
        }
        fclose(f);
        if (n_doc == 0)
                fail_msg("docs/dbus.md has no member table under \"%s\"", heading);

        char *out = run_capture(&st, "busctl --user --no-legend introspect org.arbiter.Arbiter1 '%s' '%s'",
                                path, iface);
        assert_int_equal(st, 0);
        char *save = NULL;
        for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char name[128], kind[32], sig[128];
                if (sscanf(l, ".%127s %31s %127s", name, kind, sig) != 3)
                        continue;
                bool found = false;
                for (size_t i = 0; i < n_doc; i++)
                        found |= strcmp(doc[i][0], kind) == 0 && strcmp(doc[i][1], name) == 0 &&
                                 strcmp(doc[i][2], sig) == 0;
                if (!found)
                        fail_msg("live %s %s %s (%s) is not in docs/dbus.md", iface, kind, name, sig);
                n_live++;
        }
        free(out);
        if (n_live != n_doc)
                fail_msg("docs/dbus.md lists %zu members of %s, the live object has %zu", n_doc, iface, n_live);
}
