/* tests/unit/test_audience.c — non-interference: what a game hides (the
 * order of the cards not yet turned over) never reaches the public, for
 * every game in eng_games.
 *
 * What it owns: a generic random player built from a game's own tables
 * (its built-in inputs, actions, fields, routes and calls), a table of
 * per-game drivers for games that have a simulation of their own (Crash
 * Pilot's cp_sim_match), and the checker they all feed.
 *
 * The property.  At every reachable state S the players drive a game
 * through, the checker copies S and lets the game change what is hidden
 * (perturb_hidden with a random salt; -EAGAIN: nothing hidden now).  Then:
 *   - the PUBLIC view walk of S and of the copy are byte for byte equal
 *     (rendered with the libc JSON visitor of test_engine_json.h);
 *   - the copy follows S input for input (a "shadow", up to SHADOW_STEPS
 *     inputs, MAX_SHADOWS at a time): for each input, either one of the
 *     two outputs holds an event whose def->reveals is true (a card turned
 *     over: from there on the two may rightly differ, and the shadow
 *     stops), or the public parts of the outputs are byte for byte equal —
 *     the same refusal and wake-up, and for every output whose event is
 *     ENG_VIEW_PUBLIC its def, seat, at_us and the slots of its PUBLIC
 *     fields (eng_fields_offset, eng_field_slots) — and so are the public
 *     views after it.
 * A framework void (ENG_IN_VOID) rebuilds a state from the set-up and the
 * seed (engine/log.h), which undoes the perturbation: a shadow stops
 * there, as it has nothing left to show.
 *
 * And statically, on every state: every top-level key of every audience's
 * view walk (public, each seat, referee) is declared in game->view, and
 * once; the public walk emits no member declared seat or referee; a seat's
 * walk no member declared referee; no walk a member declared runtime.
 *
 * Nothing here knows a game's rules beyond the per-game driver table: a
 * new game in eng_games is checked by the generic player as it is. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/crash_pilot.h"
#include "engine/crazy_pilot.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "engine/pitch_fleet.h"
#include "engine/rng.h"
#include "tests/games/reflex.h"
#include "test_engine_json.h"

#define MS                      INT64_C(1000)
/* Random matches per game, and the inputs after which one is given up
 * (a random player may well never finish some games). */
#define GENERIC_MATCHES         150
#define GENERIC_LIMIT           600
#define STATIC_MATCHES          60
#define SIM_MATCHES             80
/* Perturbed copies followed at a time, and for how many inputs. */
#define MAX_SHADOWS             4
#define SHADOW_STEPS            24
/* Matches start at 1000 s; the judge decides a settle window after the
 * first press (JUDGE_DEFAULT_SETTLE_US). */
#define T0_US                   INT64_C(1000000000)
#define SETTLE_US               2500
/* The largest pad button (docs/protocol.md section 7). */
#define PAD_BUTTON_MAX          15
/* Bytes of a view shown before the first difference. */
#define VIEW_CONTEXT            40
/* Top-level members one view may have. */
#define MAX_KEYS                64
/* A random integer in a range wider than this is drawn near its low end
 * half of the time: uniform draws over 2^60 µs are not what tables do. */
#define NARROW_SPAN             1000
#define PERCENT                 100

/* ---- Rendering a view and collecting its top-level keys. */

struct walk_rec {
        struct tj j;                    /* first: the tj_* callbacks take it */
        int depth;
        size_t n_keys;
        char keys[MAX_KEYS][ENG_FIELD_MAX];
        bool overflow;
};

static void note_key(struct walk_rec *w, const char *key) {
        if (w->depth != 0 || !key)
                return;
        if (w->n_keys == MAX_KEYS) {
                w->overflow = true;
                return;
        }
        snprintf(w->keys[w->n_keys++], ENG_FIELD_MAX, "%s", key);
}

static int rec_object_begin(void *ctx, const char *key) {
        struct walk_rec *w = ctx;

        note_key(w, key);
        w->depth++;
        return tj_object_begin(&w->j, key);
}

static int rec_array_begin(void *ctx, const char *key) {
        struct walk_rec *w = ctx;

        note_key(w, key);
        w->depth++;
        return tj_array_begin(&w->j, key);
}

static int rec_object_end(void *ctx) {
        struct walk_rec *w = ctx;

        w->depth--;
        return tj_object_end(&w->j);
}

static int rec_array_end(void *ctx) {
        struct walk_rec *w = ctx;

        w->depth--;
        return tj_array_end(&w->j);
}

static int rec_integer(void *ctx, const char *key, int64_t value) {
        note_key(ctx, key);
        return tj_integer(&((struct walk_rec *) ctx)->j, key, value);
}

static int rec_boolean(void *ctx, const char *key, bool value) {
        note_key(ctx, key);
        return tj_boolean(&((struct walk_rec *) ctx)->j, key, value);
}

static int rec_string(void *ctx, const char *key, const char *value) {
        note_key(ctx, key);
        return tj_string(&((struct walk_rec *) ctx)->j, key, value);
}

static int rec_null(void *ctx, const char *key) {
        note_key(ctx, key);
        return tj_null(&((struct walk_rec *) ctx)->j, key);
}

static const struct eng_visitor rec_visitor = {
        .object_begin = rec_object_begin,
        .object_end = rec_object_end,
        .array_begin = rec_array_begin,
        .array_end = rec_array_end,
        .integer = rec_integer,
        .boolean = rec_boolean,
        .string = rec_string,
        .null = rec_null,
};

/* Walks one audience's view of state into w: 0, or the walk's error. */
static int walk_view(const struct eng_game *g, const void *state, enum eng_audience a, int seat,
                     struct walk_rec *w) {
        int r;

        tj_init(&w->j);
        w->depth = 0;
        w->n_keys = 0;
        w->overflow = false;
        r = g->view_visit(state, a, seat, &rec_visitor, w);
        if (r >= 0 && (w->depth != 0 || !tj_balanced(&w->j)))
                r = -EPROTO;
        tj_finish(&w->j);
        return r;
}

/* ---- Comparing the public parts of two answers. */

static bool has_reveal(const struct eng_out *out) {
        for (size_t i = 0; i < out->n; i++)
                if (out->v[i].def->reveals)
                        return true;
        return false;
}

/* The next output at or after *i whose event is public, or NULL. */
static const struct eng_output *next_public(const struct eng_out *out, size_t *i) {
        for (; *i < out->n; (*i)++)
                if (out->v[*i].def->audience == ENG_VIEW_PUBLIC)
                        return &out->v[(*i)++];
        return NULL;
}

