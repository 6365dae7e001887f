/* engine/pitch_fleet_sim.c — a random legal referee for Pitch Fleet and a
 * whole-game simulation (pitch_fleet.h), for the unit tests' properties,
 * tests/unit/test_audience.c and the engine benchmark.
 *
 * The referee reads the state the way a referee reads the table: whose turn
 * it is, the face-up cards, the ships dealt and where they are, the layout
 * in play; it draws a random report that is possible there (locations of
 * one board, ships that are on the board), and now and then an impossible
 * input that the engine must refuse — always one a referee could send over
 * REST (every field within its range), so that the same inputs drive the
 * integration tests.  Pure: engine/ only, no allocation.
 */
#include "engine/pitch_fleet.h"

#include <errno.h>
#include <string.h>

#define PERCENT 100

static bool chance(struct eng_rng *rng, unsigned pct) {
        return eng_rng_below(rng, PERCENT) < pct;
}

void pf_sim_params_default(struct pf_sim_params *ret) {
        *ret = (struct pf_sim_params) {
                .outbound_pct = 12,
                .knock_pct = 25,
                .restart_pct = 30,
                .foul_pct = 3,
                .keep_pct = 60,
                .success_pct = 45,
                .junk_pct = 3,
                .max_inputs = 20000,
        };
}

/* A random location of planet's board (the planet itself half the time). */
static unsigned board_location(struct eng_rng *rng, unsigned planet) {
        unsigned first = 0, n = 1;

        pf_board_locations(planet, &first, &n);
        if (chance(rng, 50))
                return first;
        return first + (unsigned) eng_rng_below(rng, n);
}

static int team_of(const struct pf_state *st, int seat) {
        return (int) pf_ship_team((unsigned) st->seats[seat].ship);
}

static bool restart_allowed(const struct pf_state *st) {
        const struct pf_turn *t = &st->turn;

        return (st->phase == PF_PHASE_DECIDE || st->phase == PF_PHASE_CHARGE) && !t->kept && !t->rep.collided &&
               !t->rep.knocked && !t->rep.beams_knocked && st->seats[st->current_seat].restart_card;
}

static void action(struct eng_input *in, enum pf_action a) {
        in->kind = ENG_IN_ACTION;
        in->action = a;
}

static void pick(const struct pf_state *st, struct eng_rng *rng, struct eng_input *in) {
        unsigned cards[PF_MAX_SEATS], n = 0, ships[PF_SHIPS_PER_TEAM], n_ships = 0, card, kind;
        int team = team_of(st, st->current_seat);
        unsigned ship;

        if (st->turn.forced != PF_NO_CARD) {
                card = st->turn.forced;
        } else {
                for (int s = 0; s < st->n_seats; s++)
                        if (st->seats[s].pile.n && st->seats[s].pile.up)
                                cards[n++] = st->seats[s].pile.cards[st->seats[s].pile.n - 1];
                card = cards[eng_rng_below(rng, n)];
        }
        kind = st->card_kind[card];
        for (unsigned s = 0; s < PF_N_SHIPS; s++)
                if (st->owner[s] >= 0 && (int) pf_ship_team(s) == team)
                        ships[n_ships++] = s;
        ship = ships[eng_rng_below(rng, n_ships)];
        action(in, PF_ACTION_PICK);
        in->arg[PF_PICK_CARD] = pf_handle(st, card);
        in->arg[PF_PICK_SHIP] = ship;
        in->arg[PF_PICK_START_AT] = ENG_ABSENT;
        in->arg[PF_PICK_RELOCATE_TO] = ENG_ABSENT;
        in->arg[PF_PICK_BEAM_AT] = ENG_ABSENT;
        if (!st->ships[ship].on_board && chance(rng, 20))
                in->arg[PF_PICK_START_AT] = board_location(rng, st->start_planet);
        if (kind == PF_CARD_B6) {
                unsigned planet;

                do
                        planet = (unsigned) eng_rng_below(rng, PF_N_PLANETS);
                while (planet == st->goal_planet);
                in->arg[PF_PICK_RELOCATE_TO] = pf_planet_location(planet);
        }
        if (kind == PF_CARD_B10 && chance(rng, 50))
                in->arg[PF_PICK_RELOCATE_TO] = board_location(rng, (unsigned) eng_rng_below(rng, PF_N_PLANETS));
        if (kind == PF_CARD_B4 && chance(rng, 50))
                in->arg[PF_PICK_BEAM_AT] = board_location(rng, (unsigned) eng_rng_below(rng, PF_N_PLANETS));
}

