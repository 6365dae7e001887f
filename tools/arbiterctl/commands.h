/* tools/arbiterctl/commands.h — the nouns the cmd_*.c files define, for
 * the registry's list (registry.c), and the few helpers the verbs share
 * (cmd_common.c).
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_COMMANDS_H
#define ARBITER_TOOLS_ARBITERCTL_COMMANDS_H

#include <stdint.h>
#include <jansson.h>

#include "tools/arbiterctl/args.h"
#include "tools/arbiterctl/ctl.h"
#include "tools/arbiterctl/output.h"
#include "tools/arbiterctl/registry.h"

extern const struct noun noun_players;          /* cmd_players.c */
extern const struct noun noun_tournaments;      /* cmd_tournaments.c */
extern const struct noun noun_registrations;
extern const struct noun noun_stages;
extern const struct noun noun_rounds;
extern const struct noun noun_standings;
extern const struct noun noun_matches;          /* cmd_matches.c */
extern const struct noun noun_results;          /* cmd_results.c */
extern const struct noun noun_corrections;
extern const struct noun noun_leaderboards;
extern const struct noun noun_venues;           /* cmd_venue.c */
extern const struct noun noun_tables;
extern const struct noun noun_pads;
extern const struct noun noun_games;
extern const struct noun noun_server;
extern const struct noun noun_tokens;           /* cmd_tokens.c */
extern const struct noun noun_watch;            /* cmd_watch.c */
extern const struct noun noun_verify;           /* cmd_verify.c */

/* The option every tournament-scoped verb has. */
#define OPT_TOURNAMENT \
        { "tournament", 't', OPT_VALUE, "ID", "the tournament (default: $ARBITER_TOURNAMENT)", NULL }
/* --data: the request body, or its base (flags set members on top). */
#define OPT_DATA \
        { "data", 0, OPT_VALUE, "JSON", "the request body as JSON: '{...}', @FILE or - (stdin); the other options set members on top", NULL }
/* A list route's page. */
#define OPT_LIMIT \
        { "limit", 0, OPT_VALUE, "N", "only one page of N items (default: every page)", NULL }
#define OPT_AFTER \
        { "after", 0, OPT_VALUE, "ID", "with --limit: the page after this id", NULL }

/* Prints reply as the run asks: JSON with --json, else through show
 * (which may be NULL: "key: value" lines).  Takes the reply. */
int cmd_print(struct ctl *c, json_t *reply, void (*show)(const json_t *reply));
/* Prints a list (the items of every page) as a table, or as JSON.  Takes
 * items. */
int cmd_print_list(struct ctl *c, json_t *items, const struct column *cols, size_t n_cols);
/* GET path and the array member of its reply (a new reference). */
int cmd_get_items(struct ctl *c, const char *path, const char *member, json_t **ret_items);
/* GET path and its body as it is, on stdout (CSV). */
int cmd_get_raw(struct ctl *c, const char *path);
/* "auto", "referee" or "referee:SECONDS" as a stage's or a match's
 * confirm; NULL (with a message) for anything else. */
json_t *cmd_confirm(const char *text);
/* "/v1/tournaments/T" + tail into path (HTTP_PATH_MAX) for the tournament
 * of -t or $ARBITER_TOURNAMENT; -EINVAL (with a message) without one. */
int cmd_tpath(char *path, const struct args *a, const char *tail);
/* --limit and --after of a list verb, checked; 0 and 0 when absent. */
int cmd_page(const struct args *a, long long *ret_limit, long long *ret_after);
/* "ID" of the i-th argument as an id, a usage error otherwise. */
#define CMD_ID(a, i, what, ret) \
        do { if (args_pos_id((a), (i), (what), (ret)) < 0) return CTL_EXIT_USAGE; } while (0)

#endif
