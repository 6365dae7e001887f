/* arbiterctl against the real daemon: the real build/arbiterctl binary,
 * run as a child process with its stdout, stderr and exit status captured.
 * Every verb's happy path, in tables and in --json; the main errors and
 * their exit statuses (2 usage, 3 not found, 4 conflict, 5 auth,
 * 6 connection); --help for every verb, each verb in the man page; the
 * bash completion; and `watch` following a tournament, resuming after the
 * daemon restarts, and ending with status 0 on Ctrl-C.  Waits are for a
 * line or a process, never a sleep. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

extern char **environ;

/* The exit statuses of docs/man/arbiterctl.1. */
enum { OK = 0, ERROR = 1, USAGE = 2, NOT_FOUND = 3, CONFLICT = 4, AUTH = 5, CONNECTION = 6 };

#define MAX_ARGS 64
/* Enough for any reply of this test (every player of the suite's database). */
#define OUTPUT_MAX (4u * 1024 * 1024)
/* A Crash Pilot match of two players ends well within this many calls. */
#define MAX_CALLS 200

static struct daemon_proc daemon_;
static char *admin, *referee, *display, *admin_file;
static char ctl_path[512];

struct run {
        int status;                     /* exit status, or 128 + signal */
        char *out, *err;
        json_t *json;                   /* stdout parsed, when it is JSON */
};

/* --- running arbiterctl --- */

/* The environment without the variables arbiterctl reads, plus extra. */
static char **child_env(const char *const *extra) {
        size_t n = 0, k = 0;
        char **env;

        while (environ[n])
                n++;
        for (const char *const *e = extra; e && *e; e++)
                n++;
        env = calloc(n + 1, sizeof *env);
        assert_non_null(env);
        for (char **e = environ; *e; e++)
                if (strncmp(*e, "ARBITER_URL=", 12) != 0 && strncmp(*e, "ARBITER_TOKEN", 13) != 0 &&
                    strncmp(*e, "ARBITER_TOURNAMENT=", 19) != 0)
                        env[k++] = *e;
        for (const char *const *e = extra; e && *e; e++)
                env[k++] = (char *) *e;
        return env;
}

struct child {
        pid_t pid;
        int fd[2];                      /* stdout, stderr (read ends); -1 once at EOF */
        char *buf[2];
        size_t len[2];
};

static void child_start(struct child *ch, const char *const *env_extra, const char *const *args) {
        posix_spawn_file_actions_t fa;
        int out[2], err[2];
        const char *argv[MAX_ARGS + 1] = { ctl_path };
        int n = 1;
        char **env = child_env(env_extra);

        for (const char *const *a = args; *a; a++) {
                assert_true(n < MAX_ARGS);
                argv[n++] = *a;
        }
        assert_int_equal(pipe2(out, O_CLOEXEC), 0);
        assert_int_equal(pipe2(err, O_CLOEXEC), 0);
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
        memset(ch, 0, sizeof *ch);
        assert_int_equal(posix_spawn(&ch->pid, ctl_path, &fa, NULL, (char **) argv, env), 0);
        posix_spawn_file_actions_destroy(&fa);
        free(env);
        close(out[1]);
        close(err[1]);
        ch->fd[0] = out[0];
        ch->fd[1] = err[0];
        for (int i = 0; i < 2; i++) {
                ch->buf[i] = calloc(1, OUTPUT_MAX + 1);
                assert_non_null(ch->buf[i]);
        }
}

/* Reads what is there, waiting up to ms for something; false at EOF of both. */
static bool child_pump(struct child *ch, int ms) {
        struct pollfd p[2];
        int n = 0;

        for (int i = 0; i < 2; i++)
                if (ch->fd[i] >= 0)
                        p[n++] = (struct pollfd) { .fd = ch->fd[i], .events = POLLIN };
        if (n == 0)
                return false;
        if (poll(p, n, ms) <= 0)
                return true;
        for (int k = 0; k < n; k++) {
                if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
                        continue;
                int i = p[k].fd == ch->fd[0] ? 0 : 1;
                ssize_t r = read(ch->fd[i], ch->buf[i] + ch->len[i], OUTPUT_MAX - ch->len[i]);
                if (r > 0) {
                        ch->len[i] += (size_t) r;
                } else if (r == 0 || errno != EINTR) {
                        close(ch->fd[i]);
                        ch->fd[i] = -1;
                }
        }
        return true;
}

/* Waits until stream (0 stdout, 1 stderr) holds needle after offset *from;
 * moves *from past it.  Fails the test after HARNESS_WAIT_MS. */
static void child_wait(struct child *ch, int stream, const char *needle, size_t *from) {
        int64_t deadline = mono_ms() + HARNESS_WAIT_MS;
        const char *hit;

        while (!(hit = strstr(ch->buf[stream] + *from, needle))) {
                if (mono_ms() > deadline || !child_pump(ch, 100)) {
                        if ((hit = strstr(ch->buf[stream] + *from, needle)))
                                break;
                        fail_msg("arbiterctl never printed \"%s\"; stdout:\n%s\nstderr:\n%s", needle, ch->buf[0],
                                 ch->buf[1]);
                }
        }
        *from = (size_t) (hit - ch->buf[stream]) + strlen(needle);
}

/* Sends sig (0: none), reads to EOF and reaps; fills r. */
static void child_finish(struct child *ch, int sig, struct run *r) {
        int64_t deadline = mono_ms() + HARNESS_WAIT_MS;
        int st;

        if (sig)
                kill(ch->pid, sig);
        while (child_pump(ch, 100))
                if (mono_ms() > deadline) {
                        kill(ch->pid, SIGKILL);
                        waitpid(ch->pid, NULL, 0);
                        fail_msg("arbiterctl did not finish; stdout:\n%s\nstderr:\n%s", ch->buf[0], ch->buf[1]);
                }
        assert_int_equal(waitpid(ch->pid, &st, 0), ch->pid);
        r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        r->out = ch->buf[0];
        r->err = ch->buf[1];
        r->json = json_loads(r->out, JSON_DECODE_ANY, NULL);
}

static void run_done(struct run *r) {
        free(r->out);
        free(r->err);
        json_decref(r->json);
        memset(r, 0, sizeof *r);
}

/* arbiterctl --url <the daemon> [--token token] args..., in env extra. */
static void ctl_env(struct run *r, const char *const *env, const char *token, const char *const *args) {
        const char *argv[MAX_ARGS + 1];
        struct child ch;
        int n = 0;

        argv[n++] = "--url";
        argv[n++] = daemon_.url;
        if (token) {
                argv[n++] = "--token";
                argv[n++] = token;
        }
        for (const char *const *a = args; *a; a++) {
                assert_true(n < MAX_ARGS);
                argv[n++] = *a;
        }
        argv[n] = NULL;
        child_start(&ch, env, argv);
        child_finish(&ch, 0, r);
}

#define ARGS(...) ((const char *const[]) { __VA_ARGS__, NULL })
#define CTL(r, token, ...) ctl_env((r), NULL, (token), ARGS(__VA_ARGS__))

/* Runs and checks the exit status; prints what it said when it is wrong. */
static void expect(struct run *r, int status) {
        if (r->status != status)
                fail_msg("expected exit status %d, got %d\nstdout:\n%s\nstderr:\n%s", status, r->status, r->out,
                         r->err);
}

#define EXPECT(status, token, ...)                      \
        do {                                            \
                struct run r_;                          \
                CTL(&r_, (token), __VA_ARGS__);         \
                expect(&r_, (status));                  \
                run_done(&r_);                          \
        } while (0)

/* Runs with --json, expects status 0, returns the JSON (a new reference). */
static json_t *ctl_json(const char *token, const char *const *args) {
        const char *argv[MAX_ARGS + 1] = { "--json" };
        struct run r;
        int n = 1;

        for (const char *const *a = args; *a; a++)
                argv[n++] = *a;
        argv[n] = NULL;
        ctl_env(&r, NULL, token, argv);
        expect(&r, OK);
        if (!r.json)
                fail_msg("--json printed no JSON: %s", r.out);
        json_t *j = json_incref(r.json);
        run_done(&r);
        return j;
}

#define JSON(token, ...) ctl_json((token), ARGS(__VA_ARGS__))

static json_int_t jint(const json_t *o, const char *key) {
        return json_integer_value(json_object_get(o, key));
}

static const char *jstr(const json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "";
}

static const char *num(json_int_t v) {
        static char buf[16][24];
        static unsigned n;
        char *b = buf[n++ % 16];
        snprintf(b, sizeof buf[0], "%lld", (long long) v);
        return b;
}

/* The line of out that contains needle (a copy in buf). */
static const char *line_with(const char *out, const char *needle, char *buf, size_t size) {
        const char *hit = strstr(out, needle), *start, *end;

        if (!hit)
                fail_msg("no line with \"%s\" in:\n%s", needle, out);
        for (start = hit; start > out && start[-1] != '\n'; start--)
                ;
        end = strchr(hit, '\n');
        snprintf(buf, size, "%.*s", (int) (end ? end - start : (long) strlen(start)), start);
        return buf;
}

/* An aligned table: a header line whose first words are header_words
 * (blank-separated; the columns between them are padded), and a row
 * holding row_needle whose cells stand under the header's columns (no
 * cell text in a gap of the header), with no blanks at its end. */
