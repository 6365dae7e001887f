/* tools/arbiter-bots/player.c — see player.h. */
#include "tools/arbiter-bots/player.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "common/log.h"
#include "common/time.h"
#include "engine/crash_pilot.h"
#include "engine/engine.h"
#include "hardware/protocol.h"

#define PERCENT                 100
/* api/tokens.c NAME_MAX_BYTES: the longest player name arbiterd takes. */
#define PLAYER_NAME_MAX         64
#define SEAT_NAME_SIZE          (PLAYER_NAME_MAX + 1)
#define HEX                     16

struct seat {
        bool ours;
        unsigned pad;                   /* padsim's index of its button pad */
        int button[CP_CALL_DOESNT_FIT + 1];     /* per call; -1: no button makes it */
        char name[SEAT_NAME_SIZE];
};

struct pending {
        unsigned seat;                  /* 0-based */
        int call;
        int64_t reaction_us;
        int64_t due_us;
};

struct play {
        struct human_model human;
        struct eng_rng rng;
        unsigned n_seats;
        struct seat seats[CP_MAX_SEATS];
        json_int_t window;              /* the window decided last; 0 none */
        size_t n_pending;
        struct pending pending[CP_MAX_SEATS];
        char fallback_name[SEAT_NAME_SIZE];
        uint64_t uid_base;              /* our pads: uid_base .. uid_base + n_pads - 1 */
        unsigned n_pads;
};

static int player_new(const struct bots_options *opt, struct rest *rest, struct play **ret) {
        struct play *p = calloc(1, sizeof *p);

        (void) rest;
        if (!p)
                return -ENOMEM;
        p->human = opt->human;
        p->uid_base = opt->uid_base;
        p->n_pads = opt->n_pads;
        eng_rng_seed(&p->rng, opt->seed);
        *ret = p;
        return 0;
}

static void player_free(struct play *p) {
        free(p);
}

static void player_forget(struct play *p) {
        p->n_pending = 0;
}

static const char *player_seat_name(struct play *p, int seat) {
        if (seat >= 1 && (unsigned) seat <= p->n_seats && p->seats[seat - 1].name[0])
                return p->seats[seat - 1].name;
        snprintf(p->fallback_name, sizeof p->fallback_name, "seat %d", seat);
        return p->fallback_name;
}

/* The button of each call: the seat's button map when the table gave one
 * (names as the runtime reads them, eng_call_by_name()), else the game's
 * routes — what match/presses.c does the other way round. */
static void map_buttons(struct seat *s, json_t *buttons) {
        const char *key;
        json_t *v;

        for (size_t c = 0; c < sizeof s->button / sizeof s->button[0]; c++)
                s->button[c] = -1;
        if (json_is_object(buttons)) {
                json_object_foreach(buttons, key, v) {
                        char *end;
                        long b = strtol(key, &end, 10);
                        int call;

                        if (*end || b < 0 || b >= PROTO_MAX_BUTTONS || !json_is_string(v) ||
                            eng_call_by_name(&cp_game, json_string_value(v), &call) < 0 ||
                            call < 1 || call > CP_CALL_DOESNT_FIT)
                                continue;
                        if (s->button[call] < 0 || b < s->button[call])
                                s->button[call] = (int) b;
                }
                return;
        }
        for (unsigned b = 0; b < PROTO_MAX_BUTTONS; b++) {
                const struct eng_route *rt = eng_route_find(&cp_game, ENG_ROLE_BUTTONS, b);

                if (rt && rt->kind == ENG_ROUTE_CALL && rt->call >= 1 && rt->call <= CP_CALL_DOESNT_FIT &&
                    s->button[rt->call] < 0)
                        s->button[rt->call] = (int) b;
        }
}

static int player_sit(struct play *p, json_t *match) {
        uint64_t uid_base = p->uid_base;
        unsigned n_pads = p->n_pads;
        json_t *seats = json_object_get(match, "seats"), *it, *pad;
        const char *game = json_string_value(json_object_get(match, "game"));
        unsigned ours = 0;
        size_t i, k;

        p->n_seats = 0;
        p->window = 0;
        p->n_pending = 0;
        memset(p->seats, 0, sizeof p->seats);
        if (!json_is_array(seats))
                return -EINVAL;
        if (!game || strcmp(game, cp_game.name) != 0)
                return 0;
        json_array_foreach(seats, i, it) {
                json_int_t n = json_integer_value(json_object_get(it, "seat"));
                const char *name = json_string_value(json_object_get(it, "name"));
                struct seat *s;

                if (n < 1 || n > CP_MAX_SEATS)
                        return -EINVAL;
                s = &p->seats[n - 1];
                if ((unsigned) n > p->n_seats)
                        p->n_seats = (unsigned) n;
                snprintf(s->name, sizeof s->name, "%s", name ? name : "");
                map_buttons(s, json_object_get(it, "buttons"));
                json_array_foreach(json_object_get(it, "pads"), k, pad) {
                        const char *id = json_string_value(json_object_get(pad, "pad")),
                                   *role = json_string_value(json_object_get(pad, "role"));
                        char *end;
                        uint64_t uid;

                        if (!id || !role || eng_role_from_name(role) != ENG_ROLE_BUTTONS)
                                continue;
                        uid = strtoull(id, &end, HEX);
                        if (*end || uid < uid_base || uid - uid_base >= n_pads)
                                continue;
                        s->ours = true;
                        s->pad = (unsigned) (uid - uid_base);
                        ours++;
                }
        }
        return (int) ours;
}

/* A card of a view ({"object", "colour"}) as the engine's id; only the face
 * matters to the rule, so every card is copy 0. */
