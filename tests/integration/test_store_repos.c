/* The repositories of store/ driven as plain C, without HTTP: a loop, the
 * daemon's store on a database of the test's own (migrated by the store's
 * own runner), and each repository's entry points, with what they hold
 * beyond one statement:
 *   - store/tokens.h: a token's row as stored, a live name taken twice
 *     (the constraint named in the failure), a revoke that only a live
 *     token takes, the live tokens with their hashes, the NOTIFY of every
 *     change, and a seat's new token revoking its last one in the same
 *     statement — or, for a seat its table does not have, nothing at all;
 *   - store/tables.h: a table written whole in one statement and read back
 *     the same (seats in order, each with its pads in pad order, button
 *     maps with any characters, the table's own pads), in pages, and the
 *     constraints a second table may break (a name, a pad), which leave
 *     nothing of it behind;
 *   - store/players.h: a player stored, changed member by member (a club
 *     and an external id set to none, active), its external id unique, and
 *     its all-time ratings (store_ratings_of_players, store/ratings.h) read
 *     beside it, every stored double to the last bit;
 *   - store/tournaments_summary.h: what a tournament's D-Bus object shows,
 *     its current stage the last one that is not pending and its round the
 *     highest of that stage's matches.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <libpq-fe.h>

#include "common/log.h"
#include "common/loop.h"
#include "store/players.h"
#include "store/ratings.h"
#include "store/store.h"
#include "store/tables.h"
#include "store/tokens.h"
#include "store/tournaments_summary.h"
#include "tests/integration/harness.h"
#include "tests/integration/own_store.h"

static int setup(void **state) {
        (void) state;
        own_store_open("repos");
        return 0;
}

static int teardown(void **state) {
        (void) state;
        own_store_close();
        return 0;
}

/* ---- store/tokens.h ----------------------------------------------------------- */

#define MAX_ROWS 16

/* What a callback got, copied (the rows live only as long as it). */
struct token_copy {
        int64_t id, match_id, table_id;
        int seat;
        char *name, *role, *created_by, *created_at, *revoked_at, *hash;
};

struct tokens_got {
        struct own_wait w;
        bool failed;
        enum store_failure failure;
        char *constraint;
        size_t n;
        struct token_copy rows[MAX_ROWS];
};

static char *dup_or_null(const char *s) {
        return s ? strdup(s) : NULL;
}

static void tokens_got_clear(struct tokens_got *g) {
        for (size_t i = 0; i < g->n; i++) {
                struct token_copy *t = &g->rows[i];
                free(t->name), free(t->role), free(t->created_by), free(t->created_at), free(t->revoked_at),
                        free(t->hash);
        }
        free(g->constraint);
        memset(g, 0, sizeof *g);
}

static void on_tokens(void *userdata, const struct store_token_row *rows, size_t n,
                      const struct store_error *failure, const char *error) {
        struct tokens_got *g = userdata;

        (void) error;
        g->w.done = true;
        if (failure) {
                assert_null(rows);
                g->failed = true;
                g->failure = failure->failure;
                g->constraint = dup_or_null(failure->constraint);
                return;
        }
        assert_true(n <= MAX_ROWS);
        g->n = n;
        for (size_t i = 0; i < n; i++)
                g->rows[i] = (struct token_copy) {
                        .id = rows[i].id, .match_id = rows[i].match_id, .table_id = rows[i].table_id,
                        .seat = rows[i].seat, .name = dup_or_null(rows[i].name), .role = dup_or_null(rows[i].role),
                        .created_by = dup_or_null(rows[i].created_by),
                        .created_at = dup_or_null(rows[i].created_at),
                        .revoked_at = dup_or_null(rows[i].revoked_at), .hash = dup_or_null(rows[i].hash),
                };
}

/* A fake hash of the right shape (the table's CHECK), from one digit. */
static const char *hash_of(char digit) {
        static char h[8][65];
        static unsigned n;
        char *b = h[n++ % 8];

        memset(b, digit, 64);
        b[64] = '\0';
        return b;
}

static void tokens_of(struct tokens_got *g, int r, const char *what) {
        assert_int_equal(r, 0);
        own_wait_for(&g->w, what);
}

static bool rfc3339_utc(const char *s) {
        /* 2026-03-01T18:04:05.123456Z */
        return s && strlen(s) == 27 && s[4] == '-' && s[10] == 'T' && s[19] == '.' && s[26] == 'Z';
}