static void assert_table(const char *out, const char *header_words, const char *row_needle) {
        char header[4096], row[4096], words[256], first[64], *save = NULL;
        const char *at;

        snprintf(words, sizeof words, "%s", header_words);
        snprintf(first, sizeof first, "%.*s", (int) strcspn(words, " "), words);
        for (at = out; at && strncmp(at, first, strlen(first)) != 0;)
                at = (at = strchr(at, '\n')) ? at + 1 : NULL;
        if (!at)
                fail_msg("no table with the header \"%s\" in:\n%s", header_words, out);
        snprintf(header, sizeof header, "%.*s", (int) strcspn(at, "\n"), at);
        const char *p = header;
        for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
                const char *hit = strstr(p, w);
                if (!hit || (hit != header && (hit[-1] != ' ' || hit[-2] != ' ')))
                        fail_msg("the header \"%s\" lacks the column %s", header, w);
                p = hit + strlen(w);
        }
        line_with(at + strlen(header), row_needle, row, sizeof row);
        /* a header word starts two blanks after the previous one ends */
        for (size_t i = 1; header[i]; i++)
                if (header[i] != ' ' && header[i - 1] == ' ' && !(i >= 2 && header[i - 2] == ' '))
                        fail_msg("header words are not two blanks apart: \"%s\"", header);
        /* the row has a blank just before each header word (a gap) */
        for (size_t i = 2; header[i] && i < strlen(row); i++)
                if (header[i] != ' ' && header[i - 1] == ' ' && header[i - 2] == ' ' && row[i - 1] != ' ')
                        fail_msg("row \"%s\" is not aligned with header \"%s\"", row, header);
        assert_true(row[strlen(row) - 1] != ' ');
}

/* --- set-up --- */

static int setup(void **state) {
        FILE *f;

        (void) state;
        snprintf(ctl_path, sizeof ctl_path, "%s/arbiterctl", harness_env("ARBITER_TEST_BUILD"));
        daemon_start(&daemon_, NULL, NULL, true);
        admin = create_token("admin", unique_name("ctl_admin"));
        referee = create_token("referee", unique_name("ctl_referee"));
        display = create_token("display", unique_name("ctl_display"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        assert_true(asprintf(&admin_file, "%s/%s.token", harness_env("ARBITER_TEST_TMP"), unique_name("admin")) > 0);
        f = fopen(admin_file, "w");
        assert_non_null(f);
        fprintf(f, "%s\n", admin);
        fclose(f);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        free(admin);
        free(referee);
        free(display);
        unlink(admin_file);
        free(admin_file);
        return st == 0 ? 0 : -1;
}

/* A new player's id. */
static json_int_t new_player(const char *name) {
        json_t *p = JSON(admin, "players", "add", name);
        json_int_t id = jint(p, "id");
        json_decref(p);
        assert_true(id > 0);
        return id;
}

/* --- help, usage, completion --- */

/* The words `arbiterctl __complete WORDS... ""` offers, one a line. */
static char *complete(const char *const *words) {
        struct run r;
        const char *argv[MAX_ARGS + 1] = { "__complete" };
        int n = 1;

        for (const char *const *w = words; *w; w++)
                argv[n++] = *w;
        argv[n++] = "";
        argv[n] = NULL;
        struct child ch;
        child_start(&ch, NULL, argv);
        child_finish(&ch, 0, &r);
        expect(&r, OK);
        char *out = strdup(r.out);
        run_done(&r);
        return out;
}

static char *read_file(const char *path) {
        FILE *f = fopen(path, "r");
        char *text = NULL;
        size_t len = 0;

        assert_non_null(f);
        FILE *m = open_memstream(&text, &len);
        int ch;
        while ((ch = fgetc(f)) != EOF)
                fputc(ch, m);
        fclose(m);
        fclose(f);
        return text;
}

/* The man page's text without font escapes and with plain hyphens. */
static char *man_text(void) {
        char path[512];
        snprintf(path, sizeof path, "%s/docs/man/arbiterctl.1", harness_env("ARBITER_TEST_ROOT"));
        char *t = read_file(path), *w = t;
        for (const char *p = t; *p;) {
                if (p[0] == '\\' && p[1] == 'f' && p[2]) {
                        p += 3;
                } else if (p[0] == '\\' && p[1] == '-') {
                        *w++ = '-';
                        p += 2;
                } else {
                        *w++ = *p++;
                }
        }
        *w = '\0';
        return t;
}

static void every_verb_has_help_and_a_man_page_entry(void **state) {
        char *nouns = complete(ARGS(NULL)), *man = man_text(), *save = NULL;
        struct run r;
        int n_verbs = 0;

        (void) state;
        CTL(&r, NULL, "--help");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "Usage: arbiterctl"));
        assert_non_null(strstr(r.out, "6 connection"));
        run_done(&r);
        assert_non_null(strstr(man, ".SH EXIT STATUS"));
        for (char *noun = strtok_r(nouns, "\n", &save); noun; noun = strtok_r(NULL, "\n", &save)) {
                char usage[256], *verbs, *vsave = NULL;
                if (strcmp(noun, "help") == 0)
                        continue;
                /* the noun's help lists its verbs */
                CTL(&r, NULL, noun, "--help");
                expect(&r, OK);
                run_done(&r);
                verbs = complete(ARGS(noun));
                if (!*verbs) {
                        /* a verb-less noun: watch, verify */
                        CTL(&r, NULL, noun, "--help");
                        expect(&r, OK);
                        snprintf(usage, sizeof usage, "Usage: arbiterctl %s ", noun);
                        assert_non_null(strstr(r.out, usage));
                        run_done(&r);
                        snprintf(usage, sizeof usage, "\n.B %s ", noun);
                        if (!strstr(man, usage))
                                fail_msg("docs/man/arbiterctl.1 has no entry \".B %s\"", noun);
                        n_verbs++;
                }
                for (char *verb = strtok_r(verbs, "\n", &vsave); verb; verb = strtok_r(NULL, "\n", &vsave)) {
                        CTL(&r, NULL, noun, verb, "--help");
                        expect(&r, OK);
                        snprintf(usage, sizeof usage, "Usage: arbiterctl %s %s", noun, verb);
                        if (!strstr(r.out, usage))
                                fail_msg("%s %s --help does not start with its usage:\n%s", noun, verb, r.out);
                        assert_non_null(strstr(r.out, "Route: "));
                        run_done(&r);
                        /* "-h" is the same, and "help NOUN VERB" too */
                        CTL(&r, NULL, noun, verb, "-h");
                        expect(&r, OK);
                        assert_non_null(strstr(r.out, usage));
                        run_done(&r);
                        CTL(&r, NULL, "help", noun, verb);
                        expect(&r, OK);
                        assert_non_null(strstr(r.out, usage));
                        run_done(&r);
                        /* the man page has it (matches start|pause|... counts for each) */
                        char a[160], b[160];
                        snprintf(a, sizeof a, ".B %s %s", noun, verb);
                        snprintf(b, sizeof b, "|%s", verb);
                        bool found = false;
                        for (const char *p = man; (p = strstr(p, a)); p++)
                                if (p[strlen(a)] == ' ' || p[strlen(a)] == '\n' || p[strlen(a)] == '|')
                                        found = true;
                        snprintf(a, sizeof a, ".B %s ", noun);
                        for (const char *p = man; !found && (p = strstr(p, a)); p++) {
                                const char *eol = strchr(p, '\n');
                                const char *hit = strstr(p, b);
                                if (hit && eol && hit < eol)
                                        found = true;
                        }
                        if (!found)
                                fail_msg("docs/man/arbiterctl.1 has no entry for \"%s %s\"", noun, verb);
                        n_verbs++;
                }
                free(verbs);
        }
        assert_true(n_verbs > 50);
        free(nouns);
        free(man);

        /* the version */
        CTL(&r, NULL, "--version");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "arbiterctl "));
        run_done(&r);
}

