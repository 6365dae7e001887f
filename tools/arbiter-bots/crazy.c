/* tools/arbiter-bots/crazy.c — see crazy.h. */
#define _GNU_SOURCE
#include "tools/arbiter-bots/crazy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "common/log.h"
#include "common/time.h"
#include "engine/crazy_cards.h"
#include "engine/rng.h"

#define GAME_NAME               "crazy-pilot"
#define MIN_SEATS               2       /* the rulebook's deal table: 2 to 6 players */
#define MAX_SEATS               6
#define PERCENT                 100
#define PLAYER_NAME_MAX         64      /* api/tokens.c NAME_MAX_BYTES */
#define SEAT_NAME_SIZE          (PLAYER_NAME_MAX + 1)
#define HANDLE_SIZE             16      /* eight hex digits and a margin */
#define FRONT_MAX               64      /* 2 players: cards in front of a seat we remember deciding */
#define PATH_MAX_LEN            192
#define URL_MAX_LEN             512
#define HEX                     16
#define HTTP_OK                 200
#define HTTP_CREATED            201
#define OPEN_TIMEOUT_MS         10000

/* The game's routes (docs/games/crazy-pilot.md): button pad buttons. */
enum { BTN_STRAIGHT = 0, BTN_LEFT, BTN_RIGHT, BTN_UTURN, BTN_HAND, BTN_SHOUT, N_PLACE_BUTTONS = BTN_SHOUT };
static const char *const button_words[] = { "straight", "left", "right", "a U-turn", "hand", "Zombieeees!" };

enum act_kind { ACT_NONE = 0, ACT_BUTTON, ACT_SLAP, ACT_DRIVE, ACT_COVER };

struct act {
        enum act_kind kind;
        int button;                     /* ACT_BUTTON */
        char handle[HANDLE_SIZE];       /* the card it is about (ACT_BUTTON, ACT_COVER) */
        json_int_t race;                /* ACT_SLAP, ACT_DRIVE: the race's deadline_us */
        int64_t reaction_us, due_us;
};

struct seat {
        bool ours;
        int pad, slap;                  /* padsim's indexes; -1: not ours */
        char name[SEAT_NAME_SIZE];
        char *token;                    /* the seat's token */
        struct rest *rest;              /* with it */
        char decided[HANDLE_SIZE];      /* the card decided last, and the button */
        char pressed[HANDLE_SIZE];      /* the card answered last, until the next race */
        int decided_button;
        json_int_t slapped, drove;      /* the races (deadline_us) acted on */
        struct act act;                 /* the press to come */
        struct act cover;               /* 2 players: the cover to come */
        char covered[FRONT_MAX][HANDLE_SIZE];   /* front cards decided */
        size_t n_covered;
};

struct play {
        const struct bots_options *opt;
        struct rest *rest;
        struct eng_rng rng;
        json_int_t match;
        unsigned n_seats;
        struct seat seats[MAX_SEATS];
        struct sse *streams[MAX_SEATS]; /* per seat, NULL: none */
        char fallback_name[SEAT_NAME_SIZE];
};

static int crazy_new(const struct bots_options *opt, struct rest *rest, struct play **ret) {
        struct play *p = calloc(1, sizeof *p);

        if (!p)
                return -ENOMEM;
        p->opt = opt;
        p->rest = rest;
        /* a stream of its own, so that Crash Pilot's draws do not move ours */
        eng_rng_seed(&p->rng, opt->seed ^ UINT64_C(0x637a7069));
        *ret = p;
        return 0;
}

static void drop_seats(struct play *p) {
        for (unsigned i = 0; i < MAX_SEATS; i++) {
                sse_free(p->streams[i]);
                p->streams[i] = NULL;
                rest_free(p->seats[i].rest);
                free(p->seats[i].token);
        }
        memset(p->seats, 0, sizeof p->seats);
        p->n_seats = 0;
        p->match = 0;
}

static void crazy_free(struct play *p) {
        if (!p)
                return;
        drop_seats(p);
        free(p);
}

static void crazy_forget(struct play *p) {
        drop_seats(p);
}