static void shot(const struct pf_state *st, struct eng_rng *rng, const struct pf_sim_params *p,
                 struct eng_input *in) {
        const struct pf_turn *t = &st->turn;
        unsigned kind = st->card_kind[t->card], others[PF_N_SHIPS], n_others = 0;
        bool moved_out = false, beam_shot = kind == PF_CARD_A3;
        int64_t *a = in->arg;

        action(in, PF_ACTION_SHOT);
        if (kind == PF_CARD_A5 && chance(rng, 10)) {
                a[PF_SHOT_SPRINGBOARD_FAILED] = 1;
                return;
        }
        for (unsigned s = 0; s < PF_N_SHIPS; s++)
                if (st->ships[s].on_board && (int) s != t->ship)
                        others[n_others++] = s;
        if (!beam_shot && chance(rng, p->outbound_pct)) {
                moved_out = true;
                if (chance(rng, 20))
                        a[PF_SHOT_STACKED] = 1;
                else
                        a[1 + a[PF_SHOT_OUTBOUND]++] = t->ship;
        }
        if (n_others && chance(rng, p->knock_pct)) {
                unsigned k = 1 + (unsigned) eng_rng_below(rng, n_others < 2 ? n_others : 2);

                for (unsigned i = 0; i < k; i++) {
                        unsigned j = i + (unsigned) eng_rng_below(rng, n_others - i), s = others[j];

                        others[j] = others[i];
                        others[i] = s;
                        a[PF_SHOT_KNOCKED + 1 + a[PF_SHOT_KNOCKED]++] = s;
                        if (chance(rng, 35)) {
                                a[PF_SHOT_OUTBOUND + 1 + a[PF_SHOT_OUTBOUND]++] = s;
                                a[PF_SHOT_KNOCKED_AT + 1 + a[PF_SHOT_KNOCKED_AT]++] = PF_LOC_NONE;
                        } else {
                                a[PF_SHOT_KNOCKED_AT + 1 + a[PF_SHOT_KNOCKED_AT]++] =
                                        board_location(rng, (unsigned) eng_rng_below(rng, PF_N_PLANETS));
                        }
                }
                a[PF_SHOT_COLLIDED] = 1;
        }
        if (st->beams && chance(rng, 10)) {
                a[PF_SHOT_BEAMS_KNOCKED] = 1;
                a[PF_SHOT_COLLIDED] = 1;
        }
        if (chance(rng, 10))
                a[PF_SHOT_COLLIDED] = 1;
        if (!moved_out) {
                /* Where it ends: the goal's board most of the time. */
                unsigned planet = chance(rng, 60) ? st->goal_planet : (unsigned) eng_rng_below(rng, PF_N_PLANETS);
                unsigned first = 0, n = 1, k = (unsigned) eng_rng_below(rng, 3);

                pf_board_locations(planet, &first, &n);
                for (unsigned i = 0; i < k; i++) {
                        unsigned loc = first + (unsigned) eng_rng_below(rng, n);
                        bool dup = false;

                        for (int64_t j = 0; j < a[PF_SHOT_AT]; j++)
                                dup |= a[PF_SHOT_AT + 1 + j] == loc;
                        if (!dup)
                                a[PF_SHOT_AT + 1 + a[PF_SHOT_AT]++] = loc;
                }
        }
}