static void usage_errors_exit_2_before_any_request(void **state) {
        struct run r;

        (void) state;
        CTL(&r, NULL, NULL);            /* no noun */
        expect(&r, USAGE);
        assert_non_null(strstr(r.err, "which noun?"));
        run_done(&r);
        CTL(&r, NULL, "playerz", "list");
        expect(&r, USAGE);
        assert_non_null(strstr(r.err, "no noun \"playerz\""));
        run_done(&r);
        CTL(&r, NULL, "players", "lisst");
        expect(&r, USAGE);
        assert_non_null(strstr(r.err, "its verbs: list, show"));
        run_done(&r);
        CTL(&r, NULL, "players");
        expect(&r, USAGE);
        run_done(&r);
        CTL(&r, NULL, "players", "list", "--bogus");
        expect(&r, USAGE);
        assert_non_null(strstr(r.err, "--bogus"));
        run_done(&r);
        EXPECT(USAGE, NULL, "players", "show");                         /* missing argument */
        EXPECT(USAGE, NULL, "players", "show", "1", "2");               /* too many */
        CTL(&r, NULL, "players", "show", "abc");
        expect(&r, USAGE);
        assert_non_null(strstr(r.err, "\"abc\" is not a whole number"));
        run_done(&r);
        EXPECT(USAGE, NULL, "players", "show", "0");
        EXPECT(USAGE, NULL, "players", "list", "--limit");             /* no value */
        EXPECT(USAGE, NULL, "players", "list", "--limit", "0");
        EXPECT(USAGE, NULL, "players", "list", "--after", "3");         /* without --limit */
        EXPECT(USAGE, NULL, "players", "add", "X", "--data", "{nope");
        EXPECT(USAGE, NULL, "players", "add", "X", "--data", "[1]");
        EXPECT(USAGE, NULL, "players", "add", "X", "--data", "@/nonexistent/file");
        EXPECT(USAGE, NULL, "players", "update", "1");                  /* nothing to change */
        EXPECT(USAGE, NULL, "players", "update", "1", "--active", "maybe");
        EXPECT(USAGE, admin, "--token-file", admin_file, "players", "list");   /* both */
        EXPECT(USAGE, NULL, "--token-file", "/nonexistent/token", "players", "list");
        EXPECT(USAGE, NULL, "--timeout", "0", "players", "list");
        EXPECT(USAGE, NULL, "registrations", "list");                   /* which tournament? */
        EXPECT(USAGE, NULL, "registrations", "list", "-t", "x");
        EXPECT(USAGE, NULL, "results", "enter", "-t", "1", "1", "7");   /* not PLAYER=RANK */
        EXPECT(USAGE, NULL, "results", "enter", "-t", "1", "1");        /* no results */
        EXPECT(USAGE, NULL, "corrections", "add", "-t", "1", "1", "1=1"); /* no reason */
        EXPECT(USAGE, NULL, "stages", "add", "-t", "1", "swiss", "--rounds", "-1");
        EXPECT(USAGE, NULL, "stages", "add", "-t", "1", "swiss", "--confirm", "later");
        EXPECT(USAGE, NULL, "tables", "add", "t");                      /* no seats */
        EXPECT(USAGE, NULL, "tables", "add", "t", "--seats", "2", "--pad", "3=0000000000000001");
        EXPECT(USAGE, NULL, "matches", "input", "1", "call", "seat");   /* not FIELD=VALUE */
        EXPECT(USAGE, NULL, "matches", "list", "--stage", "1");         /* without -t */
        EXPECT(USAGE, NULL, "matches", "view", "1", "--seat", "1", "--referee");
        EXPECT(USAGE, NULL, "watch", "--tournament", "1", "--match", "1");
        EXPECT(USAGE, NULL, "watch", "--seat", "1");
        /* a bad --url, from the option or the environment */
        const char *argv[] = { "--url", "ftp://example.org", "players", "list", NULL };
        struct child ch;
        child_start(&ch, NULL, argv);
        child_finish(&ch, 0, &r);
        expect(&r, USAGE);
        run_done(&r);
        ctl_env(&r, ARGS("ARBITER_TOURNAMENT=zero"), NULL, ARGS("registrations", "list"));
        expect(&r, USAGE);
        assert_non_null(strstr(r.err, "$ARBITER_TOURNAMENT"));
        run_done(&r);
}

static void the_bash_completion_offers_nouns_verbs_options_and_choices(void **state) {
        (void) state;
        char *out = run_capture(NULL,
                                "PATH='%s':\"$PATH\" bash -c '"
                                "source \"%s/tools/arbiterctl/arbiterctl.bash\"; "
                                "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); "
                                "_arbiterctl; echo \"[${COMPREPLY[*]}]\"; }; "
                                "t arbiterctl pla; t arbiterctl players \"\"; t arbiterctl tokens create bob \"\"; "
                                "t arbiterctl tournaments state 7 r; t arbiterctl registrations check-in --tou; "
                                "t arbiterctl --json stages add -t 1 pod; t arbiterctl --token-file \"%s/docs/man/arbiterctl.\"; "
                                "t arbiterctl leaderboards show x --system \"\"; "
                                "t arbiterctl pads trust 0000000000001000 \"%s/docs/man/arbiterctl.\"'",
                                harness_env("ARBITER_TEST_BUILD"), harness_env("ARBITER_TEST_ROOT"),
                                harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_ROOT"));
        assert_non_null(strstr(out, "[players]\n"));
        assert_non_null(strstr(out, "[list show add update retire ratings]\n"));
        assert_non_null(strstr(out, "[admin referee display]\n"));
        assert_non_null(strstr(out, "[registration running]\n"));
        assert_non_null(strstr(out, "[--tournament]\n"));
        assert_non_null(strstr(out, "[pod_swiss]\n"));
        assert_non_null(strstr(out, "/docs/man/arbiterctl.1]\n"));
        assert_non_null(strstr(out, "[openskill glicko2]\n"));
        /* pads trust PAD PORT: a port is a file name (a device) */
        assert_non_null(strstr(strstr(out, "[openskill glicko2]\n"), "/docs/man/arbiterctl.1]\n"));
        free(out);
}

/* --- connection and auth --- */

static void connection_failures_exit_6(void **state) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof sa;
        char url[64];
        struct run r;
        struct child ch;

        (void) state;
        /* a port that is bound but not listening refuses connections */
        int closed = socket(AF_INET, SOCK_STREAM, 0);
        assert_int_equal(bind(closed, (struct sockaddr *) &sa, sizeof sa), 0);
        assert_int_equal(getsockname(closed, (struct sockaddr *) &sa, &len), 0);
        snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(sa.sin_port));
        child_start(&ch, NULL, ARGS("--url", url, "players", "list"));
        child_finish(&ch, 0, &r);
        expect(&r, CONNECTION);
        assert_non_null(strstr(r.err, "cannot reach"));
        run_done(&r);
        child_start(&ch, NULL, ARGS("--url", url, "watch"));
        child_finish(&ch, 0, &r);
        expect(&r, CONNECTION);
        run_done(&r);
        /* and from $ARBITER_URL */
        char env[96];
        snprintf(env, sizeof env, "ARBITER_URL=%s", url);
        child_start(&ch, ARGS(env), ARGS("tournaments", "list"));
        child_finish(&ch, 0, &r);
        expect(&r, CONNECTION);
        run_done(&r);
        close(closed);

        /* a server that accepts but never answers: --timeout */
        int silent = socket(AF_INET, SOCK_STREAM, 0);
        sa.sin_port = 0;
        assert_int_equal(bind(silent, (struct sockaddr *) &sa, sizeof sa), 0);
        assert_int_equal(listen(silent, 4), 0);
        len = sizeof sa;
        assert_int_equal(getsockname(silent, (struct sockaddr *) &sa, &len), 0);
        snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(sa.sin_port));
        child_start(&ch, NULL, ARGS("--url", url, "--timeout", "1", "players", "list"));
        child_finish(&ch, 0, &r);
        expect(&r, CONNECTION);
        assert_non_null(strstr(r.err, "--timeout"));
        run_done(&r);
        close(silent);

        /* a name that does not resolve */
        child_start(&ch, NULL, ARGS("--url", "http://arbiter.invalid:8080", "players", "list"));
        child_finish(&ch, 0, &r);
        expect(&r, CONNECTION);
        run_done(&r);
}

static void auth_failures_exit_5_and_the_token_never_shows(void **state) {
        struct run r;

        (void) state;
        CTL(&r, NULL, "players", "add", unique_name("nobody"));
        expect(&r, AUTH);
        assert_non_null(strstr(r.err, "401"));
        assert_non_null(strstr(r.err, "no token given"));
        run_done(&r);
        CTL(&r, "arb_thisisnotatokenthisisnotatokenthisisnotato", "players", "add", "X");
        expect(&r, AUTH);
        assert_null(strstr(r.err, "arb_thisisnot"));
        run_done(&r);
        CTL(&r, display, "players", "add", "X");                         /* too low a role */
        expect(&r, AUTH);
        assert_non_null(strstr(r.err, "403"));
        assert_null(strstr(r.err, display));
        run_done(&r);
        EXPECT(AUTH, referee, "tokens", "list");
        EXPECT(AUTH, NULL, "matches", "log", "1");

        /* the token from a file, and from the environment */
        const char *args[] = { "--url", daemon_.url, "--token-file", admin_file, "tokens", "list", NULL };
        struct child ch;
        child_start(&ch, NULL, args);
        child_finish(&ch, 0, &r);
        expect(&r, OK);
        assert_null(strstr(r.out, admin));
        assert_null(strstr(r.err, admin));
        run_done(&r);
        char env[256], env_file[600];
        snprintf(env, sizeof env, "ARBITER_TOKEN=%s", admin);
        snprintf(env_file, sizeof env_file, "ARBITER_TOKEN_FILE=%s", admin_file);
        ctl_env(&r, ARGS(env), NULL, ARGS("tokens", "list"));
        expect(&r, OK);
        run_done(&r);
        ctl_env(&r, ARGS(env_file), NULL, ARGS("--json", "tokens", "list"));
        expect(&r, OK);
        assert_true(json_is_array(json_object_get(r.json, "items")));
        run_done(&r);
}

/* --- the nouns --- */

