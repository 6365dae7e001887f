/* engine/engine.c — the game registry and the parts of engine.h that are
 * the same for every game: configuration by schema, replay, outputs as a
 * visitor walk, names. */
#include "engine/engine.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/crash_pilot.h"
#include "engine/judge.h"

/* A seat mask means the same to the judge and to an engine. */
_Static_assert(ENG_MAX_SEATS == JUDGE_MAX_SEATS, "engine and judge seat limits differ");
_Static_assert(ENG_NEVER == JUDGE_NEVER, "engine and judge disagree on never");
_Static_assert(ENG_TIME_LIMIT_US == JUDGE_TIME_LIMIT_US, "engine and judge time limits differ");

const struct eng_game *const eng_games[] = {
        &cp_game,
        NULL,
};

const struct eng_game *eng_game_find(const char *name) {
        if (!name)
                return NULL;
        for (size_t i = 0; eng_games[i]; i++)
                if (strcmp(eng_games[i]->name, name) == 0)
                        return eng_games[i];
        return NULL;
}

/* Case, blanks and punctuation do not count: "row-1" is "row 1",
 * "doesnt_fit" is "doesn't fit". */
static bool same_call_name(const char *a, const char *b) {
        for (;;) {
                while (*a && !isalnum((unsigned char) *a))
                        a++;
                while (*b && !isalnum((unsigned char) *b))
                        b++;
                if (!*a || !*b)
                        return !*a && !*b;
                if (tolower((unsigned char) *a++) != tolower((unsigned char) *b++))
                        return false;
        }
}

int eng_call_by_name(const struct eng_game *g, const char *name, int *ret_call) {
        if (!g || !name)
                return -EINVAL;
        for (int call = 0; call < ENG_MAX_CALLS; call++) {
                const char *n = g->call_name(call);
                if (n && same_call_name(n, name)) {
                        *ret_call = call;
                        return 0;
                }
        }
        return -ENOENT;
}