static const char *crazy_seat_name(struct play *p, int seat) {
        if (seat >= 1 && (unsigned) seat <= p->n_seats && p->seats[seat - 1].name[0])
                return p->seats[seat - 1].name;
        snprintf(p->fallback_name, sizeof p->fallback_name, "seat %d", seat);
        return p->fallback_name;
}

/* A pad id of the match's JSON as padsim's index, or -1 when not ours. */
static int our_pad(const struct play *p, const char *id) {
        char *end;
        uint64_t uid;

        if (!id)
                return -1;
        uid = strtoull(id, &end, HEX);
        if (*end || uid < p->opt->uid_base || uid - p->opt->uid_base >= p->opt->n_pads)
                return -1;
        return (int) (uid - p->opt->uid_base);
}

/* A seat token for seat (1-based), and a REST client and the seat's stream
 * with it.  0, or -errno (logged). */
static int seat_connect(struct play *p, unsigned seat) {
        struct seat *s = &p->seats[seat - 1];
        char path[PATH_MAX_LEN], url[URL_MAX_LEN];
        json_t *reply = NULL;
        const char *token;
        int st;

        snprintf(path, sizeof path, "/v1/matches/%lld/seats/%u/token", (long long) p->match, seat);
        st = rest_post(p->rest, path, NULL, &reply);
        token = json_string_value(json_object_get(reply, "token"));
        if (st != HTTP_CREATED || !token) {
                if (st < 0)
                        log_warning("match %lld: no seat token for %s: arbiterd did not answer (%s)",
                                    (long long) p->match, s->name, strerror(-st));
                else
                        log_warning("match %lld: no seat token for %s (HTTP %d: %s): the bots need a referee's "
                                    "or admin's --token-file to play Crazy Pilot", (long long) p->match, s->name,
                                    st, rest_problem(reply));
                json_decref(reply);
                return st < 0 ? st : -EPROTO;
        }
        s->token = strdup(token);
        json_decref(reply);
        if (!s->token || rest_new(rest_url(p->rest), s->token, &s->rest) < 0)
                return -ENOMEM;
        snprintf(url, sizeof url, "%s/v1/matches/%lld/seats/%u/events", rest_url(p->rest), (long long) p->match,
                 seat);
        if ((st = sse_open(url, s->token, &p->streams[seat - 1])) < 0)
                return st;
        /* open before the first look, so that nothing after it is missed */
        if ((st = sse_wait_open(p->streams[seat - 1], OPEN_TIMEOUT_MS)) < 0) {
                log_warning("match %lld: %s's event stream did not open (%s)", (long long) p->match, s->name,
                            strerror(-st));
                return st;
        }
        return 0;
}

static void look_seat(struct play *p, unsigned seat, int64_t now_us);

static int crazy_sit(struct play *p, json_t *match) {
        json_t *seats = json_object_get(match, "seats"), *it, *pad;
        unsigned ours = 0;
        size_t i, k;

        drop_seats(p);
        if (!json_is_array(seats))
                return -EINVAL;
        p->match = json_integer_value(json_object_get(match, "id"));
        json_array_foreach(seats, i, it) {
                json_int_t n = json_integer_value(json_object_get(it, "seat"));
                const char *name = json_string_value(json_object_get(it, "name"));
                struct seat *s;

                if (n < 1 || n > MAX_SEATS)
                        return -EINVAL;
                s = &p->seats[n - 1];
                s->pad = s->slap = -1;
                if ((unsigned) n > p->n_seats)
                        p->n_seats = (unsigned) n;
                snprintf(s->name, sizeof s->name, "%s", name ? name : "");
                json_array_foreach(json_object_get(it, "pads"), k, pad) {
                        const char *role = json_string_value(json_object_get(pad, "role"));
                        int idx = our_pad(p, json_string_value(json_object_get(pad, "pad")));

                        if (idx < 0 || !role)
                                continue;
                        if (strcmp(role, "buttons") == 0 && s->pad < 0)
                                s->pad = idx;
                        else if (strcmp(role, "slap") == 0 && s->slap < 0)
                                s->slap = idx;
                }
                s->ours = s->pad >= 0;
        }
        for (unsigned n = 1; n <= p->n_seats; n++) {
                struct seat *s = &p->seats[n - 1];

                if (!s->ours)
                        continue;
                if (s->slap < 0)
                        log_warning("match %lld: %s has no slap pad of ours: it will not race or resume",
                                    (long long) p->match, s->name);
                if (seat_connect(p, n) < 0) {
                        s->ours = false;
                        continue;
                }
                ours++;
        }
        for (unsigned n = 1; n <= p->n_seats; n++)
                look_seat(p, n, now_usec());
        return (int) ours;
}