static void a_token_is_stored_read_listed_and_revoked(void **state) {
        struct tokens_got g = { 0 };
        int64_t first, second;
        (void) state;

        tokens_of(&g, store_tokens_insert(own_store, "scoreboard", "display", hash_of('a'), "test", on_tokens, &g),
                  "insert");
        assert_false(g.failed);
        assert_int_equal(g.n, 1);
        first = g.rows[0].id;
        assert_true(first > 0);
        assert_string_equal(g.rows[0].name, "scoreboard");
        assert_string_equal(g.rows[0].role, "display");
        assert_string_equal(g.rows[0].created_by, "test");
        assert_true(rfc3339_utc(g.rows[0].created_at));
        assert_null(g.rows[0].revoked_at);
        assert_int_equal(g.rows[0].match_id, 0);
        assert_int_equal(g.rows[0].table_id, 0);
        assert_int_equal(g.rows[0].seat, 0);
        assert_null(g.rows[0].hash);                    /* only the cache's read shows it */
        tokens_got_clear(&g);

        /* a live name is taken: the failure names the constraint */
        tokens_of(&g, store_tokens_insert(own_store, "scoreboard", "admin", hash_of('b'), "test", on_tokens, &g),
                  "a second insert of the name");
        assert_true(g.failed);
        assert_int_equal(g.failure, STORE_FAILURE_CONFLICT);
        assert_string_equal(g.constraint, "api_tokens_live_name");
        tokens_got_clear(&g);

        tokens_of(&g, store_tokens_insert(own_store, "admin", "admin", hash_of('c'), "test", on_tokens, &g), "insert");
        second = g.rows[0].id;
        tokens_got_clear(&g);

        /* the list: id order, after and limit */
        tokens_of(&g, store_tokens_list(own_store, 0, 100, on_tokens, &g), "list");
        assert_int_equal(g.n, 2);
        assert_int_equal(g.rows[0].id, first);
        assert_int_equal(g.rows[1].id, second);
        tokens_got_clear(&g);
        tokens_of(&g, store_tokens_list(own_store, first, 1, on_tokens, &g), "list after");
        assert_int_equal(g.n, 1);
        assert_int_equal(g.rows[0].id, second);
        tokens_got_clear(&g);
        assert_int_equal(store_tokens_list(own_store, 0, -1, on_tokens, &g), -EINVAL);

        /* the cache's read: the live ones, with their hashes */
        tokens_of(&g, store_tokens_live(own_store, on_tokens, &g), "live");
        assert_int_equal(g.n, 2);
        for (size_t i = 0; i < g.n; i++)
                assert_string_equal(g.rows[i].hash, g.rows[i].id == first ? hash_of('a') : hash_of('c'));
        tokens_got_clear(&g);

        /* a revoke takes a live token once */
        tokens_of(&g, store_tokens_revoke(own_store, first, on_tokens, &g), "revoke");
        assert_int_equal(g.n, 1);
        assert_int_equal(g.rows[0].id, first);
        assert_true(rfc3339_utc(g.rows[0].revoked_at));
        tokens_got_clear(&g);
        tokens_of(&g, store_tokens_revoke(own_store, first, on_tokens, &g), "a second revoke");
        assert_false(g.failed);
        assert_int_equal(g.n, 0);
        tokens_got_clear(&g);
        tokens_of(&g, store_tokens_get(own_store, first, on_tokens, &g), "get");
        assert_int_equal(g.n, 1);
        assert_non_null(g.rows[0].revoked_at);
        tokens_got_clear(&g);
        tokens_of(&g, store_tokens_live(own_store, on_tokens, &g), "live");
        assert_int_equal(g.n, 1);
        assert_int_equal(g.rows[0].id, second);
        tokens_got_clear(&g);

        /* a revoked token's name is free again */
        tokens_of(&g, store_tokens_insert(own_store, "scoreboard", "display", hash_of('d'), "test", on_tokens, &g),
                  "the name again");
        assert_false(g.failed);
        tokens_got_clear(&g);
        tokens_of(&g, store_tokens_get(own_store, INT64_MAX, on_tokens, &g), "get of no token");
        assert_int_equal(g.n, 0);
        tokens_got_clear(&g);
}

struct notified {
        struct own_wait w;
        unsigned n;
};

static void on_tokens_changed(void *userdata, const char *channel, const char *payload) {
        struct notified *nt = userdata;

        (void) payload;
        assert_string_equal(channel, STORE_TOKENS_CHANNEL);
        nt->n++;
        nt->w.done = true;
}

