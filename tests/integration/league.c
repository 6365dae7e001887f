/* tests/integration/league.c — see league.h. */
#define _GNU_SOURCE
#include "tests/integration/league.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/sse_client.h"

static const char *const venue_ids[LEAGUE_MAX_VENUES] = { "north", "south", "east" };

/* padsim --uid-base: venue i's pads are LEAGUE_UID_BASE + 16 i + k (the
 * stage's database is its own: no other test's pads are there). */
#define LEAGUE_UID_BASE         0x8100u
#define LEAGUE_UID_STRIDE       0x10u

/* As the other pad stages: a generous settle window for a sanitizer
 * build, quick syncs and a quick reopen of the pty after a restart.  The
 * replica may lag a few seconds on a loaded machine before it is skipped
 * (the replica's tests set their own bound: test_replica.c). */
static const char config_text[] =
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* How often a wait looks again. */
#define POLL_US                 20000

/* The stage an abort leaves behind: its clusters are shut down at exit. */
static struct league *current;

/* ---- the clusters ------------------------------------------------------- */

/* The postmaster's pid of the cluster in dir (its data/postmaster.pid), 0
 * when it does not run. */
static pid_t postmaster_pid(const char *dir) {
        char path[512];
        long pid = 0;
        FILE *f;

        snprintf(path, sizeof path, "%s/data/postmaster.pid", dir);
        f = fopen(path, "r");
        if (!f)
                return 0;
        if (fscanf(f, "%ld", &pid) != 1)
                pid = 0;
        fclose(f);
        return pid > 0 && kill((pid_t) pid, 0) == 0 ? (pid_t) pid : 0;
}

/* An immediate shutdown of the cluster in dir, by its postmaster's pid;
 * waits until it is gone (it is not our child: kill(pid, 0) says). */
static bool crash_cluster(const char *dir) {
        pid_t pid = postmaster_pid(dir);

        if (pid <= 0)
                return true;
        kill(pid, SIGQUIT);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; kill(pid, 0) == 0 || errno != ESRCH;) {
                if (mono_ms() > deadline)
                        return false;
                usleep(POLL_US);
        }
        return true;
}

static void crash_clusters_at_exit(void) {
        if (!current)
                return;
        if (current->replica_dir)
                crash_cluster(current->replica_dir);
        if (current->primary_dir)
                crash_cluster(current->primary_dir);
}

static void pgcluster(const char *dir, const char *what, const char *arg) {
        int st = run_cmd("'%s/tools/pgcluster' '%s' %s %s >>'%s.log' 2>&1", harness_env("ARBITER_TEST_ROOT"), dir,
                         what, arg ? arg : "", dir);
        if (st != 0)
                fail_msg("tools/pgcluster %s %s failed (%d): see %s.log", dir, what, st, dir);
}

void league_pg(struct league *l, bool replica, const char *what) {
        pgcluster(replica ? l->replica_dir : l->primary_dir, what, NULL);
}

void league_crash_primary(struct league *l) {
        if (!crash_cluster(l->primary_dir))
                fail_msg("the primary did not go down on SIGQUIT within %d ms", HARNESS_WAIT_MS);
}

static char *cluster_dsn(const char *dir) {
        int st;
        char *dsn = run_capture(&st, "'%s/tools/pgcluster' '%s' dsn", harness_env("ARBITER_TEST_ROOT"), dir);

        assert_int_equal(st, 0);
        dsn[strcspn(dsn, "\n")] = '\0';
        return dsn;
}

long long league_sql(const char *dsn, const char *sql) {
        int st;
        char *out = run_capture(&st, "psql '%s' -tAX -c \"%s\" 2>&1", dsn, sql);
        long long v = out[0] == 't' ? 1 : out[0] == 'f' ? 0 : atoll(out);

        if (st != 0)
                fail_msg("psql: %s: %s", sql, out);
        free(out);
        return v;
}

void league_wait_sql(const char *dsn, const char *sql, const char *what) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; league_sql(dsn, sql) < 1; usleep(POLL_US))
                if (mono_ms() > deadline)
                        fail_msg("the database never got there: %s", what);
}

static char *token_in(struct league *l, const char *role) {
        int st;
        char *t = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none "
                                   "'%s' --create-token %s '%s' 2>>'%s/tokens.log'", l->dsn,
                              harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"), role,
                              unique_name(role), l->dir);
        if (st != 0)
                fail_msg("arbiterd --create-token %s exited %d: see %s/tokens.log", role, st, l->dir);
        t[strcspn(t, "\n")] = '\0';
        return t;
}

/* ---- the venues --------------------------------------------------------- */