/* 0 when the public parts of a and b are equal; else -1 with why. */
static int compare_public_outputs(const struct eng_out *a, const struct eng_out *b, char *why, size_t len) {
        size_t i = 0, j = 0, k = 0;

        if (a->refusal != b->refusal) {
                snprintf(why, len, "refusals differ: %s and %s", eng_refusal_name(a->refusal),
                         eng_refusal_name(b->refusal));
                return -1;
        }
        if (a->wake_us != b->wake_us) {
                snprintf(why, len, "wake-ups differ: %lld and %lld", (long long) a->wake_us, (long long) b->wake_us);
                return -1;
        }
        for (;; k++) {
                const struct eng_output *x = next_public(a, &i), *y = next_public(b, &j);
                const struct eng_event_def *d;

                if (!x || !y) {
                        if (x || y) {
                                snprintf(why, len, "public output %zu is %s against nothing", k,
                                         (x ? x : y)->def->name);
                                return -1;
                        }
                        return 0;
                }
                d = x->def;
                if (d != y->def || x->seat != y->seat || x->at_us != y->at_us) {
                        snprintf(why, len, "public output %zu: %s (seat %d, at %lld) against %s (seat %d, at %lld)",
                                 k, d->name, x->seat, (long long) x->at_us, y->def->name, y->seat,
                                 (long long) y->at_us);
                        return -1;
                }
                for (size_t f = 0; f < d->n_fields; f++) {
                        int off;
                        size_t slots;

                        if (d->fields[f].audience != ENG_VIEW_PUBLIC)
                                continue;
                        off = eng_fields_offset(d->fields, d->n_fields, d->fields[f].name);
                        slots = eng_field_slots(&d->fields[f]);
                        if (off < 0 || (size_t) off + slots > ENG_MAX_VALUES) {
                                snprintf(why, len, "%s.%s does not fit an output", d->name, d->fields[f].name);
                                return -1;
                        }
                        for (size_t s = 0; s < slots; s++)
                                if (x->v[off + s] != y->v[off + s]) {
                                        snprintf(why, len, "public output %zu: %s.%s differs in its slot %zu (%lld "
                                                 "against %lld)", k, d->name, d->fields[f].name, s,
                                                 (long long) x->v[off + s], (long long) y->v[off + s]);
                                        return -1;
                                }
                }
        }
}

/* ---- The checker. */

typedef int (*apply_fn)(void *ctx, void *state, const struct eng_input *in, struct eng_out *out);

struct shadow {
        bool live;
        unsigned steps;
        void *state;
};

/* What was checked, so that a test can tell it checked something. */
struct counts {
        size_t states, perturbed, nothing_hidden, compared, reveals, voids, static_walks;
};

struct audit {
        const struct eng_game *g;
        unsigned n_seats;
        bool static_only;               /* the view keys only, no perturbation */
        struct eng_rng salts;
        struct shadow sh[MAX_SHADOWS];
        struct walk_rec *w1, *w2;
        struct eng_out *sout;
        struct counts c;
        /* For messages: which match, which input. */
        const char *driver;
        uint64_t seed;
        size_t step;
};

static void audit_open(struct audit *a, const struct eng_game *g, unsigned n_seats, uint64_t seed,
                       const char *driver) {
        memset(a, 0, sizeof *a);
        a->g = g;
        a->n_seats = n_seats;
        a->seed = seed;
        a->driver = driver;
        eng_rng_seed(&a->salts, seed ^ UINT64_C(0x5a17));
        a->w1 = malloc(sizeof *a->w1);
        a->w2 = malloc(sizeof *a->w2);
        a->sout = malloc(sizeof *a->sout);
        assert_non_null(a->w1);
        assert_non_null(a->w2);
        assert_non_null(a->sout);
        for (size_t i = 0; i < MAX_SHADOWS; i++) {
                a->sh[i].state = malloc(g->state_size);
                assert_non_null(a->sh[i].state);
        }
}

static void audit_close(struct audit *a, struct counts *total) {
        for (size_t i = 0; i < MAX_SHADOWS; i++)
                free(a->sh[i].state);
        free(a->w1);
        free(a->w2);
        free(a->sout);
        total->states += a->c.states;
        total->perturbed += a->c.perturbed;
        total->nothing_hidden += a->c.nothing_hidden;
        total->compared += a->c.compared;
        total->reveals += a->c.reveals;
        total->voids += a->c.voids;
        total->static_walks += a->c.static_walks;
}

#define AUDIT_FAIL(a, ...) do { \
        char msg_[512]; \
        snprintf(msg_, sizeof msg_, __VA_ARGS__); \
        fail_msg("%s (%s driver, seed %llu, %u seats, input %zu): %s", (a)->g->name, (a)->driver, \
                 (unsigned long long) (a)->seed, (a)->n_seats, (a)->step, msg_); \
} while (0)

/* The top-level members of one walk against game->view. */
static void check_keys(struct audit *a, enum eng_audience aud, int seat, const struct walk_rec *w) {
        const struct eng_game *g = a->g;

        if (w->overflow)
                AUDIT_FAIL(a, "the %s view has more than %d members", eng_audience_name(aud), MAX_KEYS);
        for (size_t k = 0; k < w->n_keys; k++) {
                const struct eng_field *f = eng_fields_find(g->view, g->n_view, w->keys[k]);

                if (!f)
                        AUDIT_FAIL(a, "the %s view (seat %d) emits \"%s\", which .view does not declare",
                                   eng_audience_name(aud), seat, w->keys[k]);
                if (aud == ENG_VIEW_PUBLIC && f->audience != ENG_VIEW_PUBLIC)
                        AUDIT_FAIL(a, "the public view emits \"%s\", declared %s", w->keys[k],
                                   eng_audience_name(f->audience));
                if (aud == ENG_VIEW_SEAT && f->audience != ENG_VIEW_PUBLIC && f->audience != ENG_VIEW_SEAT)
                        AUDIT_FAIL(a, "seat %d's view emits \"%s\", declared %s", seat, w->keys[k],
                                   eng_audience_name(f->audience));
                if (f->audience == ENG_VIEW_RUNTIME)
                        AUDIT_FAIL(a, "the %s view emits \"%s\", declared runtime", eng_audience_name(aud),
                                   w->keys[k]);
                for (size_t o = 0; o < k; o++)
                        if (strcmp(w->keys[o], w->keys[k]) == 0)
                                AUDIT_FAIL(a, "the %s view emits \"%s\" twice", eng_audience_name(aud), w->keys[k]);
        }
}