int eng_error_set(struct eng_error *ret_err, const char *field, const char *fmt, ...) {
        va_list ap;
        int n;

        if (!ret_err)
                return -EINVAL;
        snprintf(ret_err->field, sizeof ret_err->field, "%s", field);
        n = snprintf(ret_err->message, sizeof ret_err->message, "%s: ", field);
        if (n < 0 || (size_t) n >= sizeof ret_err->message)
                return -EINVAL;
        va_start(ap, fmt);
        vsnprintf(ret_err->message + n, sizeof ret_err->message - (size_t) n, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

int eng_param_find(const struct eng_game *game, const char *key) {
        if (!game || !key)
                return -ENOENT;
        for (size_t i = 0; i < game->n_params; i++)
                if (strcmp(game->params[i].key, key) == 0)
                        return (int) i;
        return -ENOENT;
}

void eng_config_defaults(const struct eng_game *game, struct eng_config *ret) {
        memset(ret, 0, sizeof *ret);
        for (size_t i = 0; i < game->n_params && i < ENG_MAX_PARAMS; i++)
                ret->v[i] = game->params[i].def;
}

/* The one place that words a range error, so every game's messages read
 * alike. */
static int param_check(const struct eng_param *p, int64_t value, struct eng_error *ret_err) {
        if (value >= p->min && value <= p->max)
                return 0;
        switch (p->type) {
        case ENG_PARAM_BOOL:
                eng_error_set(ret_err, p->key, "must be true or false");
                break;
        case ENG_PARAM_ENUM: {
                char list[ENG_ERROR_MAX] = "";
                size_t len = 0;

                for (int64_t c = p->min; c <= p->max && p->choices; c++) {
                        int n = snprintf(list + len, sizeof list - len, "%s%s",
                                         c > p->min ? ", " : "", p->choices[c]);
                        if (n < 0 || (size_t) n >= sizeof list - len)
                                break;
                        len += (size_t) n;
                }
                eng_error_set(ret_err, p->key, "must be one of %s", list);
                break;
        }
        case ENG_PARAM_INT:
        default:
                eng_error_set(ret_err, p->key, "must be %lld..%lld%s%s",
                              (long long) p->min, (long long) p->max,
                              p->unit ? " " : "", p->unit ? p->unit : "");
                break;
        }
        return -ERANGE;
}

int eng_config_set(const struct eng_game *game, struct eng_config *cfg, const char *key,
                   int64_t value, struct eng_error *ret_err) {
        int i = eng_param_find(game, key);

        if (i < 0) {
                eng_error_set(ret_err, key ? key : "(null)", "no such setting");
                return -ENOENT;
        }
        if (param_check(&game->params[i], value, ret_err) < 0)
                return -ERANGE;
        cfg->v[i] = value;
        return 0;
}

int eng_config_set_choice(const struct eng_game *game, struct eng_config *cfg, const char *key,
                          const char *choice, struct eng_error *ret_err) {
        const struct eng_param *p;
        int i = eng_param_find(game, key);

        if (i < 0) {
                eng_error_set(ret_err, key ? key : "(null)", "no such setting");
                return -ENOENT;
        }
        p = &game->params[i];
        if (p->type != ENG_PARAM_ENUM || !p->choices) {
                eng_error_set(ret_err, p->key, "is not a choice");
                return -EINVAL;
        }
        for (int64_t c = p->min; choice && c <= p->max; c++)
                if (strcmp(p->choices[c], choice) == 0) {
                        cfg->v[i] = c;
                        return 0;
                }
        return param_check(p, p->max + 1, ret_err);
}

int eng_config_validate(const struct eng_game *game, const struct eng_config *cfg,
                        unsigned n_seats, struct eng_error *ret_err) {
        if (!game || !cfg)
                return -EINVAL;
        if (n_seats < game->min_seats || n_seats > game->max_seats)
                return eng_error_set(ret_err, "seats", "must be %u..%u", game->min_seats,
                                     game->max_seats);
        for (size_t i = 0; i < game->n_params; i++)
                if (param_check(&game->params[i], cfg->v[i], ret_err) < 0)
                        return -EINVAL;
        return game->validate(cfg, n_seats, ret_err);
}

int eng_replay(const struct eng_game *game, void *state, const struct eng_config *cfg,
               unsigned n_seats, uint64_t seed, const struct eng_input *log, size_t n,
               size_t *ret_refused) {
        struct eng_out out;
        size_t refused = 0;
        int r;

        r = game->create(state, cfg, n_seats, seed);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = game->apply(state, &log[i], &out);
                if (r < 0)
                        return r;
                if (out.refusal != ENG_ACCEPTED)
                        refused++;
        }
        if (ret_refused)
                *ret_refused = refused;
        return 0;
}

void eng_out_reset(struct eng_out *out, int64_t wake_us) {
        out->refusal = ENG_ACCEPTED;
        out->wake_us = wake_us;
        out->n = 0;
}

struct eng_output *eng_out_push(struct eng_out *out, enum eng_output_kind kind, int seat,
                                int64_t at_us) {
        struct eng_output *o;

        if (out->n >= ENG_MAX_OUTPUTS)
                return NULL;
        o = &out->v[out->n++];
        memset(o, 0, sizeof *o);
        o->kind = kind;
        o->seat = seat;
        o->at_us = at_us;
        return o;
}

/* Insertion sort: at most ENG_MAX_SEATS seats, and stable, so equal seats
 * stay in seat order as eng_result.order promises. */
void eng_result_rank(struct eng_result *ret, const uint64_t key[ENG_MAX_SEATS]) {
        unsigned n = ret->n_seats;

        for (unsigned i = 0; i < n; i++) {
                unsigned j = i;

                while (j > 0 && key[ret->order[j - 1]] > key[i]) {
                        ret->order[j] = ret->order[j - 1];
                        j--;
                }
                ret->order[j] = (int) i;
        }
        for (unsigned i = 0; i < n; i++) {
                unsigned better = 0;

                for (unsigned j = 0; j < n; j++)
                        if (key[j] < key[i])
                                better++;
                ret->place[i] = better + 1;
        }
        for (unsigned i = n; i < ENG_MAX_SEATS; i++) {
                ret->order[i] = ENG_SEAT_TABLE;
                ret->place[i] = 0;
        }
}

/* ---- Names. */

#define NAME(table, i) \
        (((size_t) (i) < sizeof(table) / sizeof(table[0]) && (table)[i]) ? (table)[i] : "unknown")

const char *eng_input_kind_name(enum eng_input_kind kind) {
        static const char *const names[] = {
                [ENG_IN_START] = "start",
                [ENG_IN_CALL] = "call",
                [ENG_IN_TIE] = "tie",
                [ENG_IN_PRESS] = "press",
                [ENG_IN_TIMER] = "timer",
                [ENG_IN_PAUSE] = "pause",
                [ENG_IN_RESUME] = "resume",
                [ENG_IN_REFEREE] = "referee",
        };
        return NAME(names, kind);
}

const char *eng_output_kind_name(enum eng_output_kind kind) {
        static const char *const names[] = {
                [ENG_EV_MATCH_STARTED] = "match_started",
                [ENG_EV_CARD_REVEALED] = "card_revealed",
                [ENG_EV_CALL_JUDGED] = "call_judged",
                [ENG_EV_TIEBREAK_STARTED] = "tiebreak_started",
                [ENG_EV_CARD_PLACED] = "card_placed",
                [ENG_EV_CARD_TUCKED] = "card_tucked",
                [ENG_EV_CHIP_GIVEN] = "chip_given",
                [ENG_EV_PLAYER_ELIMINATED] = "player_eliminated",
                [ENG_EV_REVEAL_EXPIRED] = "reveal_expired",
                [ENG_EV_CALL_VOIDED] = "call_voided",
                [ENG_EV_PAUSED] = "paused",
                [ENG_EV_RESUMED] = "resumed",
                [ENG_EV_SCORE_CHANGED] = "score_changed",
                [ENG_EV_GAME] = "game",
                [ENG_EV_MATCH_FINISHED] = "match_finished",
                [ENG_REQ_WINDOW_OPEN] = "window_open",
                [ENG_REQ_WINDOW_CLOSE] = "window_close",
                [ENG_REQ_PAD_LIGHT] = "pad_light",
                [ENG_REQ_PAD_BUZZ] = "pad_buzz",
                [ENG_REQ_PAD_LOCKOUT] = "pad_lockout",
        };
        return NAME(names, kind);
}

const char *eng_refusal_name(enum eng_refusal refusal) {
        static const char *const names[] = {
                [ENG_ACCEPTED] = "accepted",
                [ENG_REFUSED_SEQ] = "seq not after the last input",
                [ENG_REFUSED_TIME] = "time before the last input",
                [ENG_REFUSED_INVALID] = "invalid",
                [ENG_REFUSED_STATE] = "not possible now",
                [ENG_REFUSED_TOO_LATE] = "too late",
                [ENG_REFUSED_NOT_ALLOWED] = "not allowed",
                [ENG_REFUSED_NOT_DUE] = "timer not due",
                [ENG_REFUSED_FINISHED] = "match finished",
                [ENG_REFUSED_UNSUPPORTED] = "not used by this game",
        };
        return NAME(names, refusal);
}

const char *eng_verdict_name(enum eng_verdict verdict) {
        static const char *const names[] = {
                [ENG_VERDICT_CORRECT] = "correct",
                [ENG_VERDICT_WRONG] = "wrong",
                [ENG_VERDICT_TOO_LATE] = "too_late",
                [ENG_VERDICT_NOT_ALLOWED] = "not_allowed",
        };
        return NAME(names, verdict);
}

const char *eng_cause_name(enum eng_cause cause) {
        static const char *const names[] = {
                [ENG_CAUSE_WRONG_CALL] = "wrong_call",
                [ENG_CAUSE_DOESNT_FIT] = "doesnt_fit",
                [ENG_CAUSE_TIE] = "tie",
                [ENG_CAUSE_EXPIRED] = "expired",
        };
        return NAME(names, cause);
}

const char *eng_status_name(enum eng_status status) {
        static const char *const names[] = {
                [ENG_STATUS_READY] = "ready",
                [ENG_STATUS_RUNNING] = "running",
                [ENG_STATUS_PAUSED] = "paused",
                [ENG_STATUS_FINISHED] = "finished",
        };
        return NAME(names, status);
}

/* ---- Outputs as a walk. */

static int visit_seats(const struct eng_visitor *v, void *ctx, const char *key, uint32_t seats) {
        int r = v->array_begin(ctx, key);

        for (int s = 0; r >= 0 && s < ENG_MAX_SEATS; s++)
                if (seats & (UINT32_C(1) << s))
                        r = v->integer(ctx, NULL, s);
        return r < 0 ? r : v->array_end(ctx);
}

static int visit_card(const struct eng_game *game, const struct eng_visitor *v, void *ctx,
                      uint32_t card) {
        int r = v->object_begin(ctx, "card");

        if (r >= 0)
                r = game->card_visit(card, v, ctx);
        return r < 0 ? r : v->object_end(ctx);
}

static int visit_call(const struct eng_game *game, const struct eng_visitor *v, void *ctx,
                      int call) {
        const char *name = game->call_name(call);
        int r = v->integer(ctx, "call", call);

        if (r < 0)
                return r;
        return name ? v->string(ctx, "call_name", name) : v->null(ctx, "call_name");
}

static int visit_source(const struct eng_visitor *v, void *ctx, int source) {
        switch (source) {
        case ENG_SOURCE_NEUTRAL:
                return v->string(ctx, "source", "neutral");
        case ENG_SOURCE_AGAIN:
                return v->string(ctx, "source", "again");
        default:
                return v->string(ctx, "source", "stack");
        }
}

/* One switch for every kind so that api/ and bus/ never decode a union
 * themselves; the field names are the JSON names docs/engine.md lists. */
int eng_output_visit(const struct eng_game *game, const struct eng_output *o,
                     const struct eng_visitor *v, void *ctx) {
        int r;

        r = v->string(ctx, "kind", eng_output_kind_name(o->kind));
        if (r >= 0)
                r = o->seat >= 0 ? v->integer(ctx, "seat", o->seat) : v->null(ctx, "seat");
        if (r >= 0)
                r = v->integer(ctx, "at_us", o->at_us);
        if (r < 0)
                return r;

        switch (o->kind) {
        case ENG_EV_CARD_REVEALED:
                r = visit_card(game, v, ctx, o->revealed.card);
                if (r >= 0)
                        r = visit_source(v, ctx, o->revealed.source);
                if (r >= 0)
                        r = v->integer(ctx, "reveal", o->revealed.reveal);
                break;
        case ENG_EV_CALL_JUDGED:
                r = visit_call(game, v, ctx, o->judged.call);
                if (r >= 0)
                        r = v->string(ctx, "verdict", eng_verdict_name(o->judged.verdict));
                if (r >= 0)
                        r = v->integer(ctx, "reaction_us", o->judged.reaction_us);
                if (r >= 0)
                        r = v->integer(ctx, "window", o->judged.window);
                if (r >= 0)
                        r = visit_card(game, v, ctx, o->judged.card);
                break;
        case ENG_EV_TIEBREAK_STARTED:
                r = visit_seats(v, ctx, "seats", o->tiebreak.seats);
                break;
        case ENG_EV_CARD_PLACED:
                r = visit_card(game, v, ctx, o->placed.card);
                if (r >= 0)
                        r = v->integer(ctx, "row", o->placed.row);
                break;
        case ENG_EV_CARD_TUCKED:
                r = visit_card(game, v, ctx, o->tucked.card);
                if (r >= 0)
                        r = v->string(ctx, "cause", eng_cause_name(o->tucked.cause));
                break;
        case ENG_EV_CHIP_GIVEN:
                r = v->integer(ctx, "chips", o->chip.chips);
                break;
        case ENG_EV_PLAYER_ELIMINATED:
                r = v->integer(ctx, "order", o->eliminated.order);
                break;
        case ENG_EV_REVEAL_EXPIRED:
                r = visit_card(game, v, ctx, o->expired.card);
                break;
        case ENG_EV_CALL_VOIDED:
                r = v->integer(ctx, "voided_seq", (int64_t) o->voided.seq);
                break;
        case ENG_EV_SCORE_CHANGED:
                r = v->integer(ctx, "delta", o->score.delta);
                if (r >= 0)
                        r = v->integer(ctx, "total", o->score.total);
                break;
        case ENG_EV_GAME:
                r = v->integer(ctx, "code", o->game.code);
                if (r >= 0)
                        r = v->array_begin(ctx, "args");
                for (int i = 0; r >= 0 && i < 4; i++)
                        r = v->integer(ctx, NULL, o->game.arg[i]);
                if (r >= 0)
                        r = v->array_end(ctx);
                break;
        case ENG_EV_MATCH_FINISHED:
                r = o->finished.winner >= 0 ? v->integer(ctx, "winner", o->finished.winner)
                                            : v->null(ctx, "winner");
                if (r >= 0)
                        r = v->array_begin(ctx, "placements");
                for (unsigned s = 0; r >= 0 && s < o->finished.n_seats && s < ENG_MAX_SEATS; s++)
                        r = v->integer(ctx, NULL, o->finished.place[s]);
                if (r >= 0)
                        r = v->array_end(ctx);
                break;
        case ENG_REQ_WINDOW_OPEN:
                r = v->integer(ctx, "window", o->window.window);
                if (r >= 0)
                        r = visit_seats(v, ctx, "seats", o->window.seats);
                break;
        case ENG_REQ_WINDOW_CLOSE:
                r = v->integer(ctx, "window", o->window.window);
                break;
        case ENG_REQ_PAD_LIGHT:
                r = v->integer(ctx, "button", o->light.button);
                if (r >= 0)
                        r = v->integer(ctx, "mode", o->light.mode);
                if (r >= 0)
                        r = v->integer(ctx, "duration_ms", o->light.duration_ms);
                break;
        case ENG_REQ_PAD_BUZZ:
                r = v->integer(ctx, "pattern", o->buzz.pattern);
                if (r >= 0)
                        r = v->integer(ctx, "duration_ms", o->buzz.duration_ms);
                break;
        case ENG_REQ_PAD_LOCKOUT:
                r = v->integer(ctx, "buttons", o->lockout.buttons);
                break;
        case ENG_EV_MATCH_STARTED:
        case ENG_EV_PAUSED:
        case ENG_EV_RESUMED:
        default:
                break;
        }
        return r;
}