static void venue_env(struct league_venue *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void venue_env(struct league_venue *v, const char *fmt, ...) {
        va_list ap;

        assert_true(v->n_env < LEAGUE_MAX_ENV);
        va_start(ap, fmt);
        assert_true(vasprintf(&v->env[v->n_env++], fmt, ap) > 0);
        va_end(ap);
        v->env[v->n_env] = NULL;
}

/* The DSN of the primary's database with its host replaced by hosts. */
static char *dsn_with_hosts(const char *dsn, const char *hosts) {
        const char *host = strstr(dsn, "host=");
        char *out;

        assert_non_null(host);
        size_t end = strcspn(host, " ");
        assert_true(asprintf(&out, "%.*shost=%s%s", (int) (host - dsn), dsn, hosts, host + end) > 0);
        return out;
}

static void venue_prepare(struct league *l, unsigned i) {
        struct league_venue *v = &l->v[i];
        char uid_base[16];

        v->id = venue_ids[i];
        v->league = l;
        assert_true(asprintf(&v->spool, "%s/spool-%s", l->dir, v->id) > 0);
        assert_true(asprintf(&v->config_path, "%s/%s.conf", l->dir, v->id) > 0);
        FILE *f = fopen(v->config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);

        if (l->opt.relays) {
                char relay_dir[512], server_dir[512];
                snprintf(relay_dir, sizeof relay_dir, "%s/link-%s", l->dir, v->id);
                snprintf(server_dir, sizeof server_dir, "%s/run", l->primary_dir);
                pgrelay_start(&v->relay, relay_dir, server_dir);
                v->dsn = pgrelay_dsn(&v->relay, l->dsn);
        } else if (l->opt.failover_dsn) {
                char *hosts;
                assert_true(asprintf(&hosts, "%s/run,%s/run", l->primary_dir, l->replica_dir) > 0);
                char *base = dsn_with_hosts(l->dsn, hosts);
                assert_true(asprintf(&v->dsn, "%s target_session_attrs=read-write", base) > 0);
                free(base);
                free(hosts);
        } else {
                v->dsn = strdup(l->dsn);
        }

        venue_env(v, "ARBITER_DSN=%s", v->dsn);
        venue_env(v, "ARBITER_VENUE=%s", v->id);
        venue_env(v, "ARBITER_SPOOL=%s", v->spool);
        if (i > 0)
                venue_env(v, "ARBITER_BUS=none");
        if (l->opt.replica_reads)
                venue_env(v, "ARBITER_REPLICA_DSN=%s", l->replica_dsn);
        if (l->opt.pads) {
                unsigned base = LEAGUE_UID_BASE + LEAGUE_UID_STRIDE * i;
                snprintf(uid_base, sizeof uid_base, "%u", base);
                assert_true(asprintf(&v->link, "%s/pads-%s", l->dir, v->id) > 0);
                const char *sim_args[] = { "--pads", "2", "--link", v->link, "--seed", "17", "--uid-base", uid_base,
                                           NULL };
                padsim_start(&v->sim, sim_args);
                for (unsigned k = 0; k < LEAGUE_PADS; k++)
                        snprintf(v->pad_ids[k], sizeof v->pad_ids[k], "%016x", base + k);
                venue_env(v, "ARBITER_PADS=%s", v->link);
        }
}

static void venue_launch(struct league *l, unsigned i) {
        struct league_venue *v = &l->v[i];
        char *arg;

        assert_true(asprintf(&arg, "--config=%s", v->config_path) > 0);
        const char *args[] = { arg, NULL };
        daemon_start(&v->d, (const char *const *) v->env, args, false);
        v->running = true;
        free(arg);
}

static void venue_ready(struct league *l, unsigned i) {
        struct league_venue *v = &l->v[i];

        if (!daemon_wait_notify(&v->d, "READY=1", HARNESS_WAIT_MS)) {
                char *log = daemon_log(&v->d);
                fprintf(stderr, "# venue %s's arbiterd did not become ready; its log:\n%s\n", v->id, log);
                free(log);
                fail_msg("venue %s's arbiterd sent no READY=1 within %d ms", v->id, HARNESS_WAIT_MS);
        }
        league_wait_database(l, i, "ready");
        if (!wait_tokens_loaded(&v->d, HARNESS_WAIT_MS))
                fail_msg("venue %s's arbiterd never loaded its tokens", v->id);
}

void league_start(struct league *l, unsigned i) {
        venue_launch(l, i);
        venue_ready(l, i);
}

int league_stop(struct league *l, unsigned i) {
        struct league_venue *v = &l->v[i];

        if (!v->running)
                return -1;
        v->running = false;
        return daemon_stop(&v->d, SIGTERM, NULL);
}

void league_kill(struct league *l, unsigned i) {
        struct league_venue *v = &l->v[i];

        if (!v->running)
                return;
        v->running = false;
        daemon_stop(&v->d, SIGKILL, NULL);
}

void league_init(struct league *l, const char *name, const struct league_options *opt) {
        static bool registered;

        memset(l, 0, sizeof *l);
        assert_true(opt->venues >= 1 && opt->venues <= LEAGUE_MAX_VENUES);
        assert_true(opt->replica || !(opt->synchronous || opt->replica_reads || opt->failover_dsn));
        l->opt = *opt;
        l->n = opt->venues;
        current = l;
        if (!registered)
                atexit(crash_clusters_at_exit);
        registered = true;

        /* The test build's daemon: the test game reflex plays quickly. */
        setenv("ARBITER_TEST_DAEMON", harness_env("ARBITER_TEST_DAEMON_GAMES"), 1);
        assert_true(asprintf(&l->dir, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name(name)) > 0);
        assert_int_equal(run_cmd("mkdir -p '%s' && chmod 0755 '%s'", l->dir, l->dir), 0);
        assert_true(asprintf(&l->primary_dir, "%s/primary", l->dir) > 0);
        pgcluster(l->primary_dir, "init", NULL);
        pgcluster(l->primary_dir, "start", NULL);
        l->dsn = cluster_dsn(l->primary_dir);
        if (opt->replica) {
                assert_true(asprintf(&l->replica_dir, "%s/replica", l->dir) > 0);
                pgcluster(l->replica_dir, "replica", l->primary_dir);
                /* a standby that lost its primary tries again at once, not
                 * after the default 5 s (a restart of the primary) */
                assert_int_equal(run_cmd("echo \"wal_retrieve_retry_interval = '100ms'\" >> '%s/data/postgresql.conf'",
                                         l->replica_dir), 0);
                pgcluster(l->replica_dir, "start", NULL);
                l->replica_dsn = cluster_dsn(l->replica_dir);
                if (opt->synchronous) {
                        league_sql(l->dsn, "ALTER SYSTEM SET synchronous_standby_names = 'replica'");
                        league_sql(l->dsn, "SELECT pg_reload_conf()");
                }
                league_wait_sql(l->dsn, opt->synchronous
                                ? "SELECT count(*) FROM pg_stat_replication WHERE application_name = 'replica' "
                                  "AND state = 'streaming' AND sync_state = 'sync'"
                                : "SELECT count(*) FROM pg_stat_replication WHERE application_name = 'replica' "
                                  "AND state = 'streaming'",
                                "the replica streams from the primary");
        }
        l->admin = token_in(l, "admin");
        l->referee = token_in(l, "referee");
        l->display = token_in(l, "display");

        for (unsigned i = 0; i < l->n; i++)
                venue_prepare(l, i);
        for (unsigned i = 0; i < l->n; i++)
                venue_launch(l, i);
        for (unsigned i = 0; i < l->n; i++) {
                venue_ready(l, i);
                if (opt->pads)
                        league_wait_pads(l, i);
        }
}

void league_done(struct league *l) {
        if (!l->dir)
                return;
        for (unsigned i = 0; i < l->n; i++) {
                struct league_venue *v = &l->v[i];
                league_kill(l, i);
                padsim_stop(&v->sim);
                pgrelay_stop(&v->relay);
                for (size_t k = 0; k < v->n_env; k++)
                        free(v->env[k]);
                free(v->dsn);
                free(v->spool);
                free(v->link);
                free(v->config_path);
        }
        if (l->replica_dir)
                run_cmd("'%s/tools/pgcluster' '%s' stop >/dev/null 2>&1 || true", harness_env("ARBITER_TEST_ROOT"),
                        l->replica_dir);
        if (l->primary_dir)
                run_cmd("'%s/tools/pgcluster' '%s' stop >/dev/null 2>&1 || true", harness_env("ARBITER_TEST_ROOT"),
                        l->primary_dir);
        /* what a stop could not end */
        if (l->replica_dir)
                crash_cluster(l->replica_dir);
        if (l->primary_dir)
                crash_cluster(l->primary_dir);
        free(l->dir);
        free(l->primary_dir);
        free(l->replica_dir);
        free(l->dsn);
        free(l->replica_dsn);
        free(l->admin);
        free(l->referee);
        free(l->display);
        if (current == l)
                current = NULL;
        memset(l, 0, sizeof *l);
}

/* ---- HTTP ----------------------------------------------------------------- */

struct body_buf {
        char *data;
        size_t len;
};

struct header_want {
        char *out;
        size_t size;
};

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata) {
        struct body_buf *b = userdata;
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

#define READ_FROM_HEADER "Arbiter-Read-From:"

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *userdata) {
        struct header_want *h = userdata;
        size_t n = size * nmemb, k = strlen(READ_FROM_HEADER);

        if (h->out && n > k && strncasecmp(ptr, READ_FROM_HEADER, k) == 0) {
                const char *v = ptr + k;
                size_t len = n - k;
                while (len && (*v == ' ' || *v == '\t'))
                        v++, len--;
                while (len && (v[len - 1] == '\r' || v[len - 1] == '\n'))
                        len--;
                snprintf(h->out, h->size, "%.*s", (int) len, v);
        }
        return n;
}