static void every_change_to_the_tokens_is_notified(void **state) {
        static struct notified nt;      /* the store keeps the listener */
        struct tokens_got g = { 0 };
        int64_t id;
        unsigned before;
        (void) state;

        assert_int_equal(store_tokens_watch(own_store, on_tokens_changed, &nt), 0);
        /* the LISTEN goes out before the next query (store.h), so this
         * insert's NOTIFY is heard */
        tokens_of(&g, store_tokens_insert(own_store, "watched", "referee", hash_of('e'), "test", on_tokens, &g),
                  "insert");
        id = g.rows[0].id;
        tokens_got_clear(&g);
        if (!nt.w.done)
                own_wait_for(&nt.w, "the NOTIFY of an insert");
        before = nt.n;
        nt.w.done = false;
        tokens_of(&g, store_tokens_revoke(own_store, id, on_tokens, &g), "revoke");
        tokens_got_clear(&g);
        if (!nt.w.done)
                own_wait_for(&nt.w, "the NOTIFY of a revoke");
        assert_true(nt.n > before);
}

static void a_seats_new_token_revokes_its_last_one(void **state) {
        struct tokens_got g = { 0 };
        int64_t table, old;
        char q[256];
        (void) state;

        own_sql("INSERT INTO tables (venue, name, created_by) VALUES ('main', 'station-test', 'test')");
        own_sql("INSERT INTO table_seats (table_id, seat) SELECT id, 1 FROM tables WHERE name = 'station-test'");
        table = own_sql_int64("SELECT id FROM tables WHERE name = 'station-test'");

        tokens_of(&g, store_tokens_insert_seat(own_store, "table seat 1 #1", hash_of('1'), "test", 0, table, 1,
                                               on_tokens, &g), "a station's token");
        assert_false(g.failed);
        assert_int_equal(g.n, 1);
        old = g.rows[0].id;
        assert_string_equal(g.rows[0].role, "seat");
        assert_int_equal(g.rows[0].table_id, table);
        assert_int_equal(g.rows[0].match_id, 0);
        assert_int_equal(g.rows[0].seat, 1);
        tokens_got_clear(&g);

        tokens_of(&g, store_tokens_insert_seat(own_store, "table seat 1 #2", hash_of('2'), "test", 0, table, 1,
                                               on_tokens, &g), "the seat's next token");
        assert_int_equal(g.n, 1);
        assert_true(g.rows[0].id > old);
        tokens_got_clear(&g);
        tokens_of(&g, store_tokens_get(own_store, old, on_tokens, &g), "the seat's last token");
        assert_non_null(g.rows[0].revoked_at);
        tokens_got_clear(&g);

        /* a seat the table does not have: nothing made, nothing revoked */
        tokens_of(&g, store_tokens_insert_seat(own_store, "table seat 2", hash_of('3'), "test", 0, table, 2,
                                               on_tokens, &g), "a token for no seat");
        assert_false(g.failed);
        assert_int_equal(g.n, 0);
        tokens_got_clear(&g);
        snprintf(q, sizeof q, "SELECT count(*) FROM api_tokens WHERE table_id = %lld AND revoked_at IS NULL",
                 (long long) table);
        assert_int_equal(own_sql_int64(q), 1);

        /* one of a match or a table, and a seat */
        assert_int_equal(store_tokens_insert_seat(own_store, "x", hash_of('4'), "test", 0, 0, 1, on_tokens, &g), -EINVAL);
        assert_int_equal(store_tokens_insert_seat(own_store, "x", hash_of('4'), "test", 1, table, 1, on_tokens, &g),
                         -EINVAL);
        assert_int_equal(store_tokens_insert_seat(own_store, "x", hash_of('4'), "test", 0, table, 0, on_tokens, &g),
                         -EINVAL);
}


/* ---- store/tables.h ------------------------------------------------------------ */

/* A table as a callback got it, as JSON text (the rows live only as long
 * as the callback), one per row. */
struct tables_got {
        struct own_wait w;
        bool failed;
        enum store_failure failure;
        char *constraint;
        size_t n;
        int64_t ids[MAX_ROWS];
        char *text[MAX_ROWS];
        char *venues[MAX_ROWS];
        int64_t live[MAX_ROWS];         /* the newest match not over at it, 0 none */
};

