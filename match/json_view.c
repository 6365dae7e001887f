/* match/json_view.c — views and results as JSON (json.h). */
#include "match/json.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "match/json_fields.h"

/* Nesting of a view's walk: root, a list of seats, a seat's object, a card
 * in it, its fields.  16 leaves room for any game and bounds a bad walk. */
#define VIEW_MAX_DEPTH          16

/* ---- The visitor builder: turns any eng_visitor walk (a view, a card)
 * into jansson values.
 *
 * Invariant: stack[0 .. depth) are the open containers, stack[0] the root
 * object, each owned by its parent (the root by the caller); a value goes
 * into stack[depth − 1], with a key in an object and without one in an
 * array.  seat_list[i] says that the array at stack[i] lists seats.
 *
 * Seats in walks.  The engine's walk carries engine seats, and a visitor
 * cannot know which integer is a seat but by its key.  The convention
 * (docs/matches.md, "Seats in views"): an integer member named "seat",
 * "winner", or ending in "_seat", and every integer of an array named
 * "seats", "tiebreak" or ending in "_seats", is a seat number, shown
 * 1-based; a negative one (ENG_SEAT_TABLE, "no one yet") is null.  Only
 * integers: "winner": true in a player's object, or "seats": 4 (a count),
 * are left as they are. */

struct builder {
        json_t *stack[VIEW_MAX_DEPTH];
        bool seat_list[VIEW_MAX_DEPTH];
        size_t depth;
};

static bool ends_with(const char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);

        return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool is_seat_key(const char *key) {
        return key && (strcmp(key, "seat") == 0 || strcmp(key, "winner") == 0 ||
                       ends_with(key, "_seat"));
}

static bool is_seat_list_key(const char *key) {
        return key && (strcmp(key, "seats") == 0 || strcmp(key, "tiebreak") == 0 ||
                       ends_with(key, "_seats"));
}

/* Puts v (stolen) where the walk is: the key must be there in an object
 * and absent in an array, and a key may not repeat. */
static int builder_add(struct builder *b, const char *key, json_t *v) {
        json_t *top;

        if (!v)
                return -ENOMEM;
        if (b->depth == 0) {
                json_decref(v);
                return -EINVAL;
        }
        top = b->stack[b->depth - 1];
        if (json_is_object(top)) {
                if (!key || json_object_get(top, key)) {
                        json_decref(v);
                        return -EINVAL;
                }
                return json_object_set_new(top, key, v) == 0 ? 0 : -ENOMEM;
        }
        if (key) {
                json_decref(v);
                return -EINVAL;
        }
        return json_array_append_new(top, v) == 0 ? 0 : -ENOMEM;
}

static int builder_push(struct builder *b, const char *key, json_t *container, bool seat_list) {
        int r;

        if (!container)
                return -ENOMEM;
        if (b->depth >= VIEW_MAX_DEPTH) {
                json_decref(container);
                return -E2BIG;
        }
        r = builder_add(b, key, container);
        if (r < 0)
                return r;
        b->stack[b->depth] = container;
        b->seat_list[b->depth] = seat_list;
        b->depth++;
        return 0;
}

static int builder_pop(struct builder *b, bool object) {
        /* The root is closed by the caller, not by the walk. */
        if (b->depth < 2 || json_is_object(b->stack[b->depth - 1]) != object)
                return -EINVAL;
        b->depth--;
        return 0;
}

static int v_object_begin(void *ctx, const char *key) {
        return builder_push(ctx, key, json_object(), false);
}

static int v_object_end(void *ctx) {
        return builder_pop(ctx, true);
}

static int v_array_begin(void *ctx, const char *key) {
        return builder_push(ctx, key, json_array(), is_seat_list_key(key));
}

static int v_array_end(void *ctx) {
        return builder_pop(ctx, false);
}

static int v_integer(void *ctx, const char *key, int64_t value) {
        struct builder *b = ctx;
        bool seat = key ? is_seat_key(key) : b->depth > 0 && b->seat_list[b->depth - 1];

        if (seat)
                return builder_add(b, key, value >= 0 && value < INT_MAX ? jf_seat(value)
                                                                          : json_null());
        return builder_add(b, key, json_integer((json_int_t) value));
}