void league_request(struct league *l, unsigned i, const char *method, const char *path, const char *token,
                    const char *body, struct http_reply *ret, char *read_from, size_t read_from_size) {
        CURL *c = curl_easy_init();
        struct curl_slist *headers = NULL;
        struct body_buf b = { 0 };
        struct header_want h = { .out = read_from, .size = read_from_size };
        char url[512], line[512];
        CURLcode rc;

        memset(ret, 0, sizeof *ret);
        if (read_from && read_from_size)
                read_from[0] = '\0';
        assert_non_null(c);
        snprintf(url, sizeof url, "%s%s", l->v[i].d.url, path);
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long) HARNESS_WAIT_MS);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        if (token) {
                snprintf(line, sizeof line, "Authorization: Bearer %s", token);
                headers = curl_slist_append(headers, line);
        }
        headers = curl_slist_append(headers, "Expect:");
        if (body) {
                headers = curl_slist_append(headers, "Content-Type: application/json");
                curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
                curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) strlen(body));
        }
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        rc = curl_easy_perform(c);
        if (rc != CURLE_OK)
                fail_msg("venue %s: %s %s failed: %s", l->v[i].id, method, path, curl_easy_strerror(rc));
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &ret->status);
        ret->body = b.data ? b.data : strdup("");
        ret->json = json_loads(ret->body, 0, NULL);
        curl_slist_free_all(headers);
        curl_easy_cleanup(c);
}