static void players_add_list_show_update_retire(void **state) {
        const char *ext = unique_name("ext");
        char name[64];
        struct run r;

        (void) state;
        snprintf(name, sizeof name, "Zoë %s", unique_name("p"));
        CTL(&r, admin, "players", "add", name, "--club", "Northside", "--external-id", ext);
        expect(&r, OK);
        assert_non_null(strstr(r.out, "name:"));
        assert_non_null(strstr(r.out, name));
        run_done(&r);
        /* another player with that external id: a conflict */
        CTL(&r, admin, "players", "add", "Other", "--external-id", ext);
        expect(&r, CONFLICT);
        assert_non_null(strstr(r.err, "409"));
        assert_non_null(strstr(r.err, "external"));
        run_done(&r);

        /* the table: a header, and the row aligned under it (UTF-8 counted as characters) */
        CTL(&r, NULL, "players", "list");
        expect(&r, OK);
        assert_table(r.out, "ID  NAME", name);
        run_done(&r);
        json_t *list = JSON(NULL, "players", "list"), *p, *mine = NULL;
        size_t i;
        json_array_foreach(json_object_get(list, "items"), i, p) if (strcmp(jstr(p, "name"), name) == 0) mine = p;
        assert_non_null(mine);
        json_int_t id = jint(mine, "id");
        assert_string_equal(jstr(mine, "club"), "Northside");
        json_decref(list);
        /* one page */
        list = JSON(NULL, "players", "list", "--limit", "1");
        assert_int_equal(json_array_size(json_object_get(list, "items")), 1);
        json_decref(list);

        p = JSON(NULL, "players", "show", num(id));
        assert_string_equal(jstr(p, "external_id"), ext);
        json_decref(p);
        CTL(&r, NULL, "players", "show", num(id));
        expect(&r, OK);
        assert_non_null(strstr(r.out, "club:"));
        run_done(&r);
        EXPECT(NOT_FOUND, NULL, "players", "show", "999999999");

        p = JSON(admin, "players", "update", num(id), "--club", "", "--name", "Zed");
        assert_string_equal(jstr(p, "name"), "Zed");
        assert_true(json_is_null(json_object_get(p, "club")));
        json_decref(p);
        EXPECT(NOT_FOUND, admin, "players", "update", "999999999", "--name", "x");
        p = JSON(admin, "players", "retire", num(id));
        assert_true(json_is_false(json_object_get(p, "active")));
        json_decref(p);
        p = JSON(admin, "players", "update", num(id), "--active", "yes");
        assert_true(json_is_true(json_object_get(p, "active")));
        json_decref(p);
        /* --data gives the body, options go on top */
        p = JSON(admin, "players", "add", "Data", "--data", "{\"name\": \"ignored\", \"club\": \"Southside\"}");
        assert_string_equal(jstr(p, "name"), "Data");
        assert_string_equal(jstr(p, "club"), "Southside");
        json_decref(p);

        /* no ratings yet: an empty history, with its header */
        CTL(&r, NULL, "players", "ratings", num(id));
        expect(&r, OK);
        assert_non_null(strstr(r.out, "AT  GAME  SYSTEM"));
        run_done(&r);
        EXPECT(NOT_FOUND, NULL, "players", "ratings", "999999999");
        EXPECT(ERROR, NULL, "players", "ratings", num(id), "--system", "elo");   /* 400 */
}

static void tables_pads_games_and_the_server(void **state) {
        const char *name = unique_name("table");
        struct run r;

        (void) state;
        CTL(&r, admin, "tables", "add", name, "--seats", "3", "--pad", "1=00000000c7100001", "--pad",
            "2=00000000c7100002:slap", "--keypad", "00000000c7100009");
        expect(&r, OK);
        assert_table(r.out, "SEAT  PADS", "00000000c7100002 (slap)");
        run_done(&r);
        EXPECT(CONFLICT, admin, "tables", "add", name, "--seats", "2");          /* the name is taken */
        EXPECT(ERROR, admin, "tables", "add", unique_name("table"), "--seats", "1", "--pad", "1=xyz");  /* 400 */
        json_t *list = JSON(NULL, "tables", "list"), *t, *mine = NULL;
        size_t i;
        json_array_foreach(json_object_get(list, "items"), i, t) if (strcmp(jstr(t, "name"), name) == 0) mine = t;
        assert_non_null(mine);
        json_int_t id = jint(mine, "id");
        json_decref(list);
        CTL(&r, NULL, "tables", "list");
        expect(&r, OK);
        assert_table(r.out, "ID  NAME  VENUE", name);
        run_done(&r);
        CTL(&r, NULL, "tables", "list", "--venue", "main");
        expect(&r, OK);
        assert_table(r.out, "ID  NAME  VENUE", name);
        run_done(&r);
        CTL(&r, NULL, "tables", "list", "--venue", "nowhere");         /* no such venue: no tables */
        expect(&r, OK);
        assert_null(strstr(r.out, name));
        run_done(&r);

        /* the league's venues: this daemon's, and one added ahead of its daemon */
        CTL(&r, NULL, "venues", "list");
        expect(&r, OK);
        assert_table(r.out, "ID  NAME  DAEMON  TABLES  THIS", "online");
        run_done(&r);
        const char *vid = unique_name("v");
        CTL(&r, admin, "venues", "add", vid, "--name", "Annex");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "Annex"));
        run_done(&r);
        EXPECT(CONFLICT, admin, "venues", "add", vid);                           /* there already */
        EXPECT(AUTH, NULL, "venues", "add", unique_name("v"));
        CTL(&r, admin, "tables", "add", unique_name("table"), "--seats", "2", "--venue", vid);
        expect(&r, OK);
        assert_non_null(strstr(r.out, vid));
        run_done(&r);
        EXPECT(ERROR, admin, "tables", "add", unique_name("table"), "--seats", "2", "--venue", "no-such-venue");
        CTL(&r, NULL, "tables", "show", num(id));
        expect(&r, OK);
        assert_non_null(strstr(r.out, "00000000c7100009 (keypad)"));
        run_done(&r);
        EXPECT(NOT_FOUND, NULL, "tables", "show", "999999999");

        /* no pads on this daemon: the header alone */
        CTL(&r, NULL, "pads", "list");
        expect(&r, OK);
        assert_string_equal(r.out, "ID  KIND  BUTTONS  CONNECTED  PORT  ADDRESS  SYNCED  PRESSES  LAST_SEEN_AGO_MS  "
                                   "CONFLICT\n");
        run_done(&r);
        t = JSON(NULL, "pads", "list");
        assert_int_equal(json_array_size(json_object_get(t, "items")), 0);
        json_decref(t);
        EXPECT(NOT_FOUND, NULL, "pads", "show", "00000000c7100001");
        EXPECT(NOT_FOUND, referee, "pads", "identify", "00000000c7100001");
        EXPECT(AUTH, NULL, "pads", "identify", "00000000c7100001");
        EXPECT(NOT_FOUND, referee, "pads", "trust", "00000000c7100001", "/dev/ttyUSB0");
        EXPECT(AUTH, NULL, "pads", "trust", "00000000c7100001", "/dev/ttyUSB0");

        CTL(&r, NULL, "games", "list");
        expect(&r, OK);
        assert_table(r.out, "NAME  DISPLAY_NAME", "crash-pilot");
        run_done(&r);
        CTL(&r, NULL, "games", "show", "crash-pilot");
        expect(&r, OK);
        assert_table(r.out, "INPUT  FROM", "void_call");
        run_done(&r);
        EXPECT(NOT_FOUND, NULL, "games", "show", "no-such-game");

        t = JSON(NULL, "server", "health");
        assert_string_equal(jstr(json_object_get(t, "database"), "state"), "ready");
        json_decref(t);
        CTL(&r, NULL, "server", "status");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "database.state:"));
        run_done(&r);
        CTL(&r, NULL, "server", "routes");
        expect(&r, OK);
        assert_table(r.out, "METHOD  PATH", "/v1/tournaments/{id}/rounds");
        run_done(&r);
}

static void tokens_create_list_show_revoke(void **state) {
        const char *name = unique_name("ctl_made");
        struct run r;

        (void) state;
        json_t *t = JSON(admin, "tokens", "create", name, "referee");
        const char *secret = jstr(t, "token");
        json_int_t id = jint(t, "id");
        assert_true(strncmp(secret, "arb_", 4) == 0);
        /* the new token works, with its role: past auth to a 404, not an admin */
        EXPECT(NOT_FOUND, secret, "matches", "log", "999999999");
        EXPECT(AUTH, secret, "tokens", "list");
        json_decref(t);
        CTL(&r, admin, "tokens", "create", unique_name("ctl_made"), "display");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "token:"));
        assert_non_null(strstr(r.out, "shown only this once"));
        run_done(&r);
        EXPECT(ERROR, admin, "tokens", "create", unique_name("x"), "emperor");    /* 400 */
        EXPECT(CONFLICT, admin, "tokens", "create", name, "display");            /* a live token has the name */

        CTL(&r, admin, "tokens", "list");
        expect(&r, OK);
        assert_table(r.out, "ID  NAME", name);
        assert_null(strstr(r.out, "arb_"));                                  /* never a secret */
        run_done(&r);
        t = JSON(admin, "tokens", "show", num(id));
        assert_string_equal(jstr(t, "role"), "referee");
        json_decref(t);
        CTL(&r, admin, "tokens", "revoke", num(id));
        expect(&r, OK);
        assert_non_null(strstr(r.out, "revoked"));
        run_done(&r);
        EXPECT(NOT_FOUND, admin, "tokens", "revoke", num(id));               /* not live any more */
        EXPECT(NOT_FOUND, admin, "tokens", "show", "999999999");
}