static void check_view_keys(struct audit *a, const void *state) {
        int r;

        r = walk_view(a->g, state, ENG_VIEW_PUBLIC, ENG_SEAT_TABLE, a->w1);
        if (r < 0)
                AUDIT_FAIL(a, "the public view walk fails (%d)", r);
        check_keys(a, ENG_VIEW_PUBLIC, ENG_SEAT_TABLE, a->w1);
        for (unsigned s = 0; s < a->n_seats; s++) {
                r = walk_view(a->g, state, ENG_VIEW_SEAT, (int) s, a->w1);
                if (r < 0)
                        AUDIT_FAIL(a, "seat %u's view walk fails (%d)", s, r);
                check_keys(a, ENG_VIEW_SEAT, (int) s, a->w1);
        }
        r = walk_view(a->g, state, ENG_VIEW_REFEREE, ENG_SEAT_TABLE, a->w1);
        if (r < 0)
                AUDIT_FAIL(a, "the referee view walk fails (%d)", r);
        check_keys(a, ENG_VIEW_REFEREE, ENG_SEAT_TABLE, a->w1);
        a->c.static_walks += a->n_seats + 2;
}

static void compare_public_views(struct audit *a, const void *x, const void *y, const char *when) {
        if (walk_view(a->g, x, ENG_VIEW_PUBLIC, ENG_SEAT_TABLE, a->w1) < 0 ||
            walk_view(a->g, y, ENG_VIEW_PUBLIC, ENG_SEAT_TABLE, a->w2) < 0)
                AUDIT_FAIL(a, "a public view walk fails %s", when);
        if (strcmp(a->w1->j.buf, a->w2->j.buf) != 0) {
                const char *p = a->w1->j.buf, *q = a->w2->j.buf;
                size_t at = 0;

                while (p[at] == q[at])
                        at++;
                /* Where they part, with some context before it. */
                at = at > VIEW_CONTEXT ? at - VIEW_CONTEXT : 0;
                AUDIT_FAIL(a, "%s, the public views differ at byte %zu:\n  …%.100s\n  …%.100s", when, at, p + at,
                           q + at);
        }
}

/* state is the match before its next input: checks its views, and starts
 * a shadow from a perturbed copy when one is free. */
static void audit_state(struct audit *a, const void *state) {
        struct shadow *free_sh = NULL;
        int r;

        a->c.states++;
        check_view_keys(a, state);
        if (a->static_only || !a->g->perturb_hidden)
                return;
        for (size_t i = 0; i < MAX_SHADOWS && !free_sh; i++)
                if (!a->sh[i].live)
                        free_sh = &a->sh[i];
        if (!free_sh)
                return;
        memcpy(free_sh->state, state, a->g->state_size);
        r = a->g->perturb_hidden(free_sh->state, eng_rng_next(&a->salts));
        if (r == -EAGAIN) {
                a->c.nothing_hidden++;
                return;
        }
        if (r < 0)
                AUDIT_FAIL(a, "perturb_hidden fails (%d)", r);
        a->c.perturbed++;
        compare_public_views(a, state, free_sh->state, "once the hidden cards are perturbed");
        free_sh->live = true;
        free_sh->steps = 0;
}

/* The names of out's outputs, for messages. */
static void output_names(const struct eng_out *out, char *buf, size_t len) {
        size_t at = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < out->n && at < len; i++) {
                int n = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", out->v[i].def->name);

                if (n < 0)
                        break;
                at += (size_t) n;
        }
}

/* in was applied to the match, which answered out and is now state:
 * every shadow takes it too (through apply, as the match did). */
static void audit_input(struct audit *a, const struct eng_input *in, const struct eng_out *out,
                        const void *state, apply_fn apply, void *apply_ctx) {
        char why[256];
        int r;

        for (size_t i = 0; i < MAX_SHADOWS; i++) {
                struct shadow *sh = &a->sh[i];

                if (!sh->live)
                        continue;
                if (in->kind == ENG_IN_VOID) {
                        /* Rebuilt from the seed: the perturbation is gone. */
                        a->c.voids++;
                        sh->live = false;
                        continue;
                }
                r = apply(apply_ctx, sh->state, in, a->sout);
                if (r < 0)
                        AUDIT_FAIL(a, "the perturbed copy fails %s (%d)", eng_input_kind_name(in->kind), r);
                a->c.compared++;
                if (has_reveal(out) || has_reveal(a->sout)) {
                        a->c.reveals++;
                        sh->live = false;
                        continue;
                }
                if (compare_public_outputs(out, a->sout, why, sizeof why) < 0)
                        AUDIT_FAIL(a, "%s, %u inputs after the perturbation: %s", eng_input_kind_name(in->kind),
                                   sh->steps, why);
                if (walk_view(a->g, state, ENG_VIEW_PUBLIC, ENG_SEAT_TABLE, a->w1) < 0 ||
                    walk_view(a->g, sh->state, ENG_VIEW_PUBLIC, ENG_SEAT_TABLE, a->w2) < 0 ||
                    strcmp(a->w1->j.buf, a->w2->j.buf) != 0) {
                        char names[200];

                        output_names(out, names, sizeof names);
                        snprintf(why, sizeof why, "after %s (%s: %s)", eng_input_kind_name(in->kind),
                                 eng_refusal_name(out->refusal), names);
                        compare_public_views(a, state, sh->state, why);
                }
                if (++sh->steps >= SHADOW_STEPS)
                        sh->live = false;
        }
        a->step++;
}

/* ======================================================================
 * The generic random player: a table as the runtime sees it, playing a
 * game from nothing but its definition tables.
 * ====================================================================== */

struct player {
        const struct eng_game *g;
        struct eng_config cfg;
        struct eng_setup setup;
        void *state;
        struct eng_out out;
        struct eng_record *log;
        size_t n;
        uint64_t seq;
        int64_t now;
        struct eng_rng rng;
        /* The judge's window, from the requests (match/submit.c does the
         * same). */
        bool window_open;
        int64_t window, window_at;
        uint32_t window_seats;
};

static int64_t below(struct player *p, uint64_t n) {
        return (int64_t) eng_rng_below(&p->rng, n);
}

static bool chance(struct player *p, unsigned pct) {
        return eng_rng_below(&p->rng, PERCENT) < pct;
}

static int64_t in_range(struct eng_rng *rng, int64_t lo, int64_t hi) {
        uint64_t span = (uint64_t) hi - (uint64_t) lo;

        if (hi <= lo)
                return lo;
        if (span > NARROW_SPAN && eng_rng_below(rng, 2))
                span = NARROW_SPAN;
        return (int64_t) ((uint64_t) lo + (span == UINT64_MAX ? eng_rng_next(rng) : eng_rng_below(rng, span + 1)));
}

