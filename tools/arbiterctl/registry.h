/* tools/arbiterctl/registry.h — the command registry: every noun, its
 * verbs, each verb's options, arguments, help and route, in const tables.
 *
 * The tables are the single source of the command line: main.c dispatches
 * from them, args.c parses against them, the help texts are printed from
 * them and the bash completion (complete.c) is answered from them, so a
 * verb added to a noun's table is parsed, documented in --help and
 * completed at once (its man page entry is the one thing to write by hand;
 * tests/integration/test_arbiterctl.c checks it is there).
 *
 * Each cmd_*.c file defines the nouns of one area (players, tournaments,
 * matches, results, venue, tokens, watch) with their verbs' functions.
 * A verb's function returns an exit status (enum ctl_exit in ctl.h).
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_REGISTRY_H
#define ARBITER_TOOLS_ARBITERCTL_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct ctl;
struct args;

enum opt_kind {
        OPT_FLAG,                       /* --json */
        OPT_VALUE,                      /* --stage N: the last one given counts */
        OPT_LIST,                       /* --score P=S, repeatable: every one counts */
};

struct opt {
        const char *name;               /* the long name, without "--"; NULL ends a table */
        char short_name;                /* 0: none */
        enum opt_kind kind;
        const char *metavar;            /* "ID"; "FILE" makes the completion offer files */
        const char *help;
        const char *choices;            /* space-separated values offered by the completion; NULL: any */
};

typedef int (*verb_fn)(struct ctl *c, const struct args *a);

struct verb {
        const char *name;               /* NULL ends a table; "" for a noun used without a verb (watch) */
        const char *synopsis;           /* the arguments after the verb, e.g. "[-t ID] PLAYER..." */
        int min_args, max_args;         /* positional arguments; max_args < 0: any number */
        const char *arg_choices;        /* values the completion offers for argument choices_arg */
        const char *summary;            /* one line, no final period */
        const char *route;              /* the REST route(s) and least role, for --help */
        const char *details;            /* more help, may be NULL; lines end with '\n' */
        const struct opt *opts;         /* NULL or a table ended by {NULL} */
        verb_fn run;
        int choices_arg;                /* which argument arg_choices is for, from 0 (default 0) */
};

struct noun {
        const char *name;
        const char *summary;
        const struct verb *verbs;       /* ended by {NULL} */
};

/* Options every verb takes, wherever they stand on the line. */
extern const struct opt global_opts[];

/* The nouns, in the order --help lists them, ended by NULL. */
extern const struct noun *const registry_nouns[];

const struct noun *registry_noun(const char *name);
const struct verb *registry_verb(const struct noun *n, const char *name);
/* The noun's verb-less entry (watch), or NULL. */
const struct verb *registry_bare_verb(const struct noun *n);
/* An option of the verb (opts may be NULL) or a global one, by long name
 * ("stage") or, when name is one character long, short name ("t"). */
const struct opt *registry_opt(const struct opt *opts, const char *name, bool is_short);

/* The help texts, on f. */
void registry_help_main(FILE *f);
void registry_help_noun(FILE *f, const struct noun *n);
void registry_help_verb(FILE *f, const struct noun *n, const struct verb *v);

#endif
