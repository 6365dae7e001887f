/* tools/arbiterctl/registry.c — see registry.h. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "tools/arbiterctl/commands.h"
#include "tools/arbiterctl/registry.h"

/* Help lines put an option's description at this column. */
#define HELP_OPT_COLUMN 28
#define HELP_NOUN_COLUMN 16
/* Help lines are wrapped to fit a terminal of the traditional width. */
#define HELP_WIDTH 80

const struct opt global_opts[] = {
        { "url", 0, OPT_VALUE, "URL", "arbiterd's address (default: $ARBITER_URL, else " CTL_DEFAULT_URL ")", NULL },
        { "token", 0, OPT_VALUE, "TOKEN", "the API token (default: $ARBITER_TOKEN); visible to other users in ps: prefer --token-file", NULL },
        { "token-file", 0, OPT_VALUE, "FILE", "read the token from FILE (default: $ARBITER_TOKEN_FILE)", NULL },
        { "json", 0, OPT_FLAG, NULL, "print the server's JSON instead of tables", NULL },
        { "timeout", 0, OPT_VALUE, "SECONDS", "give up on a request after SECONDS (default 30)", NULL },
        { "version", 0, OPT_FLAG, NULL, "print the version and exit", NULL },
        { NULL },
};

const struct noun *const registry_nouns[] = {
        &noun_players,
        &noun_tournaments,
        &noun_registrations,
        &noun_stages,
        &noun_rounds,
        &noun_matches,
        &noun_results,
        &noun_corrections,
        &noun_standings,
        &noun_leaderboards,
        &noun_venues,
        &noun_tables,
        &noun_pads,
        &noun_games,
        &noun_tokens,
        &noun_server,
        &noun_watch,
        &noun_verify,
        NULL,
};

const struct noun *registry_noun(const char *name) {
        for (const struct noun *const *n = registry_nouns; *n; n++)
                if (strcmp((*n)->name, name) == 0)
                        return *n;
        return NULL;
}

const struct verb *registry_verb(const struct noun *n, const char *name) {
        for (const struct verb *v = n->verbs; v->name; v++)
                if (*v->name && strcmp(v->name, name) == 0)
                        return v;
        return NULL;
}

const struct verb *registry_bare_verb(const struct noun *n) {
        for (const struct verb *v = n->verbs; v->name; v++)
                if (!*v->name)
                        return v;
        return NULL;
}

static const struct opt *find_opt(const struct opt *opts, const char *name, bool is_short) {
        for (const struct opt *o = opts; o && o->name; o++)
                if (is_short ? (o->short_name && name[0] == o->short_name && !name[1]) : strcmp(o->name, name) == 0)
                        return o;
        return NULL;
}

const struct opt *registry_opt(const struct opt *opts, const char *name, bool is_short) {
        const struct opt *o = find_opt(opts, name, is_short);
        return o ? o : find_opt(global_opts, name, is_short);
}

/* Prints text from column `at` on, wrapped at HELP_WIDTH with continuation
 * lines indented to `indent`, then a newline. */
static void wrap(FILE *f, const char *text, int at, int indent) {
        int col = at;

        while (*text) {
                size_t word = strcspn(text, " ");
                if (col > indent && col + 1 + (int) word > HELP_WIDTH) {
                        fprintf(f, "\n%*s", indent, "");
                        col = indent;
                } else if (col > indent) {
                        fputc(' ', f);
                        col++;
                }
                fprintf(f, "%.*s", (int) word, text);
                col += (int) word;
                text += word;
                text += strspn(text, " ");
        }
        fputc('\n', f);
}

static void help_opt(FILE *f, const struct opt *o) {
        char left[96], text[512];
        int n;

        if (o->short_name)
                n = snprintf(left, sizeof left, "  -%c, --%s%s%s", o->short_name, o->name, o->metavar ? " " : "",
                             o->metavar ? o->metavar : "");
        else
                n = snprintf(left, sizeof left, "      --%s%s%s", o->name, o->metavar ? " " : "",
                             o->metavar ? o->metavar : "");
        snprintf(text, sizeof text, "%s%s%s%s", o->help, o->kind == OPT_LIST ? " (repeatable)" : "",
                 o->choices ? "; one of: " : "", o->choices ? o->choices : "");
        if (n >= HELP_OPT_COLUMN - 1)
                fprintf(f, "%s\n%*s", left, HELP_OPT_COLUMN, "");
        else
                fprintf(f, "%-*s", HELP_OPT_COLUMN, left);
        wrap(f, text, HELP_OPT_COLUMN, HELP_OPT_COLUMN);
}

void registry_help_main(FILE *f) {
        fprintf(f, "Usage: %s [OPTIONS] NOUN VERB [ARGUMENTS...]\n"
                   "\n"
                   "The organiser's command line for arbiterd: players, tournaments, matches,\n"
                   "results, the venue's tables and pads, tokens and live events, through the\n"
                   "REST API.  Tables for people, --json for scripts.\n"
                   "\n"
                   "Nouns and their verbs:\n", CTL_PROGRAM);
        for (const struct noun *const *n = registry_nouns; *n; n++) {
                char verbs[512] = "";
                fprintf(f, "  %-*s", HELP_NOUN_COLUMN - 2, (*n)->name);
                for (const struct verb *v = (*n)->verbs; v->name; v++)
                        if (*v->name)
                                snprintf(verbs + strlen(verbs), sizeof verbs - strlen(verbs), "%s%s",
                                         *verbs ? " " : "", v->name);
                wrap(f, *verbs ? verbs : (*n)->summary, HELP_NOUN_COLUMN, HELP_NOUN_COLUMN);
        }
        fputs("\nOptions (anywhere on the line):\n", f);
        for (const struct opt *o = global_opts; o->name; o++)
                help_opt(f, o);
        fputs("  -h, --help                this help; after a noun or a verb, its own\n"
              "\n"
              "Exit status: 0 done, 1 other error, 2 usage, 3 not found, 4 conflict,\n"
              "5 auth (no token or too low a role), 6 connection failure.\n"
              "See arbiterctl(1) for more.\n", f);
}

void registry_help_noun(FILE *f, const struct noun *n) {
        fprintf(f, "Usage: %s %s VERB [ARGUMENTS...]\n\n%s.\n\nVerbs:\n", CTL_PROGRAM, n->name, n->summary);
        for (const struct verb *v = n->verbs; v->name; v++)
                if (*v->name)
                        fprintf(f, "  %-*s%s\n", HELP_NOUN_COLUMN - 2, v->name, v->summary);
        fprintf(f, "\nRun \"%s %s VERB --help\" for a verb's arguments and options.\n", CTL_PROGRAM, n->name);
}

void registry_help_verb(FILE *f, const struct noun *n, const struct verb *v) {
        fprintf(f, "Usage: %s %s%s%s%s%s\n\n%c%s.\n", CTL_PROGRAM, n->name, *v->name ? " " : "", v->name,
                *v->synopsis ? " " : "", v->synopsis, toupper((unsigned char) v->summary[0]), v->summary + 1);
        if (v->route)
                fprintf(f, "Route: %s\n", v->route);
        if (v->details)
                fprintf(f, "\n%s", v->details);
        fputs("\nOptions:\n", f);
        for (const struct opt *o = v->opts; o && o->name; o++)
                help_opt(f, o);
        fputs("  -h, --help                this help\n"
              "Global options (--url, --token, --token-file, --json, --timeout): see arbiterctl --help.\n", f);
}