/* One of the game's calls (or 0 when it has none). */
static int64_t random_call(struct player *p) {
        int64_t named[256];
        size_t n = 0;

        for (size_t c = 0; c < p->g->n_calls && n < 256; c++)
                if (p->g->calls[c])
                        named[n++] = (int64_t) c;
        return n ? named[below(p, n)] : 0;
}

/* A value for one field: mostly one that makes sense at this table,
 * sometimes not. */
static int64_t random_one(struct player *p, const struct eng_field *f) {
        switch (f->type) {
        case ENG_T_SEAT:
                return chance(p, 10) ? in_range(&p->rng, -1, ENG_MAX_SEATS - 1) : below(p, p->setup.n_seats);
        case ENG_T_SEATS:
                return below(p, UINT64_C(1) << p->setup.n_seats);
        case ENG_T_BITS:
                return below(p, UINT64_C(1) << 16);
        case ENG_T_BOOL:
                return below(p, 2);
        case ENG_T_ENUM:
                return in_range(&p->rng, f->min, f->max + (chance(p, 10) ? 1 : 0));
        case ENG_T_CALL:
                return random_call(p);
        case ENG_T_TIME:
                return p->now - below(p, 1000 * MS);
        case ENG_T_SEQ:
                return 1 + below(p, p->seq + 1);
        case ENG_T_HANDLE:
        case ENG_T_CARD:
                return (int64_t) (uint32_t) eng_rng_next(&p->rng);
        default:
                return in_range(&p->rng, f->min, f->max);
        }
}

/* Fills the slots of fields f[0..n) from v, at most room slots. */
static void random_fields(struct player *p, const struct eng_field *f, size_t n, int64_t *v, size_t room) {
        for (size_t i = 0; i < n; i++) {
                size_t slots = eng_field_slots(&f[i]);

                if (slots > room)
                        return;
                memset(v, 0, slots * sizeof *v);
                if (f[i].type == ENG_T_RECORDS) {
                        size_t rec = eng_fields_slots(f[i].fields, f[i].n_fields);

                        v[0] = below(p, f[i].max_count + 1);
                        for (int64_t k = 0; k < v[0]; k++)
                                random_fields(p, f[i].fields, f[i].n_fields, v + 1 + (size_t) k * rec, rec);
                } else if (f[i].max_count) {
                        v[0] = below(p, f[i].max_count + 1);
                        for (int64_t k = 0; k < v[0]; k++)
                                v[1 + k] = random_one(p, &f[i]);
                } else if (f[i].type != ENG_T_PLACES) {
                        v[0] = f[i].optional && chance(p, 10) ? f[i].def : random_one(p, &f[i]);
                }
                v += slots;
                room -= slots;
        }
}

/* A random but valid configuration a quarter of the time the defaults. */
static void random_config(struct player *p) {
        struct eng_config cfg;
        size_t at = 0;

        eng_config_defaults(p->g, &p->cfg);
        if (chance(p, 25))
                return;
        cfg = p->cfg;
        for (size_t i = 0; i < p->g->n_params; i++) {
                const struct eng_field *f = &p->g->params[i];
                size_t slots = eng_field_slots(f);

                if (at + slots > ENG_MAX_CONFIG_SLOTS)
                        break;
                if (chance(p, 50)) {
                        if (f->max_count) {
                                cfg.v[at] = below(p, f->max_count + 1);
                                for (int64_t k = 0; f->type != ENG_T_RECORDS && k < cfg.v[at]; k++)
                                        cfg.v[at + 1 + (size_t) k] = in_range(&p->rng, f->min, f->max);
                                if (f->type == ENG_T_RECORDS)
                                        cfg.v[at] = 0;
                        } else if (f->type != ENG_T_PLACES) {
                                cfg.v[at] = in_range(&p->rng, f->min, f->max);
                        }
                }
                at += slots;
        }
        if (eng_config_validate(p->g, &cfg, NULL, p->setup.n_seats, NULL) == 0)
                p->cfg = cfg;
}

static void note_requests(struct player *p) {
        for (size_t i = 0; i < p->out.n; i++) {
                const struct eng_output *o = &p->out.v[i];

                if (o->def == &eng_req_window_open) {
                        p->window_open = true;
                        p->window = o->window.window;
                        p->window_at = o->at_us;
                        p->window_seats = (uint32_t) o->window.seats;
                } else if (o->def == &eng_req_window_close && o->window.window == p->window) {
                        p->window_open = false;
                }
        }
}

/* A press of a random PRESS route (or any pad, when the game takes
 * presses without a route). */
static void random_press(struct player *p, struct eng_input *in) {
        const struct eng_route *routes[32];
        size_t n = 0;

        for (size_t i = 0; i < p->g->n_routes && n < 32; i++)
                if (p->g->routes[i].kind == ENG_ROUTE_PRESS)
                        routes[n++] = &p->g->routes[i];
        in->kind = ENG_IN_PRESS;
        in->seat = (int) below(p, p->setup.n_seats);
        if (n) {
                const struct eng_route *r = routes[below(p, n)];

                in->press.role = r->role;
                in->press.button = r->button == ENG_ANY_BUTTON ? below(p, PAD_BUTTON_MAX + 1) : r->button;
        } else {
                in->press.role = in_range(&p->rng, ENG_ROLE_BUTTONS, ENG_ROLE_KEYPAD);
                in->press.button = below(p, PAD_BUTTON_MAX + 1);
        }
        in->press.press_us = p->now - below(p, 300 * MS);
        in->press.received_us = in->press.press_us;
}

static bool takes(const struct eng_game *g, enum eng_input_kind k) {
        return g->builtins & (1u << k);
}