/* Name → enum by the catalogue's names; -1 when none. */
static int by_name(const char *(*name_of)(unsigned), const char *name) {
        const char *n;

        for (unsigned i = 0; name && (n = name_of(i)); i++)
                if (strcmp(n, name) == 0)
                        return (int) i;
        return -1;
}

static int small_int(json_t *v, int lo, int hi) {
        json_int_t n;

        if (!json_is_integer(v))
                return -1;
        n = json_integer_value(v);
        return n < lo || n > hi ? -1 : (int) n;
}

/* A card's face (its JSON: {"handle", "name", "scene": {…}}) as the scene
 * the catalogue's rule reads.  0, or -EINVAL. */
static int scene_of(json_t *card, struct cz_scene *ret) {
        json_t *sc = json_object_get(card, "scene"), *items = json_object_get(sc, "items"), *it;
        int road = by_name(cz_road_name, json_string_value(json_object_get(sc, "road"))),
            light = by_name(cz_light_name, json_string_value(json_object_get(sc, "light"))),
            sign = by_name(cz_sign_name, json_string_value(json_object_get(sc, "sign"))),
            marking = by_name(cz_marking_name, json_string_value(json_object_get(sc, "marking"))),
            lanes = small_int(json_object_get(sc, "lanes"), 1, CZ_MAX_LANES),
            car_lane = small_int(json_object_get(sc, "car_lane"), 1, CZ_MAX_LANES);
        size_t i;

        memset(ret, 0, sizeof *ret);
        if (road < 0 || light < 0 || sign < 0 || marking < 0 || lanes < 0 || car_lane < 0 ||
            (items && !json_is_array(items)) || json_array_size(items) > CZ_MAX_ITEMS)
                return -EINVAL;
        *ret = (struct cz_scene) { .road = (uint8_t) road, .lanes = (uint8_t) lanes, .car_lane = (uint8_t) car_lane,
                                   .light = (uint8_t) light, .sign = (uint8_t) sign, .marking = (uint8_t) marking };
        json_array_foreach(items, i, it) {
                int kind = by_name(cz_item_name, json_string_value(json_object_get(it, "kind"))),
                    lane = small_int(json_object_get(it, "lane"), 0, CZ_MAX_LANES + 1),
                    row = small_int(json_object_get(it, "row"), 1, CZ_MAX_ROWS);

                if (kind < 0 || lane < 0 || row < 0)
                        return -EINVAL;
                ret->items[ret->n_items++] = (struct cz_item) { (uint8_t) kind, (uint8_t) lane, (uint8_t) row };
        }
        return 0;
}

static bool pct(struct play *p, unsigned percent) {
        return eng_rng_below(&p->rng, PERCENT) < percent;
}

/* The button a seat presses for a card whose scene calls for answer: right
 * or, error_pct of the time, wrong; a card without a zombie is shouted at
 * false_shout_pct of the time. */
static int choose(struct play *p, enum cz_answer answer) {
        bool right[N_PLACE_BUTTONS] = { false };
        int wrong[N_PLACE_BUTTONS], n_wrong = 0;

        if (answer != CZ_ANS_ZOMBIE && pct(p, p->opt->false_shout_pct))
                return BTN_SHOUT;
        switch (answer) {
        case CZ_ANS_ZOMBIE:
                if (!pct(p, p->opt->human.error_pct))
                        return BTN_SHOUT;
                /* the zombie is missed: any placement is wrong */
                return (int) eng_rng_below(&p->rng, N_PLACE_BUTTONS);
        case CZ_ANS_FORK_LEFT:
                right[BTN_STRAIGHT] = right[BTN_LEFT] = true;
                break;
        case CZ_ANS_FORK_RIGHT:
                right[BTN_STRAIGHT] = right[BTN_RIGHT] = true;
                break;
        case CZ_ANS_STRAIGHT:
        case CZ_ANS_LEFT:
        case CZ_ANS_RIGHT:
        case CZ_ANS_UTURN:
        case CZ_ANS_HAND:
                right[answer] = true;   /* the answers of the directions are their buttons */
                break;
        default:
                return -1;
        }
        bool err = pct(p, p->opt->human.error_pct);
        for (int b = 0; b < N_PLACE_BUTTONS; b++)
                if (right[b] != err)
                        wrong[n_wrong++] = b;
        return wrong[eng_rng_below(&p->rng, (uint64_t) n_wrong)];
}