/* A referee plays match id with seat 1 calling right until it is over. */
static const char *play_to_the_end(json_int_t id) {
        static char state[32];

        for (int calls = 0;; calls++) {
                json_t *m = JSON(NULL, "matches", "show", num(id));
                snprintf(state, sizeof state, "%s", jstr(m, "state"));
                if (strcmp(state, "running") != 0) {
                        json_decref(m);
                        return state;
                }
                if (calls > MAX_CALLS)
                        fail_msg("match %lld did not finish", (long long) id);
                json_t *view = json_object_get(m, "view");
                if (!json_is_object(json_object_get(view, "window"))) {
                        /* the next card is up at once (pause_ms 0); a
                         * moment without a window is the reveal itself */
                        json_decref(m);
                        continue;
                }
                char call[32];
                snprintf(call, sizeof call, "call=%d", cp_pick_call(view, false));
                json_decref(m);
                struct run r;
                CTL(&r, referee, "matches", "input", num(id), "call", "--seat", "1", call);
                /* a window that closed meanwhile refuses the call: try again */
                if (r.status != CONFLICT)
                        expect(&r, OK);
                run_done(&r);
        }
}

static void a_runtime_match_from_start_to_confirmation(void **state) {
        struct run r;

        (void) state;
        json_t *m = JSON(referee, "matches", "create", "crash-pilot", "Ana", "Ben", "--config",
                         "{\"reveal\": {\"pause_ms\": 0}}", "--confirm", "referee");
        json_int_t id = jint(m, "id");
        assert_string_equal(jstr(m, "state"), "ready");
        json_decref(m);
        CTL(&r, NULL, "matches", "show", num(id));
        expect(&r, OK);
        assert_table(r.out, "SEAT  NAME", "Ben");
        run_done(&r);
        m = JSON(NULL, "matches", "view", num(id));
        assert_string_equal(jstr(m, "game"), "crash-pilot");
        json_decref(m);

        CTL(&r, referee, "matches", "start", num(id));
        expect(&r, OK);
        assert_non_null(strstr(r.out, ": running"));
        run_done(&r);
        EXPECT(CONFLICT, referee, "matches", "start", num(id));                  /* started already */
        EXPECT(AUTH, display, "matches", "start", num(id));
        EXPECT(NOT_FOUND, referee, "matches", "start", "999999999");
        CTL(&r, referee, "matches", "pause", num(id));
        expect(&r, OK);
        assert_non_null(strstr(r.out, ": paused"));
        run_done(&r);
        EXPECT(CONFLICT, referee, "matches", "pause", num(id));
        CTL(&r, referee, "matches", "resume", num(id));
        expect(&r, OK);
        assert_non_null(strstr(r.out, ": running"));
        run_done(&r);

        /* the views a referee and a seat see */
        m = JSON(referee, "matches", "view", num(id), "--referee");
        assert_string_equal(jstr(json_object_get(m, "view"), "audience"), "referee");
        json_decref(m);
        m = JSON(referee, "matches", "view", num(id), "--seat", "2");
        assert_string_equal(jstr(m, "audience"), "seat");
        json_decref(m);
        /* a seat token opens its own seat only */
        m = JSON(referee, "matches", "seat-token", num(id), "1");
        char *seat_token = strdup(jstr(m, "token"));
        json_decref(m);
        EXPECT(OK, seat_token, "matches", "view", num(id), "--seat", "1");
        EXPECT(AUTH, seat_token, "matches", "view", num(id), "--seat", "2");
        free(seat_token);
        CTL(&r, referee, "matches", "seat-token", num(id), "2");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "events_url:"));
        run_done(&r);

        /* preview, then the input; a wrong kind, a missing seat */
        m = JSON(NULL, "matches", "show", num(id));
        char call[32];
        snprintf(call, sizeof call, "call=%d", cp_pick_call(json_object_get(m, "view"), false));
        json_decref(m);
        CTL(&r, referee, "matches", "preview", num(id), "call", "--seat", "1", call);
        expect(&r, OK);
        assert_non_null(strstr(r.out, "preview (nothing stored)"));
        run_done(&r);
        CTL(&r, referee, "matches", "input", num(id), "call", "--seat", "1", call, "--reason", "by hand");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "Seat 1 calls"));
        run_done(&r);
        EXPECT(ERROR, referee, "matches", "input", num(id), "no_such_input");  /* 400 */
        EXPECT(NOT_FOUND, referee, "matches", "input", num(id), "call", "--seat", "3", "call=1");  /* 2 seats */
        CTL(&r, referee, "matches", "log", num(id));
        expect(&r, OK);
        assert_table(r.out, "SEQ  TIME_US", "by hand");
        run_done(&r);
        m = JSON(referee, "matches", "log", num(id));
        json_int_t last = jint(json_array_get(json_object_get(m, "items"), json_array_size(json_object_get(m, "items")) - 1), "seq");
        json_decref(m);
        /* undo the call, then play the match out */
        CTL(&r, referee, "matches", "void", num(id), num(last), "--reason", "test");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "voided"));
        run_done(&r);
        EXPECT(CONFLICT, referee, "matches", "void", num(id), num(last));       /* voided already */

        assert_string_equal(play_to_the_end(id), "provisional");
        CTL(&r, NULL, "matches", "show", num(id));
        expect(&r, OK);
        assert_non_null(strstr(r.out, "provisional result (to confirm):"));
        run_done(&r);
        CTL(&r, referee, "matches", "confirm", num(id));
        expect(&r, OK);
        assert_non_null(strstr(r.out, "state finished"));
        run_done(&r);
        EXPECT(CONFLICT, referee, "matches", "input", num(id), "call", "--seat", "1", "call=1");

        m = JSON(NULL, "matches", "list", "--state", "finished");
        bool seen = false;
        size_t i;
        json_t *it;
        json_array_foreach(json_object_get(m, "items"), i, it) seen = seen || jint(it, "id") == id;
        assert_true(seen);
        json_decref(m);
        CTL(&r, NULL, "matches", "list");
        expect(&r, OK);
        assert_table(r.out, "ID  GAME", "Ana, Ben");
        run_done(&r);

        /* abort one that has not finished */
        m = JSON(referee, "matches", "create", "crash-pilot", "Cy", "Di");
        id = jint(m, "id");
        json_decref(m);
        CTL(&r, referee, "matches", "abort", num(id));
        expect(&r, OK);
        assert_non_null(strstr(r.out, ": aborted"));
        run_done(&r);
        EXPECT(CONFLICT, referee, "matches", "abort", num(id));
        EXPECT(ERROR, referee, "matches", "create", "crash-pilot", "Solo");     /* 400: too few seats */
}

/* The stage matches of the tournament's round (a new reference). */
static json_t *round_matches(json_int_t t, json_int_t round) {
        json_t *l = JSON(NULL, "matches", "list", "-t", num(t), "--round", num(round));
        json_t *items = json_incref(json_object_get(l, "items"));
        json_decref(l);
        return items;
}

static json_int_t participant(const json_t *m, size_t i) {
        return jint(json_array_get(json_object_get(m, "participants"), i), "player");
}

static const char *name_of(const json_t *m, size_t i) {
        return jstr(json_array_get(json_object_get(m, "participants"), i), "name");
}

