/* tools/arbiterctl/main.c — arbiterctl's command line: the global options
 * and their defaults, the noun and the verb, then the verb's run.
 *
 *   arbiterctl [--url URL] [--token TOKEN | --token-file FILE] [--json]
 *              [--timeout SECONDS] NOUN VERB [ARGUMENTS...]
 *
 * The address comes from --url, else $ARBITER_URL, else CTL_DEFAULT_URL;
 * the token from --token or --token-file, else $ARBITER_TOKEN, else
 * $ARBITER_TOKEN_FILE, else there is none (reads are open by default).
 * Everything about a verb is in the registry (registry.h); docs/man/
 * arbiterctl.1 is the manual; the exit statuses are in ctl.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/arbiterctl/args.h"
#include "tools/arbiterctl/complete.h"
#include "tools/arbiterctl/ctl.h"
#include "tools/arbiterctl/http.h"
#include "tools/arbiterctl/registry.h"

/* A token is "arb_" and 43 characters (docs/operations.md, "API tokens");
 * a file holding far more than that is not a token file. */
#define TOKEN_FILE_MAX 4096
/* A request may take long (a recompute, a slow database), not this long. */
#define TIMEOUT_MAX_S 3600

int ctl_fail(int status, const char *fmt, ...) {
        va_list ap;

        fputs(CTL_PROGRAM ": ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return status;
}

/* The first of the two parses' values: the verb's line wins over the words
 * before the noun. */
static const char *global(const struct args *pre, const struct args *a, const char *name) {
        const char *v = a ? args_get(a, name) : NULL;
        return v ? v : args_get(pre, name);
}

static int read_token_file(struct ctl *c, const char *path) {
        FILE *f = fopen(path, "r");
        size_t n;
        char *buf;

        if (!f)
                return ctl_fail(CTL_EXIT_USAGE, "--token-file: cannot read %s: %s", path, strerror(errno));
        buf = calloc(1, TOKEN_FILE_MAX + 1);
        if (!buf) {
                fclose(f);
                return ctl_fail(CTL_EXIT_ERROR, "out of memory");
        }
        n = fread(buf, 1, TOKEN_FILE_MAX, f);
        fclose(f);
        buf[n] = '\0';
        /* the first line, without blanks around it */
        buf[strcspn(buf, "\r\n")] = '\0';
        char *start = buf + strspn(buf, " \t");
        size_t len = strlen(start);
        while (len > 0 && (start[len - 1] == ' ' || start[len - 1] == '\t'))
                start[--len] = '\0';
        memmove(buf, start, len + 1);
        if (!*buf) {
                free(buf);
                return ctl_fail(CTL_EXIT_USAGE, "--token-file: %s holds no token", path);
        }
        c->tokfile_buf = buf;
        c->token = buf;
        return CTL_EXIT_OK;
}

/* Fills c from the global options and the environment. */
static int configure(struct ctl *c, const struct args *pre, const struct args *a) {
        const char *url = global(pre, a, "url"), *token = global(pre, a, "token"),
                   *file = global(pre, a, "token-file"), *timeout = global(pre, a, "timeout");
        size_t len;

        if (!url || !*url)
                url = getenv("ARBITER_URL");
        if (!url || !*url)
                url = CTL_DEFAULT_URL;
        if (strncmp(url, "http://", strlen("http://")) != 0 && strncmp(url, "https://", strlen("https://")) != 0)
                return ctl_fail(CTL_EXIT_USAGE, "--url: \"%s\" is not an http:// or https:// address", url);
        len = strlen(url);
        if (len >= sizeof c->url)
                return ctl_fail(CTL_EXIT_USAGE, "--url: longer than %zu bytes", sizeof c->url - 1);
        while (len > 0 && url[len - 1] == '/')
                len--;
        memcpy(c->url, url, len);
        c->url[len] = '\0';

        if (token && file)
                return ctl_fail(CTL_EXIT_USAGE, "give --token or --token-file, not both");
        if (token && !*token)
                return ctl_fail(CTL_EXIT_USAGE, "--token: empty");
        if (!token && !file) {
                token = getenv("ARBITER_TOKEN");
                if (!token || !*token) {
                        token = NULL;
                        file = getenv("ARBITER_TOKEN_FILE");
                        if (file && !*file)
                                file = NULL;
                }
        }
        if (file) {
                int st = read_token_file(c, file);
                if (st != CTL_EXIT_OK)
                        return st;
        } else {
                c->token = token;
        }

        c->json = global(pre, a, "json") != NULL;
        c->timeout_s = CTL_DEFAULT_TIMEOUT_S;
        if (timeout) {
                int64_t t;
                if (args_parse_int(timeout, "--timeout", 1, TIMEOUT_MAX_S, &t) < 0)
                        return CTL_EXIT_USAGE;
                c->timeout_s = (long) t;
        }
        return CTL_EXIT_OK;
}

static int usage_error(const char *what) {
        ctl_fail(CTL_EXIT_USAGE, "%s", what);
        fprintf(stderr, "Usage: %s [OPTIONS] NOUN VERB [ARGUMENTS...]; %s --help lists them\n", CTL_PROGRAM,
                CTL_PROGRAM);
        return CTL_EXIT_USAGE;
}

static int verb_list_error(const struct noun *n, const char *fmt, const char *word) {
        char list[512] = "";

        for (const struct verb *v = n->verbs; v->name; v++)
                if (*v->name)
                        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "", v->name);
        fputs(CTL_PROGRAM ": ", stderr);
        fprintf(stderr, fmt, n->name, word);
        fprintf(stderr, " (its verbs: %s; %s %s --help)\n", list, CTL_PROGRAM, n->name);
        return CTL_EXIT_USAGE;
}