static void plan(struct play *p, struct act *a, enum act_kind kind, const struct human_model *m, int64_t now_us) {
        a->kind = kind;
        a->reaction_us = human_reaction_us(m, &p->rng);
        a->due_us = now_us + a->reaction_us;
}

/* The race a view shows (its deadline, unique to it), or 0. */
static json_int_t race_of(json_t *view) {
        return json_integer_value(json_object_get(json_object_get(view, "race"), "deadline_us"));
}

/* Two players: the cards in front of the seat it has not decided on yet. */
static void look_front(struct play *p, struct seat *s, json_t *you, int64_t now_us) {
        json_t *card;
        size_t i;

        if (s->cover.kind != ACT_NONE)
                return;
        json_array_foreach(json_object_get(you, "front"), i, card) {
                const char *h = json_string_value(json_object_get(card, "handle"));
                struct cz_scene sc;
                bool seen = false, zombie, cover;

                if (!h || json_is_true(json_object_get(card, "covered")))
                        continue;
                for (size_t k = 0; k < s->n_covered && !seen; k++)
                        seen = strcmp(s->covered[k], h) == 0;
                if (seen || s->n_covered >= FRONT_MAX || scene_of(card, &sc) < 0)
                        continue;
                snprintf(s->covered[s->n_covered++], HANDLE_SIZE, "%s", h);
                zombie = cz_scene_answer(&sc, NULL) == CZ_ANS_ZOMBIE;
                cover = zombie != pct(p, p->opt->human.error_pct);
                if (!cover) {
                        log_debug("match %lld: %s leaves card %s in front of them", (long long) p->match, s->name, h);
                        continue;
                }
                snprintf(s->cover.handle, sizeof s->cover.handle, "%s", h);
                plan(p, &s->cover, ACT_COVER, &p->opt->human, now_us);
                log_debug("match %lld: %s will cover card %s in %" PRId64 " ms", (long long) p->match, s->name, h,
                          s->cover.reaction_us / USEC_PER_MSEC);
                return;
        }
}