static json_t *pads_of(const struct store_table_pad *pads, size_t n) {
        json_t *a = json_array();

        for (size_t i = 0; i < n; i++)
                json_array_append_new(a, json_pack("[s, s]", pads[i].pad, pads[i].role));
        return a;
}

static void on_tables(void *userdata, const struct store_table_row *rows, size_t n,
                      const struct store_error *failure, const char *error) {
        struct tables_got *g = userdata;

        (void) error;
        g->w.done = true;
        if (failure) {
                assert_null(rows);
                g->failed = true;
                g->failure = failure->failure;
                g->constraint = dup_or_null(failure->constraint);
                return;
        }
        assert_true(n <= MAX_ROWS);
        g->n = n;
        for (size_t i = 0; i < n; i++) {
                json_t *seats = json_array(), *t;

                for (size_t k = 0; k < rows[i].n_seats; k++)
                        json_array_append_new(seats, json_pack("[i, s?, o]", rows[i].seats[k].seat,
                                                               rows[i].seats[k].buttons,
                                                               pads_of(rows[i].seats[k].pads,
                                                                       rows[i].seats[k].n_pads)));
                assert_true(rfc3339_utc(rows[i].created_at));
                g->venues[i] = strdup(rows[i].venue);
                g->live[i] = rows[i].live_match;
                t = json_pack("[s, s, o, o]", rows[i].name, rows[i].created_by, seats,
                              pads_of(rows[i].pads, rows[i].n_pads));
                g->ids[i] = rows[i].id;
                g->text[i] = json_dumps(t, JSON_COMPACT);
                json_decref(t);
        }
}

static void tables_got_clear(struct tables_got *g) {
        for (size_t i = 0; i < g->n; i++) {
                free(g->text[i]);
                free(g->venues[i]);
        }
        free(g->constraint);
        memset(g, 0, sizeof *g);
}

static void tables_of(struct tables_got *g, int r, const char *what) {
        assert_int_equal(r, 0);
        own_wait_for(&g->w, what);
}

/* What on_tables makes of the table "hall-a" below: name, created_by,
 * [seat, buttons, pads] in seat order, the table's own pads. */
#define HALL_A \
        "[\"hall-a\",\"test\",[[1,\"{\\\"0\\\": \\\"a \\\\\\\"quoted\\\\\\\" call\\\"}\"," \
        "[[\"00000000000000a1\",\"slap\"],[\"00000000000000a2\",\"buttons\"]]]," \
        "[2,null,[[\"00000000000000b1\",\"buttons\"]]],[3,null,[]]]," \
        "[[\"00000000000000c1\",\"keypad\"]]]"

static void a_table_is_written_whole_and_read_back_the_same(void **state) {
        /* seats and pads given out of order: they come back in order */
        const struct store_table_new_seat seats[] = {
                { 2, NULL }, { 1, "{\"0\": \"a \\\"quoted\\\" call\"}" }, { 3, NULL },
        };
        const struct store_table_new_pad pads[] = {
                { 1, "00000000000000a2", "buttons" }, { 0, "00000000000000c1", "keypad" },
                { 2, "00000000000000b1", "buttons" }, { 1, "00000000000000a1", "slap" },
        };
        const struct store_table_new_seat one[] = { { 1, NULL } };
        const struct store_table_new_pad taken[] = { { 1, "00000000000000b1", "buttons" } };
        struct tables_got g = { 0 };
        int64_t id, second;
        (void) state;

        tables_of(&g, store_tables_insert(own_store, "main", "hall-a", "test", seats, 3, pads, 4, on_tables, &g), "insert");
        assert_false(g.failed);
        assert_int_equal(g.n, 1);
        id = g.ids[0];
        assert_string_equal(g.text[0], HALL_A);
        tables_got_clear(&g);

        tables_of(&g, store_tables_get(own_store, id, on_tables, &g), "get");
        assert_int_equal(g.n, 1);
        assert_string_equal(g.text[0], HALL_A);
        tables_got_clear(&g);

        /* a name taken, a pad taken: the constraint says which, and no
         * seat or pad of the refused table stays */
        tables_of(&g, store_tables_insert(own_store, "main", "hall-a", "test", one, 1, NULL, 0, on_tables, &g), "same name");
        assert_true(g.failed);
        assert_int_equal(g.failure, STORE_FAILURE_CONFLICT);
        assert_string_equal(g.constraint, "tables_venue_name_key");
        tables_got_clear(&g);
        tables_of(&g, store_tables_insert(own_store, "main", "hall-b", "test", one, 1, taken, 1, on_tables, &g), "pad taken");
        assert_true(g.failed);
        assert_string_equal(g.constraint, "table_pads_pad_id_key");
        tables_got_clear(&g);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM tables WHERE name = 'hall-b'"), 0);

        tables_of(&g, store_tables_insert(own_store, "main", "hall-b", "test", one, 1, NULL, 0, on_tables, &g), "insert");
        second = g.ids[0];
        assert_string_equal(g.text[0], "[\"hall-b\",\"test\",[[1,null,[]]],[]]");
        tables_got_clear(&g);

        /* pages: after and limit, each table with its own seats */
        tables_of(&g, store_tables_list(own_store, NULL, 0, 100, on_tables, &g), "list");
        assert_true(g.n >= 2);
        for (size_t i = 0; i < g.n; i++) {
                if (i > 0)
                        assert_true(g.ids[i] > g.ids[i - 1]);
                if (g.ids[i] == id)
                        assert_string_equal(g.text[i], HALL_A);
        }
        tables_got_clear(&g);
        tables_of(&g, store_tables_list(own_store, NULL, id, 1, on_tables, &g), "list after");
        assert_int_equal(g.n, 1);
        assert_int_equal(g.ids[0], second);
        tables_got_clear(&g);
        tables_of(&g, store_tables_get(own_store, INT64_MAX, on_tables, &g), "get of no table");
        assert_int_equal(g.n, 0);
        tables_got_clear(&g);
}