static void a_club_night_through_arbiterctl_with_watch_following_it(void **state) {
        json_int_t p[5];
        char t_env[64];
        struct run r;
        struct child watch;
        size_t seen = 0;

        (void) state;
        for (int i = 0; i < 5; i++)
                p[i] = new_player(unique_name("night"));
        json_t *tab = JSON(admin, "tables", "add", unique_name("night_table"), "--seats", "4");
        json_int_t table = jint(tab, "id");
        json_decref(tab);

        json_t *t = JSON(admin, "tournaments", "create", unique_name("Friday night"), "--game", "crash-pilot",
                         "--non-competitive", "--seed", "2026", "--tables", num(table), "--match-config", "{\"reveal\": {\"pause_ms\": 0}}");
        json_int_t tid = jint(t, "id");
        assert_string_equal(jstr(t, "state"), "draft");
        json_decref(t);
        EXPECT(USAGE, admin, "tournaments", "create", "No game");
        EXPECT(ERROR, admin, "tournaments", "create", "Bad", "--game", "no-such-game");   /* 400 */
        snprintf(t_env, sizeof t_env, "ARBITER_TOURNAMENT=%lld", (long long) tid);

        /* the organiser watches the tournament from here on */
        child_start(&watch, NULL, ARGS("--url", daemon_.url, "watch", "--tournament", num(tid)));
        size_t err_seen = 0;
        child_wait(&watch, 1, "watching", &err_seen);

        CTL(&r, admin, "stages", "add", "-t", num(tid), "swiss", "--rounds", "2");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "format:"));
        run_done(&r);
        EXPECT(ERROR, admin, "stages", "add", "-t", num(tid), "no_such_format");         /* 400 */
        EXPECT(NOT_FOUND, admin, "stages", "add", "-t", "999999999", "swiss");
        ctl_env(&r, ARGS(t_env), NULL, ARGS("stages", "list"));
        expect(&r, OK);
        assert_table(r.out, "STAGE  FORMAT", "swiss");
        run_done(&r);

        EXPECT(OK, admin, "tournaments", "state", num(tid), "registration");
        CTL(&r, admin, "registrations", "add", "-t", num(tid), num(p[0]), num(p[1]), num(p[2]), num(p[3]));
        expect(&r, OK);
        assert_table(r.out, "PLAYER  NAME", "active");
        run_done(&r);
        child_wait(&watch, 0, "registration_changed", &seen);
        EXPECT(CONFLICT, admin, "registrations", "add", "-t", num(tid), num(p[0]));     /* registered already */
        EXPECT(ERROR, admin, "registrations", "add", "-t", num(tid), "999999999");      /* 400: no such player */
        EXPECT(OK, admin, "tournaments", "state", num(tid), "check_in");
        /* the tournament from the environment */
        char admin_env[256];
        snprintf(admin_env, sizeof admin_env, "ARBITER_TOKEN=%s", admin);
        ctl_env(&r, ARGS(t_env, admin_env), NULL, ARGS("registrations", "check-in", num(p[0]), num(p[1]), num(p[2]), num(p[3])));
        expect(&r, OK);
        run_done(&r);
        EXPECT(NOT_FOUND, admin, "registrations", "check-in", "-t", num(tid), num(p[4]));  /* not registered */
        CTL(&r, admin, "tournaments", "state", num(tid), "draft");
        expect(&r, CONFLICT);
        assert_non_null(strstr(r.err, "409"));
        run_done(&r);
        EXPECT(ERROR, admin, "tournaments", "state", num(tid), "sideways");                 /* 400 */
        t = JSON(admin, "tournaments", "state", num(tid), "running");
        assert_string_equal(jstr(t, "state"), "running");
        json_decref(t);

        /* a late entry, dropped; disqualifying him then is a conflict */
        EXPECT(OK, admin, "registrations", "add", "-t", num(tid), num(p[4]));
        EXPECT(OK, admin, "registrations", "drop", "-t", num(tid), num(p[4]));
        EXPECT(CONFLICT, admin, "registrations", "disqualify", "-t", num(tid), num(p[4]));
        json_t *regs = JSON(NULL, "registrations", "list", "-t", num(tid));
        assert_int_equal(json_array_size(json_object_get(regs, "items")), 5);
        json_decref(regs);
        CTL(&r, NULL, "registrations", "list", "-t", num(tid));
        expect(&r, OK);
        assert_table(r.out, "PLAYER  NAME", "dropped");
        run_done(&r);

        /* round 1 */
        CTL(&r, admin, "rounds", "next", "-t", num(tid));
        expect(&r, OK);
        assert_non_null(strstr(r.out, "stage 1, round 1: 2 matches"));
        assert_table(r.out, "MATCH  TABLE_NO", "  2  ");
        run_done(&r);
        child_wait(&watch, 0, "round_started", &seen);
        CTL(&r, admin, "rounds", "next", "-t", num(tid));
        expect(&r, CONFLICT);
        assert_non_null(strstr(r.err, "(matches: "));
        run_done(&r);
        json_t *ms = round_matches(tid, 1);
        assert_int_equal(json_array_size(ms), 2);
        json_t *m1 = json_array_get(ms, 0), *m2 = json_array_get(ms, 1);
        CTL(&r, NULL, "matches", "list", "-t", num(tid));
        expect(&r, OK);
        assert_table(r.out, "ID  STAGE  ROUND", "pending");
        run_done(&r);
        CTL(&r, NULL, "matches", "show", "-t", num(tid), num(jint(m1, "id")));
        expect(&r, OK);
        assert_table(r.out, "SEAT  PLAYER", name_of(m1, 0));
        run_done(&r);
        EXPECT(NOT_FOUND, NULL, "matches", "show", "-t", num(tid), "999999999");
        CTL(&r, NULL, "tournaments", "queue", num(tid));
        expect(&r, OK);
        assert_table(r.out, "TABLE  MATCH", "pending");
        run_done(&r);

        /* call match 1: a runtime match at the tournament's table; abort it: pending again */
        CTL(&r, referee, "matches", "call", "-t", num(tid), num(jint(m1, "id")));
        expect(&r, OK);
        assert_non_null(strstr(r.out, "runtime match"));
        run_done(&r);
        child_wait(&watch, 0, "match_called", &seen);
        EXPECT(CONFLICT, referee, "matches", "call", "-t", num(tid), num(jint(m1, "id")));
        json_t *sm = JSON(NULL, "matches", "show", "-t", num(tid), num(jint(m1, "id")));
        json_int_t runtime = jint(sm, "match");
        assert_int_equal(jint(sm, "table"), table);
        json_decref(sm);
        EXPECT(OK, referee, "matches", "start", num(runtime));
        EXPECT(OK, referee, "matches", "abort", num(runtime));
        sm = JSON(NULL, "matches", "show", "-t", num(tid), num(jint(m1, "id")));
        assert_string_equal(jstr(sm, "state"), "pending");
        json_decref(sm);

        /* results by hand: a win, and a forfeit */
        char e1[32], e2[32];
        snprintf(e1, sizeof e1, "%lld=1", (long long) participant(m1, 0));
        snprintf(e2, sizeof e2, "%lld=2", (long long) participant(m1, 1));
        char score[40];
        snprintf(score, sizeof score, "%lld=2", (long long) participant(m1, 0));
        CTL(&r, referee, "results", "enter", "-t", num(tid), num(jint(m1, "id")), e1, e2, "--score", score);
        expect(&r, OK);
        assert_table(r.out, "PLAYER  NAME  RANK", name_of(m1, 1));
        run_done(&r);
        child_wait(&watch, 0, "result_recorded", &seen);
        CTL(&r, referee, "results", "enter", "-t", num(tid), num(jint(m1, "id")), e1, e2);
        expect(&r, CONFLICT);                                   /* it has its result: a correction */
        run_done(&r);
        snprintf(e1, sizeof e1, "%lld=1", (long long) participant(m2, 0));
        snprintf(e2, sizeof e2, "%lld=2", (long long) participant(m2, 1));
        EXPECT(ERROR, referee, "results", "enter", "-t", num(tid), num(jint(m2, "id")), e1, "999999999=2");  /* 400 */
        EXPECT(NOT_FOUND, referee, "results", "enter", "-t", num(tid), "999999999", e1, e2);
        EXPECT(AUTH, display, "results", "enter", "-t", num(tid), num(jint(m2, "id")), e1, e2);
        EXPECT(OK, referee, "results", "enter", "-t", num(tid), num(jint(m2, "id")), e1, e2, "--forfeit",
               num(participant(m2, 1)));
        CTL(&r, NULL, "results", "list", "-t", num(tid));
        expect(&r, OK);
        assert_table(r.out, "MATCH  STAGE", "(forfeit)");
        run_done(&r);
        CTL(&r, NULL, "results", "list", "-t", num(tid), "--csv");
        expect(&r, OK);
        assert_true(strncmp(r.out, "stage,round,table,match,seat,player", 35) == 0);
        run_done(&r);

        /* a correction, then the standings */
        snprintf(e1, sizeof e1, "%lld=2", (long long) participant(m1, 0));
        snprintf(e2, sizeof e2, "%lld=1", (long long) participant(m1, 1));
        CTL(&r, referee, "corrections", "add", "-t", num(tid), num(jint(m1, "id")), e1, e2, "--reason",
            "score sheet misread");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "correction "));
        run_done(&r);
        CTL(&r, NULL, "corrections", "list", "-t", num(tid));
        expect(&r, OK);
        assert_table(r.out, "ID  MATCH", "score sheet misread");
        run_done(&r);
        CTL(&r, NULL, "standings", "show", "-t", num(tid));
        expect(&r, OK);
        assert_table(r.out, "RANK  PLAYER  NAME  POINTS", "  1  ");
        assert_non_null(strstr(r.out, "BUCHHOLZ"));
        run_done(&r);
        json_t *st = JSON(NULL, "standings", "show", "-t", num(tid), "--recompute");
        assert_true(json_array_size(json_object_get(st, "rows")) >= 4);
        json_decref(st);
        CTL(&r, NULL, "standings", "show", "-t", num(tid), "--csv");
        expect(&r, OK);
        assert_true(strncmp(r.out, "rank,player,name,points", 23) == 0);
        run_done(&r);
        EXPECT(NOT_FOUND, NULL, "standings", "show", "-t", num(tid), "--stage", "9");
        EXPECT(CONFLICT, NULL, "tournaments", "bracket", num(tid));             /* swiss has no bracket */
        CTL(&r, admin, "tournaments", "recompute", num(tid));
        expect(&r, OK);
        run_done(&r);

        /* ratings followed the results */
        CTL(&r, NULL, "leaderboards", "show", "crash-pilot");
        expect(&r, OK);
        assert_table(r.out, "RANK  PLAYER  NAME", "  1  ");
        run_done(&r);
        CTL(&r, NULL, "leaderboards", "show", "crash-pilot", "--system", "glicko2", "--from", "2000-01-01");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "VOLATILITY"));
        run_done(&r);
        EXPECT(NOT_FOUND, NULL, "leaderboards", "show", "no-such-game");
        EXPECT(ERROR, NULL, "leaderboards", "show", "crash-pilot", "--from", "yesterday");  /* 400 */
        CTL(&r, NULL, "players", "ratings", num(participant(m1, 0)), "--game", "crash-pilot");
        expect(&r, OK);
        assert_table(r.out, "AT  GAME  SYSTEM", "openskill");
        run_done(&r);

        /* round 2, then the end */
        json_decref(ms);
        EXPECT(OK, admin, "rounds", "next", "-t", num(tid));
        ms = round_matches(tid, 2);
        json_t *m;
        size_t i;
        /* a match without a result has nothing to correct */
        EXPECT(CONFLICT, referee, "corrections", "add", "-t", num(tid), num(jint(json_array_get(ms, 0), "id")), e1,
               "--reason", "nothing to correct");
        json_array_foreach(ms, i, m) {
                snprintf(e1, sizeof e1, "%lld=1", (long long) participant(m, 0));
                snprintf(e2, sizeof e2, "%lld=2", (long long) participant(m, 1));
                EXPECT(OK, referee, "results", "enter", "-t", num(tid), num(jint(m, "id")), e1, e2);
        }
        json_decref(ms);
        EXPECT(CONFLICT, admin, "rounds", "next", "-t", num(tid));             /* every stage is finished */
        t = JSON(admin, "tournaments", "state", num(tid), "finished");
        assert_string_equal(jstr(t, "state"), "finished");
        json_decref(t);
        EXPECT(CONFLICT, admin, "registrations", "add", "-t", num(tid), num(p[4]));
        CTL(&r, NULL, "tournaments", "list");
        expect(&r, OK);
        assert_table(r.out, "ID  NAME", "finished");
        run_done(&r);
        CTL(&r, NULL, "tournaments", "show", num(tid));
        expect(&r, OK);
        assert_table(r.out, "STAGE  FORMAT", "finished");
        run_done(&r);
        EXPECT(NOT_FOUND, NULL, "tournaments", "show", "999999999");

        /* the watch saw it all; Ctrl-C ends it with status 0 */
        child_wait(&watch, 0, "state finished", &seen);
        child_finish(&watch, SIGINT, &r);
        expect(&r, OK);
        run_done(&r);
}