static int v_boolean(void *ctx, const char *key, bool value) {
        return builder_add(ctx, key, json_boolean(value));
}

static int v_string(void *ctx, const char *key, const char *value) {
        return builder_add(ctx, key, value ? json_string(value) : json_null());
}

static int v_null(void *ctx, const char *key) {
        return builder_add(ctx, key, json_null());
}

static const struct eng_visitor builder_visitor = {
        .object_begin = v_object_begin,
        .object_end = v_object_end,
        .array_begin = v_array_begin,
        .array_end = v_array_end,
        .integer = v_integer,
        .boolean = v_boolean,
        .string = v_string,
        .null = v_null,
};

static void builder_init(struct builder *b, json_t *root) {
        memset(b, 0, sizeof *b);
        b->stack[0] = root;
        b->depth = 1;
}

json_t *match_json_view(const struct eng_game *g, const void *state, enum eng_audience a, int seat) {
        struct builder b;
        json_t *o;

        if (!g || !state)
                return NULL;
        o = json_object();
        if (!o)
                return NULL;
        builder_init(&b, o);
        if (g->view_visit(state, a, seat, &builder_visitor, &b) < 0 || b.depth != 1) {
                json_decref(o);
                return NULL;
        }
        /* Every view says which game it is and where the match stands, so
         * that a page can load the game's module from the view alone (a
         * station may read nothing else); the framework's, not each
         * engine's to remember. */
        if (json_object_set_new(o, "game", json_string(g->name)) < 0 ||
            (g->status && json_object_set_new(o, "status", json_string(eng_status_name(g->status(state)))) < 0)) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* ---- Results. */

static json_t *score_json(const struct eng_game *g, const struct eng_result *r, int s) {
        json_t *terms = json_object();
        int e = 0;

        for (size_t t = 0; terms && t < g->n_terms && t < ENG_MAX_TERMS; t++)
                e |= jf_set(terms, g->terms[t], json_integer(r->terms[s][t]));
        if (e < 0) {
                json_decref(terms);
                return NULL;
        }
        return json_pack("{s:I, s:o}", "total", (json_int_t) r->score[s], "terms", terms);
}

static json_t *teams_json(const struct eng_result *r, int s) {
        json_t *a = json_array();
        int e = 0;

        for (unsigned k = 0; a && k < r->n_stages && k < ENG_MAX_STAGES; k++)
                e |= jf_append(a, r->team[s][k] >= 0 ? json_integer(r->team[s][k] + 1) : json_null());
        if (e < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

/* A seat's statistics, as the game's walk gives them. */
static json_t *stats_json(const struct eng_game *g, const void *state, int s) {
        struct builder b;
        json_t *o = json_object();

        if (!o || !state || !g->stats)
                return o;
        builder_init(&b, o);
        if (g->stats(state, s, &builder_visitor, &b) < 0 || b.depth != 1) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *match_json_result(const struct eng_game *g, const void *state, const struct eng_result *r) {
        json_t *o, *placements;
        unsigned n;
        int e;

        if (!g || !r)
                return NULL;
        n = r->n_seats < ENG_MAX_SEATS ? r->n_seats : ENG_MAX_SEATS;
        o = json_object();
        if (!o)
                return NULL;
        e = jf_set(o, "finished", json_boolean(r->finished));
        e |= jf_set(o, "winner", jf_seat(r->winner));
        if (r->label)
                e |= jf_set(o, "label", json_string(r->label));
        placements = json_array();
        for (unsigned i = 0; placements && i < n; i++) {
                int s = r->order[i];
                json_t *p;

                if (s < 0 || (unsigned) s >= n)
                        continue;
                p = json_object();
                e |= jf_append(placements, p);
                if (!p)
                        break;
                e |= jf_set(p, "seat", jf_seat(s));
                e |= jf_set(p, "place", json_integer(r->place[s]));
                e |= jf_set(p, "score", score_json(g, r, s));
                if (r->n_stages)
                        e |= jf_set(p, "teams", teams_json(r, s));
                e |= jf_set(p, "stats", stats_json(g, state, s));
        }
        e |= jf_set(o, "placements", placements);
        if (e < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}