/* The next input a lively table would send. */
static void random_input(struct player *p, struct eng_input *in) {
        const struct eng_game *g = p->g;
        enum eng_status status = g->status(p->state);
        int64_t wake = g->wake_us(p->state);
        unsigned d = (unsigned) below(p, PERCENT);

        memset(in, 0, sizeof *in);
        in->seat = ENG_SEAT_TABLE;
        p->now += below(p, 50 * MS);
        if (eng_log_phase(&p->setup, p->state, p->log, p->n) == ENG_LOG_PROVISIONAL && chance(p, 50)) {
                in->kind = ENG_IN_CONFIRM;
        } else if (status == ENG_STATUS_READY && d < 90) {
                in->kind = ENG_IN_START;
        } else if (wake != ENG_NEVER && d < 30) {
                in->kind = ENG_IN_TIMER;
                if (p->now < wake)
                        p->now = wake;
        } else if (p->window_open && takes(g, ENG_IN_CALL) && d < 55) {
                int seats[ENG_MAX_SEATS], n = 0;

                for (int s = 0; s < ENG_MAX_SEATS; s++)
                        if (p->window_seats & (UINT32_C(1) << s))
                                seats[n++] = s;
                in->kind = ENG_IN_CALL;
                in->seat = n ? seats[below(p, (uint64_t) n)] : 0;
                in->call.window = p->window;
                in->call.call = random_call(p);
                in->call.press_us = p->window_at + below(p, 800 * MS);
                if (p->now < in->call.press_us + SETTLE_US)
                        p->now = in->call.press_us + SETTLE_US;
        } else if (p->window_open && takes(g, ENG_IN_TIE) && d < 62 && __builtin_popcount(p->window_seats) >= 2) {
                uint32_t seats = 0;

                while (__builtin_popcount(seats) < 2)
                        seats |= p->window_seats & (UINT32_C(1) << below(p, ENG_MAX_SEATS));
                in->kind = ENG_IN_TIE;
                in->tie.window = p->window;
                in->tie.seats = seats;
                in->tie.press_us = p->window_at + below(p, 800 * MS);
                if (p->now < in->tie.press_us + SETTLE_US)
                        p->now = in->tie.press_us + SETTLE_US;
        } else if (takes(g, ENG_IN_PRESS) && d < 72) {
                random_press(p, in);
        } else if (d < 77) {
                in->kind = status == ENG_STATUS_PAUSED ? ENG_IN_RESUME : ENG_IN_PAUSE;
        } else if (g->n_actions && d < 84) {
                const struct eng_input_def *def = &g->actions[below(p, g->n_actions)];

                in->kind = ENG_IN_ACTION;
                in->action = (unsigned) (def - g->actions);
                in->seat = def->seated ? (int) below(p, p->setup.n_seats) : ENG_SEAT_TABLE;
                random_fields(p, def->fields, def->n_fields, in->arg, ENG_MAX_ARGS);
        } else if (d < 87 && p->seq) {
                in->kind = ENG_IN_VOID;
                in->void_.target = 1 + below(p, p->seq);
        } else {
                /* Junk: any kind, any seat, small arguments. */
                in->kind = (enum eng_input_kind) in_range(&p->rng, ENG_IN_START, ENG_IN_KINDS_END);
                in->action = (unsigned) below(p, g->n_actions + 1);
                in->seat = (int) in_range(&p->rng, -1, p->setup.n_seats);
                for (size_t i = 0; i < 8; i++)
                        in->arg[i] = in_range(&p->rng, -2, 5);
        }
        in->seq = ++p->seq;
        in->time_us = p->now;
}

struct logged {
        const struct eng_setup *setup;
        const struct eng_record *log;
        size_t n;
};

static int logged_apply(void *ctx, void *state, const struct eng_input *in, struct eng_out *out) {
        const struct logged *l = ctx;

        return eng_log_apply(l->setup, state, l->log, l->n, in, out);
}

typedef void (*config_fn)(struct player *p);
typedef void (*input_fn)(struct player *p, struct eng_input *in);

/* One random match of g through the log (eng_log_apply), as the runtime
 * plays it: configure picks the settings, next each input; every state
 * is audited. */
static void logged_match(const struct eng_game *g, uint64_t seed, bool static_only, const char *driver,
                         config_fn configure, input_fn next, struct counts *total) {
        struct player p;
        struct audit a;
        struct eng_rng pick;

        memset(&p, 0, sizeof p);
        p.g = g;
        eng_rng_seed(&p.rng, seed);
        eng_rng_seed(&pick, seed * 3 + 1);
        p.setup.game = g;
        p.setup.cfg = &p.cfg;
        p.setup.n_seats = g->min_seats + (unsigned) eng_rng_below(&pick, g->max_seats - g->min_seats + 1);
        p.setup.seed = eng_rng_next(&pick);
        p.setup.confirm = eng_rng_below(&pick, 2);
        configure(&p);
        p.state = malloc(g->state_size);
        p.log = malloc(GENERIC_LIMIT * sizeof *p.log);
        assert_non_null(p.state);
        assert_non_null(p.log);
        p.now = T0_US;
        assert_int_equal(g->create(p.state, &p.cfg, NULL, p.setup.n_seats, p.setup.seed), 0);
        audit_open(&a, g, p.setup.n_seats, seed, driver);
        a.static_only = static_only;

        while (p.n < GENERIC_LIMIT && eng_log_phase(&p.setup, p.state, p.log, p.n) != ENG_LOG_FINAL) {
                struct logged l = { .setup = &p.setup, .log = p.log, .n = p.n };
                struct eng_input in;

                audit_state(&a, p.state);
                next(&p, &in);
                assert_int_equal(eng_log_apply(&p.setup, p.state, p.log, p.n, &in, &p.out), 0);
                audit_input(&a, &in, &p.out, p.state, logged_apply, &l);
                p.log[p.n] = (struct eng_record) { .in = in, .refusal = p.out.refusal };
                if (in.kind == ENG_IN_VOID && p.out.refusal == ENG_ACCEPTED) {
                        eng_log_mark_voided(p.log, p.n);
                        /* The voided inputs' window is gone (match/submit.c). */
                        p.window_open = false;
                }
                p.n++;
                note_requests(&p);
        }
        check_view_keys(&a, p.state);
        audit_close(&a, total);
        free(p.log);
        free(p.state);
}

static void generic_match(const struct eng_game *g, uint64_t seed, bool static_only, struct counts *total) {
        logged_match(g, seed, static_only, "generic", random_config, random_input, total);
}

/* ======================================================================
 * Per-game drivers: games with a simulation of their own.
 * ====================================================================== */

/* Crash Pilot's simulated table (cp_sim_match): realistic calls, ties,
 * expiries, late calls, void_calls, pauses and junk.  The hook sees each
 * input after it was applied, so the state before it is kept here. */
struct cp_run {
        struct audit *a;
        struct cp_state prev;
};

static int plain_apply(void *ctx, void *state, const struct eng_input *in, struct eng_out *out) {
        const struct eng_game *g = ctx;

        return g->apply(state, in, out);
}

static int cp_step(void *ctx, const struct cp_state *st, const struct eng_input *in, const struct eng_out *out) {
        struct cp_run *run = ctx;

        audit_state(run->a, &run->prev);
        audit_input(run->a, in, out, st, plain_apply, (void *) &cp_game);
        run->prev = *st;
        return 0;
}