/* arbiterctl help [NOUN [VERB]] */
static int help(int argc, char **argv) {
        const struct noun *n;
        const struct verb *v;

        if (argc < 1) {
                registry_help_main(stdout);
                return CTL_EXIT_OK;
        }
        n = registry_noun(argv[0]);
        if (!n)
                return usage_error("help: no such noun");
        v = argc >= 2 ? registry_verb(n, argv[1]) : registry_bare_verb(n);
        if (argc >= 2 && !v)
                return verb_list_error(n, "%s: no verb \"%s\"", argv[1]);
        if (v)
                registry_help_verb(stdout, n, v);
        else
                registry_help_noun(stdout, n);
        return CTL_EXIT_OK;
}

static int check_counts(const struct noun *n, const struct verb *v, const struct args *a) {
        const char *problem = NULL;

        if (a->n_pos < v->min_args)
                problem = "missing arguments";
        else if (v->max_args >= 0 && a->n_pos > v->max_args)
                problem = "too many arguments";
        if (!problem)
                return CTL_EXIT_OK;
        ctl_fail(CTL_EXIT_USAGE, "%s %s: %s", n->name, *v->name ? v->name : "", problem);
        fprintf(stderr, "Usage: %s %s%s%s %s (--help for more)\n", CTL_PROGRAM, n->name, *v->name ? " " : "",
                v->name, v->synopsis);
        return CTL_EXIT_USAGE;
}

static int run(int argc, char **argv, struct ctl *c) {
        struct args pre = { 0 }, a = { 0 };
        const struct noun *n;
        const struct verb *v;
        int used, more, st;

        if (args_parse(NULL, argc, argv, &pre, &used) < 0)
                return CTL_EXIT_USAGE;
        if (args_flag(&pre, "version")) {
                printf("%s %s\n", CTL_PROGRAM, ARBITER_VERSION);
                return CTL_EXIT_OK;
        }
        if (used >= argc) {
                if (pre.help) {
                        registry_help_main(stdout);
                        return CTL_EXIT_OK;
                }
                return usage_error("which noun?");
        }
        if (strcmp(argv[used], COMPLETE_COMMAND) == 0)
                return complete_run(argc - used - 1, argv + used + 1);
        if (strcmp(argv[used], "help") == 0)
                return help(argc - used - 1, argv + used + 1);
        n = registry_noun(argv[used]);
        if (!n) {
                char what[160];
                snprintf(what, sizeof what, "no noun \"%.100s\"", argv[used]);
                return usage_error(what);
        }
        used++;
        v = registry_bare_verb(n);
        pre.noun = n;
        if (!v) {
                /* global options may also stand between the noun and the verb */
                if (args_parse(NULL, argc - used, argv + used, &pre, &more) < 0)
                        return CTL_EXIT_USAGE;
                used += more;
                if (used >= argc) {
                        if (pre.help) {
                                registry_help_noun(stdout, n);
                                return CTL_EXIT_OK;
                        }
                        return verb_list_error(n, "%s: which verb?%s", "");
                }
                v = registry_verb(n, argv[used]);
                if (!v)
                        return verb_list_error(n, "%s: no verb \"%s\"", argv[used]);
                used++;
        }
        a.noun = n;
        a.verb = v;
        if (args_parse(v, argc - used, argv + used, &a, NULL) < 0)
                return CTL_EXIT_USAGE;
        if (a.help || pre.help) {
                registry_help_verb(stdout, n, v);
                return CTL_EXIT_OK;
        }
        st = check_counts(n, v, &a);
        if (st != CTL_EXIT_OK)
                return st;
        st = configure(c, &pre, &a);
        if (st != CTL_EXIT_OK)
                return st;
        if (http_init() < 0)
                return ctl_fail(CTL_EXIT_ERROR, "cannot initialise libcurl");
        st = v->run(c, &a);
        http_cleanup();
        return st;
}

int main(int argc, char **argv) {
        struct ctl c = { 0 };
        int st = run(argc - 1, argv + 1, &c);

        if (c.tokfile_buf) {
                memset(c.tokfile_buf, 0, strlen(c.tokfile_buf));
                free(c.tokfile_buf);
        }
        if (fflush(stdout) != 0 && st == CTL_EXIT_OK)
                st = ctl_fail(CTL_EXIT_ERROR, "cannot write the output: %s", strerror(errno));
        return st;
}