int pf_sim_next(const struct pf_state *st, struct eng_rng *rng, const struct pf_sim_params *p, uint64_t seq,
                int64_t now, struct eng_input *ret, bool *ret_junk) {
        bool junk = false;

        if (st->phase == PF_PHASE_FINISHED)
                return -EAGAIN;
        memset(ret, 0, sizeof *ret);
        ret->seq = seq;
        ret->time_us = now;
        ret->seat = ENG_SEAT_TABLE;
        if (st->phase == PF_PHASE_READY) {
                ret->kind = ENG_IN_START;
                goto done;
        }
        if (chance(rng, p->junk_pct)) {
                junk = true;
                switch (st->phase) {
                case PF_PHASE_PICK:
                        action(ret, PF_ACTION_END_TURN);        /* nothing to end yet */
                        break;
                case PF_PHASE_ATTEMPT: {
                        const struct pf_challenge *c = &st->cat.cards[st->solo_order[st->solo_pos]];

                        if (c->moves < PF_MAX_CHALLENGE_MOVES) {
                                action(ret, PF_ACTION_ATTEMPT); /* a success past the move limit */
                                ret->arg[PF_ATTEMPT_RESULT] = PF_RESULT_SUCCESS;
                                ret->arg[PF_ATTEMPT_MOVES] = c->moves + 1;
                        } else {
                                action(ret, PF_ACTION_END_TURN);        /* no turn in solo */
                        }
                        break;
                }
                default:
                        action(ret, PF_ACTION_PICK);            /* a card is in play already */
                        ret->arg[PF_PICK_CARD] = pf_handle(st, st->turn.card != PF_NO_CARD ? st->turn.card : 0);
                        ret->arg[PF_PICK_SHIP] = st->seats[st->current_seat].ship;
                        ret->arg[PF_PICK_START_AT] = ret->arg[PF_PICK_RELOCATE_TO] = ENG_ABSENT;
                        ret->arg[PF_PICK_BEAM_AT] = ENG_ABSENT;
                        break;
                }
                goto done;
        }
        switch (st->phase) {
        case PF_PHASE_ATTEMPT: {
                const struct pf_challenge *c = &st->cat.cards[st->solo_order[st->solo_pos]];
                bool ok = chance(rng, p->success_pct);

                action(ret, PF_ACTION_ATTEMPT);
                ret->arg[PF_ATTEMPT_RESULT] = ok ? PF_RESULT_SUCCESS : PF_RESULT_FAILURE;
                ret->arg[PF_ATTEMPT_MOVES] = 1 + (int64_t) eng_rng_below(rng, ok ? c->moves : PF_MAX_CHALLENGE_MOVES);
                break;
        }
        case PF_PHASE_PICK:
                pick(st, rng, ret);
                break;
        case PF_PHASE_SHOT:
                if (chance(rng, p->foul_pct))
                        action(ret, PF_ACTION_FOUL);
                else
                        shot(st, rng, p, ret);
                break;
        case PF_PHASE_CHARGE:
        case PF_PHASE_DECIDE:
                if (restart_allowed(st) && chance(rng, p->restart_pct)) {
                        action(ret, PF_ACTION_RESTART);
                } else if (!st->turn.kept && chance(rng, p->foul_pct)) {
                        action(ret, PF_ACTION_FOUL);
                } else if (st->phase == PF_PHASE_CHARGE) {
                        action(ret, PF_ACTION_CHARGE);
                        ret->arg[PF_CHARGE_CHOICE] = chance(rng, p->keep_pct) ? PF_CHARGE_KEEP : PF_CHARGE_USE;
                } else {
                        action(ret, PF_ACTION_END_TURN);
                }
                break;
        default:
                return -EPROTO;
        }
done:
        if (ret_junk)
                *ret_junk = junk;
        return 0;
}

int pf_sim_match(struct pf_state *st, const struct eng_config *cfg, unsigned n_seats, uint64_t seed,
                 uint64_t ref_seed, const struct pf_sim_params *p, struct eng_input *log, size_t log_cap,
                 pf_sim_step_fn step, void *ctx, struct pf_sim_stats *ret_stats) {
        struct pf_sim_stats stats = { 0 };
        struct eng_rng rng;
        struct eng_out out;
        int64_t now = INT64_C(1000000000);
        uint64_t seq = 0;
        int r;

        if (!st || !cfg || !p || pf_game.create(st, cfg, NULL, n_seats, seed) < 0)
                return -EINVAL;
        eng_rng_seed(&rng, ref_seed);
        for (;;) {
                struct eng_input in;
                bool junk = false;

                now += 1000 + (int64_t) eng_rng_below(&rng, 20000000);
                r = pf_sim_next(st, &rng, p, seq + 1, now, &in, &junk);
                if (r == -EAGAIN)
                        break;
                if (r < 0)
                        return r;
                if (stats.inputs >= p->max_inputs)
                        return -E2BIG;
                if (log) {
                        if (stats.inputs >= log_cap)
                                return -ENOBUFS;
                        log[stats.inputs] = in;
                }
                r = pf_game.apply(st, &in, &out);
                if (r < 0)
                        return r;
                stats.inputs++;
                stats.outputs += out.n;
                if (out.refusal != ENG_ACCEPTED) {
                        stats.refused++;
                        if (!junk)
                                return -EPROTO;
                } else if (junk) {
                        return -EPROTO;
                }
                seq = in.seq;           /* the log numbers refused inputs too */
                stats.junk += junk;
                if (!junk && in.kind == ENG_IN_ACTION) {
                        stats.turns += in.action == PF_ACTION_END_TURN;
                        stats.restarts += in.action == PF_ACTION_RESTART;
                        stats.fouls += in.action == PF_ACTION_FOUL;
                        stats.charges += in.action == PF_ACTION_CHARGE;
                }
                if (step) {
                        r = step(ctx, st, &in, &out);
                        if (r < 0)
                                return r;
                }
        }
        if (ret_stats)
                *ret_stats = stats;
        return 0;
}
