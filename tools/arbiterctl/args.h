/* tools/arbiterctl/args.h — one verb's command line, parsed against its
 * option table (registry.h), and the typed reads the verbs make of it.
 *
 * Syntax: options and arguments in any order; "--name value",
 * "--name=value", "-x value"; "--" ends the options.  The global options
 * (--url, --token, --json…) are taken anywhere on the line.  Values are not
 * copied: they point into argv.
 *
 * Every reader that can meet a malformed value (args_id, args_int, …)
 * prints what is wrong and returns -EINVAL; the verb then returns
 * CTL_EXIT_USAGE.  Nothing here talks to the server.
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_ARGS_H
#define ARBITER_TOOLS_ARBITERCTL_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "tools/arbiterctl/registry.h"

/* More would be a mistake on the command line, not a real need: the
 * longest verb (results enter) takes one argument per player of a match,
 * and a table seats at most 16. */
#define ARGS_MAX 128

struct args {
        const struct noun *noun;
        const struct verb *verb;
        const char *pos[ARGS_MAX];
        int n_pos;
        struct {
                const struct opt *opt;
                const char *value;      /* NULL for a flag */
        } set[ARGS_MAX];
        int n_set;
        bool help;                      /* -h or --help */
};

/* Parses argv[0..argc) for verb v (v may be NULL: only the global options
 * and --help are known, for the words before the noun; then the first word
 * that is not an option stops the parse and *ret_used says where).  Prints
 * what is wrong and returns -EINVAL on an unknown option or a missing
 * value. */
int args_parse(const struct verb *v, int argc, char **argv, struct args *ret, int *ret_used);

/* The last value of option name, or NULL when it was not given. */
const char *args_get(const struct args *a, const char *name);
bool args_flag(const struct args *a, const char *name);
/* The i-th value of a repeatable option (i from 0), NULL past the last. */
const char *args_nth(const struct args *a, const char *name, int i);

/* A positive id ("7") from text; what names it in a message. */
int args_parse_id(const char *text, const char *what, int64_t *ret);
/* A whole number within [min, max]. */
int args_parse_int(const char *text, const char *what, int64_t min, int64_t max, int64_t *ret);
/* Positional argument i as an id. */
int args_pos_id(const struct args *a, int i, const char *what, int64_t *ret);
/* Option name as an id; *ret untouched and 0 returned when it is absent. */
int args_opt_id(const struct args *a, const char *name, int64_t *ret);

/* The tournament a tournament-scoped verb works on: -t/--tournament, else
 * $ARBITER_TOURNAMENT; -EINVAL (with a message) when neither is given. */
int args_tournament(const struct args *a, int64_t *ret);

/* A JSON value given on the command line: "@FILE", "-" or "@-" (standard
 * input), or the JSON text itself.  what names it in messages (--data). */
int args_load_json(const char *spec, const char *what, json_t **ret);
/* The request body a verb starts from: --data's object, or an empty one. */
int args_body(const struct args *a, json_t **ret);
/* "KEY=VALUE": the value is parsed as JSON when it is JSON (3, true,
 * [1,3], "quoted"), else taken as a string ("row 3").  Sets it in obj. */
int args_set_kv(json_t *obj, const char *kv, const char *what);
/* "A=B" split at the first '='; the parts point into a copy in buf. */
int args_split(const char *text, char *buf, size_t size, const char **ret_key, const char **ret_value);

#endif