/* What seat (1-based) does, from its own view. */
static void decide(struct play *p, unsigned seat, json_t *view, int64_t now_us) {
        struct seat *s = &p->seats[seat - 1];
        const char *phase = json_string_value(json_object_get(view, "phase"));
        json_t *you = json_object_get(view, "you"), *card = json_object_get(you, "card");
        const char *h = json_string_value(json_object_get(card, "handle"));
        json_int_t race = race_of(view);
        struct cz_scene sc;
        const char *why = NULL;

        if (!phase || !json_is_object(you) || strcmp(phase, "finished") == 0 || strcmp(phase, "ending") == 0) {
                s->act.kind = s->cover.kind = ACT_NONE;
                return;
        }
        look_front(p, s, you, now_us);
        if (json_is_true(json_object_get(you, "must_slap"))) {
                if (s->act.kind == ACT_SLAP && s->act.race == race)
                        return;
                s->act.kind = ACT_NONE;         /* the table stops: so does the hand */
                if (s->slap < 0 || s->slapped == race)
                        return;
                s->slapped = race;
                plan(p, &s->act, ACT_SLAP, &p->opt->slap, now_us);
                s->act.race = race;
                log_debug("match %lld: %s will slap in %" PRId64 " ms", (long long) p->match, s->name,
                          s->act.reaction_us / USEC_PER_MSEC);
                return;
        }
        if (json_is_true(json_object_get(you, "may_drive"))) {
                if (s->act.kind == ACT_DRIVE && s->act.race == race)
                        return;
                s->act.kind = ACT_NONE;
                if (s->slap < 0 || s->drove == race)
                        return;
                s->drove = race;
                plan(p, &s->act, ACT_DRIVE, &p->opt->human, now_us);
                s->act.race = race;
                log_debug("match %lld: %s will shout Driiiiive! in %" PRId64 " ms", (long long) p->match, s->name,
                          s->act.reaction_us / USEC_PER_MSEC);
                return;
        }
        if (s->act.kind == ACT_SLAP || s->act.kind == ACT_DRIVE)
                s->act.kind = ACT_NONE;
        if (strcmp(phase, "playing") != 0)
                s->pressed[0] = '\0';  /* a press a race refused is made again after it */
        if (!json_is_true(json_object_get(you, "may_resolve")) || !h || strcmp(phase, "playing") != 0) {
                s->act.kind = ACT_NONE;
                return;
        }
        if ((s->act.kind == ACT_BUTTON && strcmp(s->act.handle, h) == 0) || strcmp(s->pressed, h) == 0)
                return;                 /* on its way, or made: the daemon has yet to show the next card */
        if (strcmp(s->decided, h) != 0) {
                enum cz_answer answer;

                if (scene_of(card, &sc) < 0) {
                        log_warning("match %lld: %s's card %s has no scene the bots can read; they leave it",
                                    (long long) p->match, s->name, h);
                        snprintf(s->decided, sizeof s->decided, "%s", h);
                        s->decided_button = -1;
                        return;
                }
                answer = cz_scene_answer(&sc, &why);
                snprintf(s->decided, sizeof s->decided, "%s", h);
                s->decided_button = choose(p, answer);
                log_debug("match %lld: %s sees card %s (%s: %s) and will answer %s", (long long) p->match, s->name,
                          h, cz_answer_name(answer) ? cz_answer_name(answer) : "?", why ? why : "",
                          s->decided_button >= 0 ? button_words[s->decided_button] : "nothing");
        }
        if (s->decided_button < 0)
                return;
        /* a card seen again after a race is answered anew, at a new pace */
        plan(p, &s->act, ACT_BUTTON, &p->opt->human, now_us);
        s->act.button = s->decided_button;
        snprintf(s->act.handle, sizeof s->act.handle, "%s", h);
}

static void look_seat(struct play *p, unsigned seat, int64_t now_us) {
        struct seat *s = &p->seats[seat - 1];
        char path[PATH_MAX_LEN];
        json_t *view = NULL;
        int st;

        if (!s->ours || !s->rest)
                return;
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/%u", (long long) p->match, seat);
        st = rest_get(s->rest, path, &view);
        if (st != HTTP_OK || !json_is_object(view)) {
                log_debug("match %lld: %s's view: %s", (long long) p->match, s->name,
                          st < 0 ? strerror(-st) : rest_problem(view));
                json_decref(view);
                return;
        }
        decide(p, seat, view, now_us);
        json_decref(view);
}

/* The public stream says something happened: the seats' own streams say it
 * too, with what each may see, and drive the play.  Only a seat without a
 * stream (it ended) looks now. */
static void crazy_look(struct play *p, json_t *match, int64_t now_us) {
        (void) match;
        for (unsigned n = 1; n <= p->n_seats; n++)
                if (p->seats[n - 1].ours && !p->streams[n - 1])
                        look_seat(p, n, now_us);
}

static void crazy_streams(struct play *p, struct sse *const **ret_v, size_t *ret_n) {
        *ret_v = p->streams;
        *ret_n = p->n_seats;
}

static void crazy_stream_event(struct play *p, size_t i, const struct sse_event *ev, int error, int64_t now_us) {
        if (i >= p->n_seats)
                return;
        if (!ev) {
                log_debug("match %lld: %s's event stream ended (%s)", (long long) p->match, p->seats[i].name,
                          strerror(-error));
                sse_free(p->streams[i]);
                p->streams[i] = NULL;
                return;
        }
        log_debug("match %lld: %s hears %s", (long long) p->match, p->seats[i].name, ev->name);
        look_seat(p, (unsigned) i + 1, now_us);
}