static void a_cup_shows_its_bracket(void **state) {
        json_int_t p[5];
        struct run r;

        (void) state;
        for (int i = 0; i < 5; i++)
                p[i] = new_player(unique_name("cup"));
        json_t *t = JSON(admin, "tournaments", "create", unique_name("Cup"), "--game", "crash-pilot");
        json_int_t tid = jint(t, "id");
        json_decref(t);
        EXPECT(OK, admin, "stages", "add", "-t", num(tid), "single_elimination", "--config", "{\"third_place\": true}");
        EXPECT(OK, admin, "tournaments", "state", num(tid), "registration");
        EXPECT(OK, admin, "registrations", "add", "-t", num(tid), num(p[0]), num(p[1]), num(p[2]), num(p[3]));
        /* a fifth, with a seed, disqualified before the start */
        EXPECT(OK, admin, "registrations", "add", "-t", num(tid), "--seed", "1", num(p[4]));
        CTL(&r, admin, "registrations", "disqualify", "-t", num(tid), num(p[4]));
        expect(&r, OK);
        assert_table(r.out, "PLAYER  NAME  CLUB  SEED", "disqualified");
        run_done(&r);
        EXPECT(USAGE, admin, "registrations", "add", "-t", num(tid), "--seed", "1", num(p[0]), num(p[1]));
        EXPECT(OK, admin, "tournaments", "state", num(tid), "check_in");
        EXPECT(OK, admin, "registrations", "check-in", "-t", num(tid), num(p[0]), num(p[1]), num(p[2]), num(p[3]));
        EXPECT(CONFLICT, NULL, "tournaments", "bracket", num(tid));             /* not drawn before it starts */
        EXPECT(OK, admin, "tournaments", "state", num(tid), "running");
        EXPECT(OK, admin, "rounds", "next", "-t", num(tid));
        CTL(&r, NULL, "tournaments", "bracket", num(tid));
        expect(&r, OK);
        assert_non_null(strstr(r.out, "single_elimination, size 4"));
        assert_table(r.out, "ID  PART  ROUND", "third_place");
        run_done(&r);
        t = JSON(NULL, "tournaments", "bracket", num(tid), "--stage", "1");
        assert_int_equal(jint(t, "size"), 4);
        json_decref(t);
        EXPECT(NOT_FOUND, NULL, "tournaments", "bracket", "999999999");
}

/* verify: a finished competitive tournament's draw checks out from what the
 * API publishes — the secret against its commitment, each call's seed
 * (an aborted match and its second call), each match's log replayed — and
 * a seed or a stored state hash changed behind the daemon's back does not.
 * Before the end the secret is not revealed: not verified. */
static void verify_checks_a_finished_tournament_and_catches_a_changed_log(void **state) {
        const char *dsn = harness_env("ARBITER_TEST_DSN");
        json_int_t p[2];
        struct run r;

        (void) state;
        for (int i = 0; i < 2; i++)
                p[i] = new_player(unique_name("fair"));
        json_t *tab = JSON(admin, "tables", "add", unique_name("fair_table"), "--seats", "2");
        json_int_t table = jint(tab, "id");
        json_decref(tab);
        json_t *t = JSON(admin, "tournaments", "create", unique_name("Fair night"), "--game", "crash-pilot",
                         "--tables", num(table), "--match-config", "{\"reveal\": {\"pause_ms\": 0}}");
        json_int_t tid = jint(t, "id");
        assert_true(json_is_true(json_object_get(t, "competitive")));
        json_decref(t);
        EXPECT(ERROR, admin, "tournaments", "create", unique_name("Chosen"), "--game", "crash-pilot", "--seed", "7");
        EXPECT(OK, admin, "stages", "add", "-t", num(tid), "swiss", "--config", "{\"rounds\": 1}");
        EXPECT(OK, admin, "tournaments", "state", num(tid), "registration");
        EXPECT(OK, admin, "registrations", "add", "-t", num(tid), num(p[0]), num(p[1]));
        EXPECT(OK, admin, "tournaments", "state", num(tid), "check_in");
        EXPECT(OK, admin, "registrations", "check-in", "-t", num(tid), num(p[0]), num(p[1]));
        EXPECT(OK, admin, "tournaments", "state", num(tid), "running");
        EXPECT(OK, admin, "rounds", "next", "-t", num(tid));
        json_t *ms = round_matches(tid, 1);
        json_int_t sm = jint(json_array_get(ms, 0), "id");
        json_decref(ms);

        /* called, started, aborted; called again and played to the end */
        json_t *c = JSON(referee, "matches", "call", "-t", num(tid), num(sm));
        json_int_t first = jint(c, "match");
        json_decref(c);
        EXPECT(OK, referee, "matches", "start", num(first));
        EXPECT(OK, referee, "matches", "abort", num(first));
        c = JSON(referee, "matches", "call", "-t", num(tid), num(sm));
        json_int_t second = jint(c, "match");
        json_decref(c);
        EXPECT(OK, referee, "matches", "start", num(second));
        assert_string_equal(play_to_the_end(second), "finished");

        /* not over: the secret is not revealed, nothing can be verified */
        CTL(&r, referee, "verify", num(tid));
        expect(&r, ERROR);
        assert_non_null(strstr(r.out, "not revealed yet"));
        assert_non_null(strstr(r.out, "NOT verified"));
        run_done(&r);

        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {        /* the result reaches the stage */
                json_t *s = JSON(NULL, "matches", "show", "-t", num(tid), num(sm));
                bool done = strcmp(jstr(s, "state"), "done") == 0;
                json_decref(s);
                if (done)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the played match's result never reached its stage match");
                usleep(20000);
        }
        EXPECT(CONFLICT, admin, "rounds", "next", "-t", num(tid));             /* the stage is over */
        EXPECT(OK, admin, "tournaments", "state", num(tid), "finished");

        CTL(&r, referee, "verify", num(tid));
        expect(&r, OK);
        assert_non_null(strstr(r.out, "competitive, finished; 1 secret, 2 calls"));
        assert_non_null(strstr(r.out, "commitment published"));
        assert_non_null(strstr(r.out, "stage draws"));
        assert_non_null(strstr(r.out, "no input to replay (aborted)") || strstr(r.out, "1 input replay"));
        assert_non_null(strstr(r.out, "inputs replay to state hash"));
        assert_non_null(strstr(r.out, "\nverified: "));
        assert_null(strstr(r.out, "FAIL"));
        run_done(&r);
        /* the seeds alone, as anyone: no token */
        CTL(&r, NULL, "verify", num(tid), "--seeds-only");
        expect(&r, OK);
        assert_non_null(strstr(r.out, "verified: every seed follows from the revealed secrets\n"));
        run_done(&r);
        EXPECT(AUTH, NULL, "verify", num(tid));                                 /* the logs need a referee */
        json_t *rep = JSON(referee, "verify", num(tid));
        assert_true(json_is_true(json_object_get(rep, "verified")));
        json_decref(rep);

        /* a state hash changed behind the daemon's back */
        assert_int_equal(run_cmd("psql '%s' -X -q -c \"UPDATE match_inputs SET state_hash = '0123456789abcdef' "
                                 "WHERE match_id = %lld AND seq = 2\"", dsn, (long long) second), 0);
        CTL(&r, referee, "verify", num(tid));
        expect(&r, ERROR);
        assert_non_null(strstr(r.out, "does not replay: the state hash after input 2"));
        run_done(&r);
        /* a seed that the secret does not give */
        assert_int_equal(run_cmd("psql '%s' -X -q -c 'UPDATE matches SET seed = seed # 1 WHERE id = %lld'", dsn,
                                 (long long) first), 0);
        CTL(&r, referee, "verify", num(tid), "--seeds-only");
        expect(&r, ERROR);
        assert_non_null(strstr(r.out, "but the secret gives"));
        run_done(&r);
}