static int card_of(json_t *card, uint8_t *ret) {
        json_t *o = json_object_get(card, "object"), *c = json_object_get(card, "colour");

        if (!json_is_integer(o) || !json_is_integer(c) || json_integer_value(o) < 0 ||
            json_integer_value(o) >= CP_MAX_KINDS || json_integer_value(c) < 0 ||
            json_integer_value(c) >= CP_MAX_KINDS)
                return -EINVAL;
        *ret = CP_CARD(0, json_integer_value(o), json_integer_value(c));
        return 0;
}

/* The public view as the engine's plain view: the rows and the face-up
 * card, all a player needs to see.  0, or -EINVAL. */
static int view_of(json_t *view, unsigned n_seats, struct cp_view *ret) {
        json_t *rows = json_object_get(view, "rows"), *row, *card;
        size_t r, i;

        memset(ret, 0, sizeof *ret);
        ret->audience = ENG_VIEW_PUBLIC;
        ret->seat = -1;
        ret->phase = CP_PHASE_SHOWING;
        ret->n_seats = (uint8_t) n_seats;
        ret->face_up_shown = true;
        if (card_of(json_object_get(view, "face_up"), &ret->face_up) < 0 || !json_is_array(rows) ||
            json_array_size(rows) != CP_ROWS)
                return -EINVAL;
        json_array_foreach(rows, r, row) {
                if (!json_is_array(row) || json_array_size(row) > CP_ROW_MAX)
                        return -EINVAL;
                json_array_foreach(row, i, card)
                        if (card_of(card, &ret->rows[r][i]) < 0)
                                return -EINVAL;
                ret->row_len[r] = (uint8_t) json_array_size(row);
        }
        return 0;
}

static void decide(struct play *p, unsigned seat, const struct cp_view *v, int64_t now_us) {
        struct seat *s = &p->seats[seat];
        struct pending *d;
        int call;

        if (cp_bot_call(v, &p->rng, PERCENT - p->human.error_pct, &call) < 0 || call < 1 ||
            call > CP_CALL_DOESNT_FIT || s->button[call] < 0) {
                log_debug("%s has no button for the call it would make; it lets the card pass",
                          player_seat_name(p, (int) seat + 1));
                return;
        }
        d = &p->pending[p->n_pending++];
        d->seat = seat;
        d->call = call;
        d->reaction_us = human_reaction_us(&p->human, &p->rng);
        d->due_us = now_us + d->reaction_us;
        log_debug("window %lld: %s will call %s in %" PRId64 " ms", (long long) p->window,
                  player_seat_name(p, (int) seat + 1), eng_call_name(&cp_game, call), d->reaction_us / USEC_PER_MSEC);
}

static void player_look(struct play *p, json_t *match, int64_t now_us) {
        json_t *view = json_object_get(match, "view");
        json_t *window = json_object_get(view, "window"), *seat;
        const char *status = json_string_value(json_object_get(view, "status"));
        json_int_t id = json_integer_value(json_object_get(window, "id"));
        struct cp_view v;
        size_t i;

        if (!json_is_object(window) || !status || strcmp(status, "running") != 0 ||
            !json_is_object(json_object_get(view, "face_up"))) {
                p->n_pending = 0;       /* the card is gone: nobody reaches for it any more */
                return;
        }
        if (id == p->window)
                return;
        p->window = id;
        p->n_pending = 0;
        if (view_of(view, p->n_seats, &v) < 0) {
                log_warning("window %lld: the public view does not show a card and six rows; not playing it",
                            (long long) id);
                return;
        }
        json_array_foreach(json_object_get(window, "seats"), i, seat) {
                json_int_t n = json_integer_value(seat);

                if (n >= 1 && (unsigned) n <= p->n_seats && p->seats[n - 1].ours)
                        decide(p, (unsigned) n - 1, &v, now_us);
        }
}

static int64_t player_next_due(const struct play *p) {
        int64_t due = INT64_MAX;

        for (size_t i = 0; i < p->n_pending; i++)
                if (p->pending[i].due_us < due)
                        due = p->pending[i].due_us;
        return due;
}

static int player_press(struct play *p, int64_t now_us, FILE *out) {
        size_t i = 0;

        while (i < p->n_pending) {
                struct pending d = p->pending[i];
                const struct seat *s = &p->seats[d.seat];

                if (d.due_us > now_us) {
                        i++;
                        continue;
                }
                p->pending[i] = p->pending[--p->n_pending];
                if (fprintf(out, "{\"pad\": %u, \"button\": %d, \"press\": true}\n", s->pad, s->button[d.call]) < 0 ||
                    fflush(out) != 0)
                        return errno ? -errno : -EIO;
                log_info("window %lld: %s calls %s after %" PRId64 " ms", (long long) p->window,
                         player_seat_name(p, (int) d.seat + 1), eng_call_name(&cp_game, d.call),
                         d.reaction_us / USEC_PER_MSEC);
        }
        return 0;
}

/* A match is won by play (the winner turned over their last card) or by
 * eliminations (the last one still in). */
static const char *player_how_won(struct play *p, json_t *match) {
        json_t *first = json_array_get(json_object_get(json_object_get(match, "result"), "placements"), 0);

        (void) p;
        if (json_integer_value(json_object_get(json_object_get(first, "stats"), "cards_left")) == 0)
                return ", turning over their last card";
        return ", the last one still in";
}

const struct play_game play_crash_pilot = {
        .name = "crash-pilot",
        .min_seats = CP_MIN_SEATS,
        .max_seats = CP_MAX_SEATS,
        .new_play = player_new,
        .free_play = player_free,
        .sit = player_sit,
        .look = player_look,
        .forget = player_forget,
        .next_due = player_next_due,
        .press = player_press,
        .seat_name = player_seat_name,
        .how_won = player_how_won,
};