static int64_t crazy_next_due(const struct play *p) {
        int64_t due = INT64_MAX;

        for (unsigned i = 0; i < p->n_seats; i++) {
                const struct seat *s = &p->seats[i];

                if (s->act.kind != ACT_NONE && s->act.due_us < due)
                        due = s->act.due_us;
                if (s->cover.kind != ACT_NONE && s->cover.due_us < due)
                        due = s->cover.due_us;
        }
        return due;
}

static int press_line(FILE *out, int pad, int button) {
        if (fprintf(out, "{\"pad\": %d, \"button\": %d, \"press\": true}\n", pad, button) < 0 || fflush(out) != 0)
                return errno ? -errno : -EIO;
        return 0;
}

/* 2 players: POST the cover with the seat's own token. */
static void send_cover(struct play *p, struct seat *s) {
        char path[PATH_MAX_LEN];
        json_t *body = json_pack("{s:s, s:s}", "kind", "cover", "card", s->cover.handle), *reply = NULL;
        int st;

        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) p->match);
        st = body ? rest_post(s->rest, path, body, &reply) : -ENOMEM;
        if (st == HTTP_OK)
                log_info("match %lld: %s covers card %s after %" PRId64 " ms", (long long) p->match, s->name,
                         s->cover.handle, s->cover.reaction_us / USEC_PER_MSEC);
        else
                log_debug("match %lld: %s cannot cover card %s: %s", (long long) p->match, s->name, s->cover.handle,
                          st < 0 ? strerror(-st) : rest_problem(reply));
        json_decref(body);
        json_decref(reply);
}

static int crazy_press(struct play *p, int64_t now_us, FILE *out) {
        for (unsigned i = 0; i < p->n_seats; i++) {
                struct seat *s = &p->seats[i];
                struct act a = s->act;
                int r;

                if (s->cover.kind != ACT_NONE && s->cover.due_us <= now_us) {
                        s->cover.kind = ACT_NONE;
                        send_cover(p, s);
                }
                if (a.kind == ACT_NONE || a.due_us > now_us)
                        continue;
                s->act.kind = ACT_NONE;
                switch (a.kind) {
                case ACT_BUTTON:
                        snprintf(s->pressed, sizeof s->pressed, "%s", a.handle);
                        r = press_line(out, s->pad, a.button);
                        log_info("match %lld: %s %s %s after %" PRId64 " ms", (long long) p->match, s->name,
                                 a.button == BTN_SHOUT ? "shouts" : "answers", button_words[a.button],
                                 a.reaction_us / USEC_PER_MSEC);
                        break;
                case ACT_SLAP:
                        r = press_line(out, s->slap, 0);
                        log_info("match %lld: %s slaps after %" PRId64 " ms", (long long) p->match, s->name,
                                 a.reaction_us / USEC_PER_MSEC);
                        break;
                case ACT_DRIVE:
                        r = press_line(out, s->slap, 0);
                        log_info("match %lld: %s shouts Driiiiive!", (long long) p->match, s->name);
                        break;
                default:
                        r = 0;
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The winner's points, and the finish card if it was theirs. */
static const char *crazy_how_won(struct play *p, json_t *match) {
        json_t *first = json_array_get(json_object_get(json_object_get(match, "result"), "placements"), 0),
               *score = json_object_get(first, "score");
        json_int_t finish = json_integer_value(json_object_get(json_object_get(score, "terms"), "finish"));

        snprintf(p->fallback_name, sizeof p->fallback_name, " with %lld points%s",
                 (long long) json_integer_value(json_object_get(score, "total")),
                 finish > 0 ? ", the finish card among them" : "");
        return p->fallback_name;
}

const struct play_game play_crazy_pilot = {
        .name = GAME_NAME,
        .min_seats = MIN_SEATS,
        .max_seats = MAX_SEATS,
        .new_play = crazy_new,
        .free_play = crazy_free,
        .sit = crazy_sit,
        .look = crazy_look,
        .forget = crazy_forget,
        .next_due = crazy_next_due,
        .press = crazy_press,
        .seat_name = crazy_seat_name,
        .how_won = crazy_how_won,
        .streams = crazy_streams,
        .stream_event = crazy_stream_event,
};