static void cp_driver(uint64_t seed, struct counts *total) {
        struct eng_rng pick;
        struct cp_sim_params params;
        struct eng_config cfg;
        struct cp_run *run = malloc(sizeof *run);
        struct cp_state *st = malloc(sizeof *st);
        struct audit a;
        unsigned n_seats;
        uint64_t match_seed;

        assert_non_null(run);
        assert_non_null(st);
        eng_rng_seed(&pick, seed);
        n_seats = cp_game.min_seats + (unsigned) eng_rng_below(&pick, cp_game.max_seats - cp_game.min_seats + 1);
        match_seed = eng_rng_next(&pick);
        eng_config_defaults(&cp_game, &cfg);
        /* Half the matches reveal at once after a verdict, half pause. */
        if (eng_rng_below(&pick, 2))
                assert_int_equal(eng_config_set(&cp_game, &cfg, "reveal.pause_ms", 0, NULL), 0);
        cp_sim_params_default(&params);
        params.void_pct = 10;
        params.pause_pct = 5;
        audit_open(&a, &cp_game, n_seats, seed, "cp_sim_match");
        run->a = &a;
        /* cp_sim_match creates the match the same way first. */
        assert_int_equal(cp_game.create(&run->prev, &cfg, NULL, n_seats, match_seed), 0);
        assert_int_equal(cp_sim_match(st, &cfg, n_seats, match_seed, seed, &params, NULL, 0, cp_step, run, NULL), 0);
        check_view_keys(&a, st);
        audit_close(&a, total);
        free(st);
        free(run);
}

/* Crazy Pilot's simulated table (cz_sim_match): every seat plays its own
 * pile at once, shouts (falsely too), slap races with missing slappers,
 * Driiiiive by the shouter, a referee or the time running out; two
 * players send and cover cards. */
struct cz_run {
        struct audit *a;
        struct cz_state prev;
};

static int cz_step(void *ctx, const struct cz_state *st, const struct eng_input *in, const struct eng_out *out) {
        struct cz_run *run = ctx;

        audit_state(run->a, &run->prev);
        audit_input(run->a, in, out, st, plain_apply, (void *) &cz_game);
        run->prev = *st;
        return 0;
}

static void cz_driver(uint64_t seed, struct counts *total) {
        struct eng_rng pick;
        struct cz_sim_params params;
        struct eng_config cfg;
        struct cz_run *run = malloc(sizeof *run);
        struct cz_state *st = malloc(sizeof *st);
        struct audit a;
        unsigned n_seats;
        uint64_t match_seed;

        assert_non_null(run);
        assert_non_null(st);
        eng_rng_seed(&pick, seed);
        n_seats = cz_game.min_seats + (unsigned) eng_rng_below(&pick, cz_game.max_seats - cz_game.min_seats + 1);
        match_seed = eng_rng_next(&pick);
        eng_config_defaults(&cz_game, &cfg);
        cfg.v[CZ_SLOT_FORK_TURNS] = (int64_t) eng_rng_below(&pick, 2);
        cz_sim_params_default(&params);
        audit_open(&a, &cz_game, n_seats, seed, "cz_sim_match");
        run->a = &a;
        /* cz_sim_match creates the match the same way first. */
        assert_int_equal(cz_game.create(&run->prev, &cfg, NULL, n_seats, match_seed), 0);
        assert_int_equal(cz_sim_match(st, &cfg, n_seats, match_seed, seed, &params, NULL, 0, cz_step, run, NULL), 0);
        check_view_keys(&a, st);
        audit_close(&a, total);
        free(st);
        free(run);
}

/* Pitch Fleet's random legal referee (pf_sim_match): whole races of 2 to
 * 6 players (advanced cards off, mixed or only) with charging draws used
 * and kept, restarts, fouls and refused reports, and solo games. */
struct pf_run {
        struct audit *a;
        struct pf_state prev;
};

static int pf_step(void *ctx, const struct pf_state *st, const struct eng_input *in, const struct eng_out *out) {
        struct pf_run *run = ctx;

        audit_state(run->a, &run->prev);
        audit_input(run->a, in, out, st, plain_apply, (void *) &pf_game);
        run->prev = *st;
        return 0;
}

static void pf_driver(uint64_t seed, struct counts *total) {
        struct eng_rng pick;
        struct pf_sim_params params;
        struct eng_config cfg;
        struct pf_run *run = malloc(sizeof *run);
        struct pf_state *st = malloc(sizeof *st);
        struct audit a;
        unsigned n_seats;
        uint64_t match_seed;

        assert_non_null(run);
        assert_non_null(st);
        eng_rng_seed(&pick, seed);
        n_seats = pf_game.min_seats + (unsigned) eng_rng_below(&pick, pf_game.max_seats - pf_game.min_seats + 1);
        match_seed = eng_rng_next(&pick);
        eng_config_defaults(&pf_game, &cfg);
        cfg.v[PF_SLOT_ADVANCED] = (int64_t) eng_rng_below(&pick, PF_ADVANCED_ONLY + 1);
        pf_sim_params_default(&params);
        audit_open(&a, &pf_game, n_seats, seed, "pf_sim_match");
        run->a = &a;
        /* pf_sim_match creates the match the same way first. */
        assert_int_equal(pf_game.create(&run->prev, &cfg, NULL, n_seats, match_seed), 0);
        assert_int_equal(pf_sim_match(st, &cfg, n_seats, match_seed, seed, &params, NULL, 0, pf_step, run, NULL), 0);
        check_view_keys(&a, st);
        audit_close(&a, total);
        free(st);
        free(run);
}

/* Reflex Duel (tests/games/reflex.h) played as a table would: long
 * matches (up to 20 points, many ties and false starts, rare ends), so
 * that decks run out and are reshuffled, with pauses, timeouts, awards and
 * voids. */
static void rx_config(struct player *p) {
        struct eng_config *cfg = &p->cfg;

        eng_config_defaults(&rx_game, cfg);
        cfg->v[RX_SLOT_TARGET] = in_range(&p->rng, 5, RX_TARGET_MAX);
        cfg->v[RX_SLOT_MODE] = in_range(&p->rng, RX_MODE_JUDGED, RX_MODE_TIMED);
        cfg->v[RX_SLOT_DELAY_MIN] = in_range(&p->rng, 0, 1000);
        cfg->v[RX_SLOT_DELAY_MAX] = cfg->v[RX_SLOT_DELAY_MIN] + in_range(&p->rng, 0, 1000);
        cfg->v[RX_SLOT_BONUS] = in_range(&p->rng, 0, RX_MAX_BONUS);
        for (int64_t k = 0; k < cfg->v[RX_SLOT_BONUS]; k++)
                cfg->v[RX_SLOT_BONUS + 1 + k] = in_range(&p->rng, RX_BONUS_MIN, RX_BONUS_MAX);
        assert_int_equal(eng_config_validate(&rx_game, cfg, NULL, p->setup.n_seats, NULL), 0);
}