/* watch: every event, resumed after the daemon restarts (a "reset" says
 * what could not be resumed); --json and --count for scripts; an unknown
 * match is 3. */
static void watch_reconnects_after_a_restart_and_stops_on_ctrl_c(void **state) {
        struct daemon_proc d;
        struct child w;
        struct run r;
        size_t out = 0, err = 0;
        char listen_env[64], url[64];

        (void) state;
        /* One daemon per database: the suite's steps aside for this one,
         * which is restarted under the watch, and comes back at the end.
         * It goes without a bus, which the suite's keeps. */
        assert_int_equal(daemon_stop(&daemon_, SIGTERM, NULL), 0);
        daemon_start(&d, ARGS("ARBITER_BUS=none"), NULL, true);
        assert_true(wait_tokens_loaded(&d, HARNESS_WAIT_MS));
        snprintf(url, sizeof url, "%s", d.url);
        snprintf(listen_env, sizeof listen_env, "ARBITER_LISTEN=127.0.0.1:%d", d.port);
        child_start(&w, NULL, ARGS("--url", url, "watch"));
        child_wait(&w, 1, "watching", &err);

        const char *argv[] = { "--url", url, "--token", admin, "tournaments", "create", unique_name("watched"), "--game",
                               "crash-pilot", NULL };
        struct child ch;
        child_start(&ch, NULL, argv);
        child_finish(&ch, 0, &r);
        expect(&r, OK);
        run_done(&r);
        child_wait(&w, 0, "tournament_changed", &out);
        child_wait(&w, 0, "state draft", &out);

        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
        child_wait(&w, 1, "connection lost", &err);
        daemon_start(&d, ARGS(listen_env, "ARBITER_BUS=none"), NULL, true);
        /* it listens where the first did, not where the harness thought */
        snprintf(d.url, sizeof d.url, "%s", url);
        assert_true(wait_tokens_loaded(&d, HARNESS_WAIT_MS));
        child_wait(&w, 1, "reconnected", &err);
        /* the id it resumes from is of the run before: the daemon says so */
        child_wait(&w, 0, "reset", &out);
        child_wait(&w, 0, "restarted", &out);
        argv[6] = unique_name("watched");
        child_start(&ch, NULL, argv);
        child_finish(&ch, 0, &r);
        expect(&r, OK);
        run_done(&r);
        child_wait(&w, 0, "tournament_changed", &out);
        child_finish(&w, SIGINT, &r);
        expect(&r, OK);
        run_done(&r);
        /* SIGTERM too */
        child_start(&w, NULL, ARGS("--url", url, "watch", "--topic", "pads"));
        err = 0;
        child_wait(&w, 1, "watching", &err);
        child_finish(&w, SIGTERM, &r);
        expect(&r, OK);
        run_done(&r);

        /* a match's stream: its events; an unknown match is 3 */
        const char *create[] = { "--url", url, "--token", referee, "--json", "matches", "create", "crash-pilot", "A", "B", NULL };
        child_start(&ch, NULL, create);
        child_finish(&ch, 0, &r);
        expect(&r, OK);
        char mid[24];
        snprintf(mid, sizeof mid, "%lld", (long long) jint(r.json, "id"));
        run_done(&r);
        child_start(&w, NULL, ARGS("--url", url, "watch", "--match", mid));
        err = out = 0;
        child_wait(&w, 1, "watching", &err);
        const char *start[] = { "--url", url, "--token", referee, "matches", "start", mid, NULL };
        child_start(&ch, NULL, start);
        child_finish(&ch, 0, &r);
        expect(&r, OK);
        run_done(&r);
        char where[32];
        snprintf(where, sizeof where, "match %s", mid);
        child_wait(&w, 0, where, &out);
        child_wait(&w, 0, "match_started", &out);
        child_finish(&w, SIGINT, &r);
        expect(&r, OK);
        run_done(&r);

        /* for a script: every kept event from the start, as JSON lines, two of them */
        child_start(&w, NULL, ARGS("--url", url, "--json", "watch", "--last-event-id", "0", "--count", "2"));
        child_finish(&w, 0, &r);
        expect(&r, OK);
        char *save = NULL;
        int lines = 0;
        for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save), lines++) {
                json_t *j = json_loads(l, 0, NULL);
                assert_non_null(j);
                assert_non_null(strchr(jstr(j, "id"), '-'));
                assert_true(*jstr(j, "event"));
                assert_true(json_is_object(json_object_get(j, "data")));
                json_decref(j);
        }
        assert_int_equal(lines, 2);
        run_done(&r);


        child_start(&w, NULL, ARGS("--url", url, "watch", "--match", "999999999"));
        child_finish(&w, 0, &r);
        expect(&r, NOT_FOUND);
        run_done(&r);
        child_start(&w, NULL, ARGS("--url", url, "watch", "--match", mid, "--referee"));
        child_finish(&w, 0, &r);
        expect(&r, AUTH);                                       /* the referee's stream needs a token */
        run_done(&r);
        child_start(&w, NULL, ARGS("--url", url, "watch", "--tournament", "999999999"));
        child_finish(&w, 0, &r);
        expect(&r, NOT_FOUND);
        run_done(&r);
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
        daemon_start(&daemon_, NULL, NULL, true);
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
}

/* A daemon with a simulated line of one pad: the pads' verbs, and watch
 * on the pads topic from the start of the run (so the pad's arrival,
 * before the watch connected, is in it). */
static void pads_on_a_simulated_line(void **state) {
        struct padsim_proc sim;
        struct daemon_proc d;
        struct child w;
        struct run r;
        size_t out = 0;
        char *link, *env_pads;

        (void) state;
        assert_true(asprintf(&link, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("ctl_tty")) > 0);
        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", link) > 0);
        padsim_start(&sim, ARGS("--pads", "1", "--link", link, "--seed", "3", "--uid-base", "4096"));
        daemon_start(&d, ARGS(env_pads, "ARBITER_BUS=none"), NULL, true);
        child_start(&w, NULL, ARGS("--url", d.url, "watch", "--topic", "pads", "--last-event-id", "0"));
        child_wait(&w, 0, "pad 0000000000001000", &out);
        child_wait(&w, 0, "pad_added", &out);
        child_finish(&w, SIGINT, &r);
        expect(&r, OK);
        run_done(&r);

        const char *list[] = { "--url", d.url, "pads", "list", NULL };
        child_start(&w, NULL, list);
        child_finish(&w, 0, &r);
        expect(&r, OK);
        assert_table(r.out, "ID  KIND  BUTTONS  CONNECTED", "0000000000001000");
        assert_table(r.out, "PORT  OPEN", link);
        run_done(&r);
        const char *show[] = { "--url", d.url, "--json", "pads", "show", "0000000000001000", NULL };
        child_start(&w, NULL, show);
        child_finish(&w, 0, &r);
        expect(&r, OK);
        assert_true(json_is_true(json_object_get(r.json, "connected")));
        run_done(&r);
        const char *identify[] = { "--url", d.url, "--token", referee, "pads", "identify", "0000000000001000", NULL };
        child_start(&w, NULL, identify);
        child_finish(&w, 0, &r);
        expect(&r, OK);
        assert_non_null(strstr(r.out, "blinking"));
        run_done(&r);
        /* one device, one pad: nothing to decide */
        const char *trust[] = { "--url", d.url, "--token", referee, "pads", "trust", "0000000000001000", link, NULL };
        child_start(&w, NULL, trust);
        child_finish(&w, 0, &r);
        expect(&r, CONFLICT);
        run_done(&r);

        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
        padsim_stop(&sim);
        free(link);
        free(env_pads);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_verb_has_help_and_a_man_page_entry),
                cmocka_unit_test(usage_errors_exit_2_before_any_request),
                cmocka_unit_test(the_bash_completion_offers_nouns_verbs_options_and_choices),
                cmocka_unit_test(connection_failures_exit_6),
                cmocka_unit_test(auth_failures_exit_5_and_the_token_never_shows),
                cmocka_unit_test(players_add_list_show_update_retire),
                cmocka_unit_test(tables_pads_games_and_the_server),
                cmocka_unit_test(tokens_create_list_show_revoke),
                cmocka_unit_test(a_runtime_match_from_start_to_confirmation),
                cmocka_unit_test(a_club_night_through_arbiterctl_with_watch_following_it),
                cmocka_unit_test(a_cup_shows_its_bracket),
                cmocka_unit_test(verify_checks_a_finished_tournament_and_catches_a_changed_log),
                cmocka_unit_test(watch_reconnects_after_a_restart_and_stops_on_ctrl_c),
                cmocka_unit_test(pads_on_a_simulated_line),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