/* A table stands at a venue: its name is unique there, not everywhere; a
 * venue the database does not know is refused by name; a list may keep to
 * one venue; a table's live match is the newest not over there. */
static void tables_belong_to_venues(void **state) {
        const struct store_table_new_seat one[] = { { 1, NULL } };
        struct tables_got g = { 0 };
        int64_t north, m1, m2;
        (void) state;

        own_sql("INSERT INTO venues (id, name) VALUES ('north-repo', 'North') ON CONFLICT DO NOTHING");
        tables_of(&g, store_tables_insert(own_store, "main", "hall-v", "test", one, 1, NULL, 0, on_tables, &g),
                  "insert at main");
        assert_false(g.failed);
        assert_string_equal(g.venues[0], "main");
        tables_got_clear(&g);
        tables_of(&g, store_tables_insert(own_store, "north-repo", "hall-v", "test", one, 1, NULL, 0, on_tables, &g),
                  "the same name at north");
        assert_false(g.failed);
        assert_string_equal(g.venues[0], "north-repo");
        assert_int_equal(g.live[0], 0);
        north = g.ids[0];
        tables_got_clear(&g);
        tables_of(&g, store_tables_insert(own_store, "north-repo", "hall-v", "test", one, 1, NULL, 0, on_tables, &g),
                  "the same name at north again");
        assert_true(g.failed);
        assert_string_equal(g.constraint, "tables_venue_name_key");
        tables_got_clear(&g);
        tables_of(&g, store_tables_insert(own_store, "nowhere", "hall-v", "test", one, 1, NULL, 0, on_tables, &g),
                  "an unknown venue");
        assert_true(g.failed);
        assert_int_equal(g.failure, STORE_FAILURE_INVALID);
        assert_string_equal(g.constraint, "tables_venue_fkey");
        tables_got_clear(&g);

        tables_of(&g, store_tables_list(own_store, "north-repo", 0, 100, on_tables, &g), "north's list");
        assert_int_equal(g.n, 1);
        assert_int_equal(g.ids[0], north);
        tables_got_clear(&g);

        /* a match at the table is at the table's venue, and the newest one
         * not over is the table's */
        m1 = own_sql_int64("INSERT INTO matches (venue, game, table_id, seed, config, seats, created_by) "
                           "VALUES ('north-repo', 'crash-pilot', %" PRId64 ", 1, '{}', '[]', 'test') RETURNING id",
                           north);
        m2 = own_sql_int64("INSERT INTO matches (venue, game, table_id, seed, config, seats, created_by, state) "
                           "VALUES ('north-repo', 'crash-pilot', %" PRId64 ", 1, '{}', '[]', 'test', 'aborted') "
                           "RETURNING id", north);
        assert_true(m2 > m1);
        tables_of(&g, store_tables_get(own_store, north, on_tables, &g), "north's table");
        assert_int_equal(g.live[0], m1);
        tables_got_clear(&g);
}

/* ---- store/players.h ------------------------------------------------------------ */

struct player_copy {
        int64_t id;
        char *name, *club, *external_id, *created_at;
        bool active;
};