static void rx_input(struct player *p, struct eng_input *in) {
        const struct rx_state *st = p->state;
        unsigned d = (unsigned) below(p, PERCENT);
        int seat = (int) below(p, st->n_seats);

        memset(in, 0, sizeof *in);
        in->seat = ENG_SEAT_TABLE;
        p->now += below(p, 50 * MS);
        if (eng_log_phase(&p->setup, st, p->log, p->n) == ENG_LOG_PROVISIONAL && chance(p, 50)) {
                in->kind = ENG_IN_CONFIRM;
        } else if (st->phase == RX_PHASE_READY) {
                in->kind = ENG_IN_START;
        } else if (d < 2 && p->seq) {
                in->kind = ENG_IN_VOID;
                in->void_.target = 1 + below(p, p->seq);
        } else if (d < 5) {
                in->kind = st->op_paused ? ENG_IN_RESUME : ENG_IN_PAUSE;
        } else if (d < 8 || (d < 20 && st->mode == RX_MODE_TIMED)) {
                in->kind = ENG_IN_PRESS;
                in->seat = seat;
                in->press.role = d < 8 ? ENG_ROLE_SLAP : ENG_ROLE_BUTTONS;
                in->press.button = d < 8 ? 0 : RX_BUTTON_PRESS;
                in->press.press_us = p->now - below(p, 300 * MS);
        } else if (d < 10) {
                in->kind = ENG_IN_ACTION;
                in->action = RX_ACTION_PLAY_ON;
        } else if (d < 14) {
                in->kind = ENG_IN_ACTION;
                in->action = RX_ACTION_AWARD;
                in->arg[RX_AWARD_TO] = 1;
                in->arg[RX_AWARD_TO + 1] = seat;
                in->arg[RX_AWARD_POINTS] = chance(p, 50) ? -2 : 1;
                in->arg[RX_AWARD_CATEGORY] = below(p, RX_REASON_CORRECTION + 1);
        } else if (d < 15 && chance(p, 30)) {
                in->kind = ENG_IN_ACTION;
                in->action = chance(p, 50) ? RX_ACTION_END : RX_ACTION_CONCEDE;
                in->seat = in->action == RX_ACTION_CONCEDE ? seat : ENG_SEAT_TABLE;
        } else if (st->wake_us != ENG_NEVER) {
                in->kind = ENG_IN_TIMER;
                if (p->now < st->wake_us)
                        p->now = st->wake_us;
        } else if (st->phase == RX_PHASE_LIVE && st->mode == RX_MODE_JUDGED) {
                int64_t press = st->go_us + below(p, 500 * MS);

                if (st->n_seats >= 2 && chance(p, 35)) {
                        in->kind = ENG_IN_TIE;
                        in->tie.window = st->windows;
                        in->tie.seats = (UINT32_C(1) << st->n_seats) - 1;
                        in->tie.press_us = press;
                } else {
                        in->kind = ENG_IN_CALL;
                        in->seat = seat;
                        in->call.window = st->windows;
                        in->call.call = RX_CALL_HIT;
                        in->call.press_us = press;
                }
                if (p->now < press + SETTLE_US)
                        p->now = press + SETTLE_US;
        } else if (st->phase == RX_PHASE_LIVE) {
                in->kind = ENG_IN_PRESS;
                in->seat = seat;
                in->press.role = ENG_ROLE_BUTTONS;
                in->press.button = RX_BUTTON_PRESS;
                in->press.press_us = st->go_us + in_range(&p->rng, -100 * MS, 500 * MS);
                if (p->now < in->press.press_us + SETTLE_US)
                        p->now = in->press.press_us + SETTLE_US;
        } else if (st->op_paused) {
                in->kind = ENG_IN_RESUME;
        } else if (st->timeout_seat >= 0) {
                in->kind = ENG_IN_PRESS;
                in->seat = st->timeout_seat;
                in->press.role = ENG_ROLE_SLAP;
                in->press.press_us = p->now;
        } else {
                in->kind = ENG_IN_TIMER;
        }
        in->press.received_us = in->kind == ENG_IN_PRESS ? in->press.press_us : in->press.received_us;
        in->seq = ++p->seq;
        in->time_us = p->now;
}

static void rx_driver(uint64_t seed, struct counts *total) {
        logged_match(&rx_game, seed, false, "reflex", rx_config, rx_input, total);
}

static const struct {
        const char *game;
        void (*run)(uint64_t seed, struct counts *total);
} drivers[] = {
        { "crash-pilot", cp_driver },
        { "crazy-pilot", cz_driver },
        { "pitch-fleet", pf_driver },
        { "reflex", rx_driver },
};

/* ======================================================================
 * Tests.
 * ====================================================================== */

/* The checker itself: a difference in a public field is one, in a seat's
 * or the referee's field is not, nor in an output the public does not
 * hear; refusals and wake-ups count. */
static void the_public_comparison_sees_only_public_parts(void **state) {
        static const struct eng_field f[] = {
                { .name = "open", .type = ENG_T_INT, .min = 0, .max = 9, .doc = "public" },
                { .name = "mine", .type = ENG_T_INT, .min = 0, .max = 9, .audience = ENG_VIEW_SEAT, .doc = "seat" },
                { .name = "list", .type = ENG_T_INT, .min = 0, .max = 9, .max_count = 3, .doc = "public list" },
                { .name = "ref", .type = ENG_T_INT, .min = 0, .max = 9, .audience = ENG_VIEW_REFEREE, .doc = "referee" },
        };
        static const struct eng_event_def ev = { .name = "test", .fields = f, .n_fields = 4, .text = "t", .doc = "t" };
        static const struct eng_event_def secret = { .name = "secret", .audience = ENG_VIEW_SEAT, .fields = f,
                                                     .n_fields = 1, .text = "s", .doc = "s" };
        struct eng_out *x = calloc(1, sizeof *x), *y = calloc(1, sizeof *y);
        char why[256];
        struct eng_output *o;

        (void) state;
        assert_non_null(x);
        assert_non_null(y);
        eng_out_reset(x, 5);
        eng_out_reset(y, 5);
        o = eng_out_push(x, &ev, 1, 10);
        o->v[0] = 3, o->v[1] = 4, o->v[2] = 2, o->v[3] = 7, o->v[4] = 8, o->v[6] = 1;
        o = eng_out_push(y, &ev, 1, 10);
        o->v[0] = 3, o->v[1] = 5, o->v[2] = 2, o->v[3] = 7, o->v[4] = 8, o->v[6] = 2;
        eng_out_push(y, &secret, 0, 10)->v[0] = 9;
        eng_out_push(y, &eng_req_window_close, ENG_SEAT_TABLE, 10);
        assert_int_equal(compare_public_outputs(x, y, why, sizeof why), 0);
        y->v[0].v[4] = 9;
        assert_int_equal(compare_public_outputs(x, y, why, sizeof why), -1);
        assert_string_equal(why, "public output 0: test.list differs in its slot 2 (8 against 9)");
        y->v[0].v[4] = 8;
        y->v[0].seat = 2;
        assert_int_equal(compare_public_outputs(x, y, why, sizeof why), -1);
        y->v[0].seat = 1;
        eng_out_push(y, &eng_ev_paused, ENG_SEAT_TABLE, 10);
        assert_int_equal(compare_public_outputs(x, y, why, sizeof why), -1);
        assert_string_equal(why, "public output 1 is paused against nothing");
        y->n--;
        y->wake_us = 6;
        assert_int_equal(compare_public_outputs(x, y, why, sizeof why), -1);
        y->wake_us = 5;
        y->refusal = ENG_REFUSED_STATE;
        assert_int_equal(compare_public_outputs(x, y, why, sizeof why), -1);
        assert_false(has_reveal(x));
        free(x);
        free(y);
}