json_t *league_call(struct league *l, unsigned i, const char *method, const char *path, const char *token,
                    const char *body, long status) {
        struct http_reply r;

        league_request(l, i, method, path, token, body, &r, NULL, 0);
        if (r.status != status)
                fail_msg("venue %s: %s %s: expected HTTP %ld, got %ld: %s", l->v[i].id, method, path, status,
                         r.status, r.body);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

void league_wait_database(struct league *l, unsigned i, const char *state) {
        if (!wait_database_state(&l->v[i].d, state, HARNESS_WAIT_MS))
                fail_msg("venue %s's database never became %s", l->v[i].id, state);
}

static bool pads_connected(struct league *l, unsigned i) {
        struct league_venue *v = &l->v[i];
        json_t *j = league_call(l, i, "GET", "/v1/pads", l->admin, NULL, 200), *p;
        unsigned found = 0;
        size_t k;

        json_array_foreach(json_object_get(j, "items"), k, p) {
                const char *id = json_string_value(json_object_get(p, "id"));
                for (unsigned n = 0; n < LEAGUE_PADS; n++)
                        if (id && strcmp(id, v->pad_ids[n]) == 0 && json_is_true(json_object_get(p, "connected")))
                                found++;
        }
        json_decref(j);
        return found == LEAGUE_PADS;
}

void league_wait_pads(struct league *l, unsigned i) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !pads_connected(l, i); usleep(POLL_US))
                if (mono_ms() > deadline)
                        fail_msg("venue %s's %d simulated pads did not all connect", l->v[i].id, LEAGUE_PADS);
}

json_int_t league_table(struct league *l, unsigned at, unsigned i, unsigned seats, bool with_pads) {
        char body[512];
        int n;

        assert_true(!with_pads || (l->opt.pads && seats <= LEAGUE_PADS));
        n = snprintf(body, sizeof body, "{\"name\": \"%s\", \"venue\": \"%s\", \"seats\": [",
                     unique_name(l->v[i].id), l->v[i].id);
        for (unsigned s = 0; s < seats; s++) {
                if (with_pads)
                        n += snprintf(body + n, sizeof body - (size_t) n, "%s{\"seat\": %u, \"pad\": \"%s\"}",
                                      s ? ", " : "", s + 1, l->v[i].pad_ids[s]);
                else
                        n += snprintf(body + n, sizeof body - (size_t) n, "%s{\"seat\": %u}", s ? ", " : "", s + 1);
        }
        snprintf(body + n, sizeof body - (size_t) n, "]}");
        json_t *t = league_call(l, at, "POST", "/v1/tables", l->admin, body, 201);
        json_int_t id = json_integer_value(json_object_get(t, "id"));
        json_decref(t);
        return id;
}