struct players_got {
        struct own_wait w;
        bool failed;
        enum store_failure failure;
        char *constraint;
        size_t n;
        struct player_copy rows[MAX_ROWS];
};

static void on_players(void *userdata, const struct store_player_row *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct players_got *g = userdata;

        (void) error;
        g->w.done = true;
        if (failure) {
                g->failed = true;
                g->failure = failure->failure;
                g->constraint = dup_or_null(failure->constraint);
                return;
        }
        assert_true(n <= MAX_ROWS);
        g->n = n;
        for (size_t i = 0; i < n; i++)
                g->rows[i] = (struct player_copy) {
                        .id = rows[i].id, .name = dup_or_null(rows[i].name), .club = dup_or_null(rows[i].club),
                        .external_id = dup_or_null(rows[i].external_id),
                        .created_at = dup_or_null(rows[i].created_at), .active = rows[i].active,
                };
}

static void players_got_clear(struct players_got *g) {
        for (size_t i = 0; i < g->n; i++)
                free(g->rows[i].name), free(g->rows[i].club), free(g->rows[i].external_id),
                        free(g->rows[i].created_at);
        free(g->constraint);
        memset(g, 0, sizeof *g);
}

static void players_of(struct players_got *g, int r, const char *what) {
        assert_int_equal(r, 0);
        own_wait_for(&g->w, what);
}

static void a_player_is_stored_and_changed_member_by_member(void **state) {
        struct players_got g = { 0 };
        int64_t ana, ben;
        (void) state;

        players_of(&g, store_players_insert(own_store, "Ana", "Lisbon", "PT-1", on_players, &g), "insert");
        assert_false(g.failed);
        assert_int_equal(g.n, 1);
        ana = g.rows[0].id;
        assert_string_equal(g.rows[0].name, "Ana");
        assert_string_equal(g.rows[0].club, "Lisbon");
        assert_string_equal(g.rows[0].external_id, "PT-1");
        assert_true(g.rows[0].active);
        assert_true(rfc3339_utc(g.rows[0].created_at));
        players_got_clear(&g);

        players_of(&g, store_players_insert(own_store, "Ben", NULL, NULL, on_players, &g), "insert");
        ben = g.rows[0].id;
        assert_null(g.rows[0].club);
        assert_null(g.rows[0].external_id);
        players_got_clear(&g);

        /* an external id is one player's */
        players_of(&g, store_players_insert(own_store, "Cy", NULL, "PT-1", on_players, &g), "a second PT-1");
        assert_true(g.failed);
        assert_int_equal(g.failure, STORE_FAILURE_CONFLICT);
        assert_string_equal(g.constraint, "players_external_id_key");
        players_got_clear(&g);
        struct store_player_change taken = { .external_id_given = true, .external_id = "PT-1", .active = -1 };
        players_of(&g, store_players_update(own_store, ben, &taken, on_players, &g), "Ben takes PT-1");
        assert_string_equal(g.constraint, "players_external_id_key");
        players_got_clear(&g);

        /* what an update leaves out stays; a club given as none is none */
        struct store_player_change name_only = { .name = "Ana M.", .active = -1 };
        players_of(&g, store_players_update(own_store, ana, &name_only, on_players, &g), "rename");
        assert_string_equal(g.rows[0].name, "Ana M.");
        assert_string_equal(g.rows[0].club, "Lisbon");
        assert_string_equal(g.rows[0].external_id, "PT-1");
        assert_true(g.rows[0].active);
        players_got_clear(&g);
        struct store_player_change clear = { .club_given = true, .external_id_given = true, .active = 0 };
        players_of(&g, store_players_update(own_store, ana, &clear, on_players, &g), "clear");
        assert_string_equal(g.rows[0].name, "Ana M.");
        assert_null(g.rows[0].club);
        assert_null(g.rows[0].external_id);
        assert_false(g.rows[0].active);
        players_got_clear(&g);
        players_of(&g, store_players_update(own_store, INT64_MAX, &name_only, on_players, &g), "no such player");
        assert_false(g.failed);
        assert_int_equal(g.n, 0);
        players_got_clear(&g);
        struct store_player_change bad = { .active = 2 };
        assert_int_equal(store_players_update(own_store, ana, &bad, on_players, &g), -EINVAL);

        players_of(&g, store_players_get(own_store, ana, on_players, &g), "get");
        assert_int_equal(g.n, 1);
        assert_false(g.rows[0].active);
        players_got_clear(&g);
        players_of(&g, store_players_list(own_store, 0, 100, on_players, &g), "list");
        assert_int_equal(g.n, 2);
        assert_int_equal(g.rows[0].id, ana);
        assert_int_equal(g.rows[1].id, ben);
        players_got_clear(&g);
        players_of(&g, store_players_list(own_store, ana, 100, on_players, &g), "list after");
        assert_int_equal(g.n, 1);
        assert_int_equal(g.rows[0].id, ben);
        players_got_clear(&g);
}