/* Statically, on every state random play reaches: every top-level member
 * of every audience's view is declared in .view, once, and no audience
 * sees a member declared for a narrower one. */
static void view_members_are_declared_with_their_audiences(void **state) {
        (void) state;
        for (size_t i = 0; eng_games[i]; i++) {
                struct counts c = { 0 };

                for (uint64_t m = 0; m < STATIC_MATCHES; m++)
                        generic_match(eng_games[i], 7000 + m, true, &c);
                assert_true(c.states > STATIC_MATCHES);
                assert_true(c.static_walks >= 3 * c.states);
        }
}

/* Every game, driven by the generic random player: perturbing what is
 * hidden changes nothing the public sees until a card is turned over. */
static void hidden_cards_do_not_reach_the_public_under_random_play(void **state) {
        (void) state;
        for (size_t i = 0; eng_games[i]; i++) {
                const struct eng_game *g = eng_games[i];
                struct counts c = { 0 };

                for (uint64_t m = 0; m < GENERIC_MATCHES; m++)
                        generic_match(g, 1 + m, false, &c);
                print_message("%s (generic): %zu states, %zu perturbed, %zu with nothing hidden, %zu inputs "
                              "compared, %zu stopped at a reveal, %zu at a void\n",
                              g->name, c.states, c.perturbed, c.nothing_hidden, c.compared, c.reveals, c.voids);
                if (!g->perturb_hidden)
                        continue;
                /* It compared something, and saw cards turned over. */
                assert_true(c.perturbed >= GENERIC_MATCHES);
                assert_true(c.compared >= c.perturbed);
                assert_true(c.reveals > 0);
        }
}

/* The games with a simulation of their own, driven by it. */
static void hidden_cards_do_not_reach_the_public_under_each_games_driver(void **state) {
        size_t ran = 0;

        (void) state;
        for (size_t d = 0; d < sizeof drivers / sizeof drivers[0]; d++) {
                const struct eng_game *g = eng_game_find(drivers[d].game);
                struct counts c = { 0 };

                if (!g)
                        continue;
                for (uint64_t m = 0; m < SIM_MATCHES; m++)
                        drivers[d].run(100 + m, &c);
                print_message("%s (its driver): %zu states, %zu perturbed, %zu with nothing hidden, %zu inputs "
                              "compared, %zu stopped at a reveal, %zu at a void\n",
                              g->name, c.states, c.perturbed, c.nothing_hidden, c.compared, c.reveals, c.voids);
                assert_true(c.perturbed >= SIM_MATCHES);
                assert_true(c.compared >= c.perturbed);
                assert_true(c.reveals > 0);
                ran++;
        }
        assert_true(ran >= 1);
}

/* A game that shows the public its next card is caught: the checker is
 * not blind.  (Any registered game with a perturbable state serves: its
 * view is wrapped with a public member that prints the whole state.) */
static const struct eng_game *leaky_base;

static int leaky_view(const void *st, enum eng_audience a, int seat, const struct eng_visitor *v, void *ctx) {
        char hex[2 * sizeof(uint64_t) + 1];
        uint64_t h = leaky_base->hash(st);
        int r = leaky_base->view_visit(st, a, seat, v, ctx);

        snprintf(hex, sizeof hex, "%016llx", (unsigned long long) h);
        return r < 0 ? r : v->string(ctx, "leak", hex);
}

static void a_leaky_view_is_caught(void **state) {
        (void) state;
        for (size_t i = 0; eng_games[i]; i++) {
                const struct eng_game *g = eng_games[i];
                struct eng_game leaky = *g;
                struct eng_config cfg;
                void *x, *y;
                struct walk_rec *w1, *w2;
                int r = -EAGAIN;

                if (!g->perturb_hidden)
                        continue;
                leaky_base = g;
                leaky.view_visit = leaky_view;
                x = malloc(g->state_size);
                y = malloc(g->state_size);
                w1 = malloc(sizeof *w1);
                w2 = malloc(sizeof *w2);
                assert_non_null(x);
                assert_non_null(y);
                assert_non_null(w1);
                assert_non_null(w2);
                eng_config_defaults(g, &cfg);
                assert_int_equal(g->create(x, &cfg, NULL, g->max_seats, 5), 0);
                for (uint64_t salt = 0; salt < 8 && r == -EAGAIN; salt++) {
                        memcpy(y, x, g->state_size);
                        r = g->perturb_hidden(y, salt);
                }
                assert_int_equal(r, 0);
                assert_int_equal(walk_view(&leaky, x, ENG_VIEW_PUBLIC, ENG_SEAT_TABLE, w1), 0);
                assert_int_equal(walk_view(&leaky, y, ENG_VIEW_PUBLIC, ENG_SEAT_TABLE, w2), 0);
                assert_string_not_equal(w1->j.buf, w2->j.buf);
                /* And the undeclared member is reported by name. */
                assert_string_equal(w1->keys[w1->n_keys - 1], "leak");
                assert_null(eng_fields_find(g->view, g->n_view, "leak"));
                free(w1);
                free(w2);
                free(x);
                free(y);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(the_public_comparison_sees_only_public_parts),
                cmocka_unit_test(view_members_are_declared_with_their_audiences),
                cmocka_unit_test(hidden_cards_do_not_reach_the_public_under_random_play),
                cmocka_unit_test(hidden_cards_do_not_reach_the_public_under_each_games_driver),
                cmocka_unit_test(a_leaky_view_is_caught),
        };

        return cmocka_run_group_tests_name("audience", tests, NULL, NULL);
}