struct ratings_got {
        struct own_wait w;
        bool failed;
        size_t n;
        char *game[MAX_ROWS];
        struct store_rating_row rating[MAX_ROWS];
};

static void on_player_ratings(void *userdata, const struct store_player_rating *rows, size_t n,
                              const struct store_error *failure, const char *error) {
        struct ratings_got *g = userdata;

        (void) error;
        g->w.done = true;
        g->failed = failure != NULL;
        assert_true(n <= MAX_ROWS);
        g->n = n;
        for (size_t i = 0; i < n; i++) {
                g->game[i] = strdup(rows[i].game);
                g->rating[i] = rows[i].rating;
        }
}

static void ratings_got_clear(struct ratings_got *g) {
        for (size_t i = 0; i < g->n; i++)
                free(g->game[i]);
        memset(g, 0, sizeof *g);
}

static void a_players_ratings_are_read_beside_it(void **state) {
        struct players_got p = { 0 };
        struct ratings_got g = { 0 };
        int64_t ids[3];
        char q[512];
        (void) state;

        for (int i = 0; i < 3; i++) {
                char name[16];

                snprintf(name, sizeof name, "rated %d", i);
                players_of(&p, store_players_insert(own_store, name, NULL, NULL, on_players, &p), "insert");
                ids[i] = p.rows[0].id;
                players_got_clear(&p);
        }
        /* doubles no decimal text holds exactly, games out of name order */
        snprintf(q, sizeof q,
                 "INSERT INTO ratings (game, player_id, mu, sigma, games, g2_rating, g2_rd, g2_volatility, g2_games) "
                 "VALUES ('snap', %lld, 0.1, 1e-300, 3, 1500.0000000000002, 350, 0.06, 2), "
                 "       ('crash-pilot', %lld, 25, 8.333333333333334, 1, 1499.5, 200.25, 0.059999, 1), "
                 "       ('crash-pilot', %lld, 30.5, 7, 4, 1600, 180, 0.06, 4)",
                 (long long) ids[0], (long long) ids[0], (long long) ids[2]);
        own_sql(q);

        assert_int_equal(store_ratings_of_players(own_store, ids, 3, on_player_ratings, &g), 0);
        own_wait_for(&g.w, "the ratings of three players");
        assert_false(g.failed);
        assert_int_equal(g.n, 3);
        /* by player, then game; the player without ratings has none */
        assert_int_equal(g.rating[0].player, ids[0]);
        assert_string_equal(g.game[0], "crash-pilot");
        assert_true(g.rating[0].mu == 25.0 && g.rating[0].sigma == 8.333333333333334);
        assert_true(g.rating[0].g2_rating == 1499.5 && g.rating[0].g2_rd == 200.25 &&
                    g.rating[0].g2_volatility == 0.059999);
        assert_int_equal(g.rating[0].games, 1);
        assert_int_equal(g.rating[0].g2_games, 1);
        assert_int_equal(g.rating[1].player, ids[0]);
        assert_string_equal(g.game[1], "snap");
        assert_true(g.rating[1].mu == 0.1 && g.rating[1].sigma == 1e-300 && g.rating[1].g2_rating == 1500.0000000000002);
        assert_int_equal(g.rating[1].games, 3);
        assert_int_equal(g.rating[2].player, ids[2]);
        assert_true(g.rating[2].mu == 30.5);
        ratings_got_clear(&g);

        assert_int_equal(store_ratings_of_players(own_store, ids + 1, 1, on_player_ratings, &g), 0);
        own_wait_for(&g.w, "the ratings of an unrated player");
        assert_false(g.failed);
        assert_int_equal(g.n, 0);
        ratings_got_clear(&g);
        assert_int_equal(store_ratings_of_players(own_store, NULL, 0, on_player_ratings, &g), 0);
        own_wait_for(&g.w, "the ratings of no player");
        assert_int_equal(g.n, 0);
        ratings_got_clear(&g);
}

/* ---- store/tournaments_summary.h ----------------------------------------------- */

struct summary_got {
        struct own_wait w;
        bool failed;
        size_t n;
        int64_t id[MAX_ROWS];
        char *text[MAX_ROWS];           /* "name game state stage round" */
};

static void on_summary(void *userdata, const struct store_tournament_summary *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct summary_got *g = userdata;

        (void) error;
        g->w.done = true;
        g->failed = failure != NULL;
        assert_true(n <= MAX_ROWS);
        g->n = n;
        for (size_t i = 0; i < n; i++) {
                g->id[i] = rows[i].id;
                assert_true(asprintf(&g->text[i], "%s %s %s %u %u", rows[i].name, rows[i].game, rows[i].state,
                                     rows[i].stage, rows[i].round) > 0);
        }
}

static void summary_got_clear(struct summary_got *g) {
        for (size_t i = 0; i < g->n; i++)
                free(g->text[i]);
        memset(g, 0, sizeof *g);
}

static void a_tournaments_summary_is_its_current_stage_and_round(void **state) {
        struct summary_got g = { 0 };
        int64_t draft, running;
        char q[512];
        (void) state;

        own_sql("INSERT INTO tournaments (name, game, seed, created_by, competitive, secrets) "
            "VALUES ('Spring', 'crash-pilot', 1, 'test', false, ARRAY['\\x01'::bytea])");
        draft = own_sql_int64("SELECT max(id) FROM tournaments");
        own_sql("INSERT INTO tournaments (name, game, seed, created_by, competitive, secrets, state) "
            "VALUES ('Summer', 'reflex', 2, 'test', false, ARRAY['\\x02'::bytea], 'running')");
        running = own_sql_int64("SELECT max(id) FROM tournaments");
        /* stage 1 finished (rounds 1 to 3), stage 2 running (rounds 1 and
         * 2), stage 3 pending (a round 7 that does not count) */
        snprintf(q, sizeof q,
                 "INSERT INTO stages (tournament_id, number, format, config, state) VALUES "
                 "(%1$lld, 1, 'swiss', '{}', 'finished'), (%1$lld, 2, 'swiss', '{}', 'running'), "
                 "(%1$lld, 3, 'swiss', '{}', 'pending')", (long long) running);
        own_sql(q);
        snprintf(q, sizeof q,
                 "INSERT INTO stage_matches (stage_id, round, table_no, participants) "
                 "SELECT s.id, r.round, 1, '{}' FROM stages s, (VALUES (1, 1), (1, 2), (1, 3), (2, 1), (2, 2), "
                 "(3, 7)) r(number, round) WHERE s.tournament_id = %lld AND s.number = r.number",
                 (long long) running);
        own_sql(q);

        assert_int_equal(store_tournaments_summary_all(own_store, on_summary, &g), 0);
        own_wait_for(&g.w, "every tournament");
        assert_false(g.failed);
        assert_int_equal(g.n, 2);
        assert_int_equal(g.id[0], draft);
        assert_string_equal(g.text[0], "Spring crash-pilot draft 0 0");
        assert_int_equal(g.id[1], running);
        assert_string_equal(g.text[1], "Summer reflex running 2 2");
        summary_got_clear(&g);

        assert_int_equal(store_tournaments_summary_get(own_store, running, on_summary, &g), 0);
        own_wait_for(&g.w, "one tournament");
        assert_int_equal(g.n, 1);
        assert_string_equal(g.text[0], "Summer reflex running 2 2");
        summary_got_clear(&g);
        assert_int_equal(store_tournaments_summary_get(own_store, INT64_MAX, on_summary, &g), 0);
        own_wait_for(&g.w, "no tournament");
        assert_int_equal(g.n, 0);
        summary_got_clear(&g);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_token_is_stored_read_listed_and_revoked),
                cmocka_unit_test(every_change_to_the_tokens_is_notified),
                cmocka_unit_test(a_seats_new_token_revokes_its_last_one),
                cmocka_unit_test(a_table_is_written_whole_and_read_back_the_same),
                cmocka_unit_test(tables_belong_to_venues),
                cmocka_unit_test(a_player_is_stored_and_changed_member_by_member),
                cmocka_unit_test(a_players_ratings_are_read_beside_it),
                cmocka_unit_test(a_tournaments_summary_is_its_current_stage_and_round),
        };

        return cmocka_run_group_tests_name("store repositories", tests, setup, teardown);
}
