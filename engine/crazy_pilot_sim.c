/* engine/crazy_pilot_sim.c — a bot and a whole simulated table for Crazy
 * Pilot, for the property tests, the audience test and the engine
 * benchmark (crazy_pilot.h).
 *
 * The simulation plays the runtime's part: it builds exactly the inputs the
 * runtime would — every pad press as a PRESS in press order with its press
 * time, uncertainty and receive time, a TIMER at the engine's wake-up — and
 * the players' part: each seat looks at its own view only (cz_view_of),
 * asks the bot what its scene calls for after a human reaction time, shouts
 * at zombies (and sometimes at nothing), slaps in a race (or forgets to),
 * says Driiiiive (or lets the time run out); with two players it covers
 * the cards sent to it that show a zombie.  It also throws in inputs that
 * must be refused, and checks that every input it meant to be accepted was
 * and every junk input was refused.
 */
#include "engine/crazy_pilot.h"

#include <errno.h>
#include <string.h>

/* Simulated matches start at 1 s of CLOCK_MONOTONIC (a non-zero time
 * catches code that treats 0 as "no time"). */
#define SIM_T0_US               INT64_C(1000000)
/* The press stream hands a press over a settle window after it. */
#define SIM_SETTLE_US           2500
/* A racer slaps this long after the shout, at most (plus the minimum). */
#define SIM_SLAP_SPAN_US        INT64_C(900000)
#define SIM_SLAP_MIN_US         INT64_C(150000)
/* The shouter says Driiiiive this long after the check. */
#define SIM_DRIVE_US            INT64_C(1500000)
#define PERCENT                 100

int cz_bot_choose(const struct cz_view *v, struct eng_rng *rng, unsigned error_pct, unsigned false_shout_pct,
                  bool *ret_shout, unsigned *ret_place) {
        enum cz_answer answer;
        unsigned place;

        if (!v || !rng || !ret_shout || !ret_place || !v->has_card || !(v->may_resolve || v->may_shout))
                return -EAGAIN;
        answer = cz_scene_answer(&v->scene, NULL);
        *ret_shout = false;
        if (answer == CZ_ANS_ZOMBIE || eng_rng_below(rng, PERCENT) < false_shout_pct) {
                *ret_shout = true;
                *ret_place = CZ_PLACE_UNDER_CAR;
                return 0;
        }
        switch (answer) {
        case CZ_ANS_LEFT:
                place = CZ_PLACE_LEFT;
                break;
        case CZ_ANS_RIGHT:
                place = CZ_PLACE_RIGHT;
                break;
        case CZ_ANS_UTURN:
                place = CZ_PLACE_UTURN;
                break;
        case CZ_ANS_HAND:
                place = CZ_PLACE_HAND;
                break;
        case CZ_ANS_FORK_LEFT:
                place = eng_rng_below(rng, 2) ? CZ_PLACE_LEFT : CZ_PLACE_STRAIGHT;
                break;
        case CZ_ANS_FORK_RIGHT:
                place = eng_rng_below(rng, 2) ? CZ_PLACE_RIGHT : CZ_PLACE_STRAIGHT;
                break;
        default:
                place = CZ_PLACE_STRAIGHT;
                break;
        }
        if (eng_rng_below(rng, PERCENT) < error_pct)
                place = (place + 1 + (unsigned) eng_rng_below(rng, CZ_N_RESOLVE - 1)) % CZ_N_RESOLVE;
        *ret_place = place;
        return 0;
}

void cz_sim_params_default(struct cz_sim_params *ret) {
        *ret = (struct cz_sim_params) {
                .error_pct = 10,
                .false_shout_pct = 3,
                .miss_zombie_pct = 10,
                .no_slap_pct = 3,
                .drive_timeout_pct = 20,
                .junk_pct = 3,
                .cover_pct = 60,
                .reaction_min_us = 400000,
                .reaction_max_us = 2500000,
                .uncertainty_us = 300,
                .max_inputs = 100000,
        };
}

/* What one seat means to do with its face-up card, and when. */
struct plan {
        bool valid;
        int64_t for_shown_us;           /* the card it was planned for came up then */
        uint32_t handle;
        int64_t at_us;
        bool shout;
        unsigned place;
};

struct sim {
        struct cz_state *st;
        const struct cz_sim_params *p;
        struct eng_rng rng;
        struct eng_input *log;
        size_t log_cap;
        cz_sim_step_fn step;
        void *ctx;
        struct cz_sim_stats stats;
        uint64_t seq;
        int64_t now;
        struct plan plans[CZ_MAX_SEATS];
};

enum expect {
        EXPECT_ACCEPT,
        EXPECT_REFUSE,
        EXPECT_ANY,
};

static int submit(struct sim *sim, struct eng_input *in, enum expect expect) {
        struct eng_out out;
        int r;

        if (sim->stats.inputs >= sim->p->max_inputs)
                return -E2BIG;
        if (sim->log) {
                if (sim->stats.inputs >= sim->log_cap)
                        return -ENOBUFS;
                sim->log[sim->stats.inputs] = *in;
        }
        r = cz_game.apply(sim->st, in, &out);
        if (r < 0)
                return r;
        sim->stats.inputs++;
        sim->stats.outputs += out.n;
        if (out.refusal != ENG_ACCEPTED)
                sim->stats.refused++;
        for (size_t i = 0; i < out.n; i++)
                if (out.v[i].def == &cz_ev_penalty_given)
                        sim->stats.penalties++;
        if (sim->step) {
                r = sim->step(sim->ctx, sim->st, in, &out);
                if (r < 0)
                        return r;
        }
        if (expect == EXPECT_ACCEPT && out.refusal != ENG_ACCEPTED)
                return -EPROTO;
        if (expect == EXPECT_REFUSE && out.refusal == ENG_ACCEPTED)
                return -EPROTO;
        return 0;
}

static struct eng_input next_input(struct sim *sim, enum eng_input_kind kind, int seat) {
        struct eng_input in;

        memset(&in, 0, sizeof in);
        in.seq = ++sim->seq;
        in.time_us = sim->now;
        in.kind = kind;
        in.seat = seat;
        return in;
}

static bool roll(struct sim *sim, unsigned pct) {
        return eng_rng_below(&sim->rng, PERCENT) < pct;
}

static int64_t span(struct sim *sim, int64_t lo, int64_t hi) {
        return lo + (int64_t) eng_rng_below(&sim->rng, (uint64_t) (hi - lo) + 1);
}

/* A pad press made at press_us, handed over after the settle window. */
static int press(struct sim *sim, int seat, enum eng_pad_role role, unsigned button, int64_t press_us,
                 enum expect expect) {
        struct eng_input in;

        if (sim->now < press_us + SIM_SETTLE_US)
                sim->now = press_us + SIM_SETTLE_US;
        in = next_input(sim, ENG_IN_PRESS, seat);
        in.press.role = role;
        in.press.button = button;
        in.press.press_us = press_us;
        in.press.uncertainty_us = sim->p->uncertainty_us;
        in.press.received_us = press_us + SIM_SETTLE_US / 2;
        return submit(sim, &in, expect);
}

static int timer(struct sim *sim) {
        struct eng_input in;

        if (sim->now < sim->st->wake_us)
                sim->now = sim->st->wake_us;
        in = next_input(sim, ENG_IN_TIMER, ENG_SEAT_TABLE);
        return submit(sim, &in, EXPECT_ACCEPT);
}

/* An input that must be refused, of a kind picked at random. */
static int junk(struct sim *sim) {
        const struct cz_state *st = sim->st;
        struct eng_input in;

        sim->stats.junk++;
        switch (eng_rng_below(&sim->rng, 7)) {
        case 0:                 /* no such seat */
                in = next_input(sim, ENG_IN_PRESS, st->n_seats);
                in.press.role = ENG_ROLE_BUTTONS;
                in.press.press_us = sim->now;
                break;
        case 1:                 /* no such button */
                in = next_input(sim, ENG_IN_PRESS, 0);
                in.press.role = ENG_ROLE_BUTTONS;
                in.press.button = CZ_PAD_BUTTONS;
                in.press.press_us = sim->now;
                break;
        case 2:                 /* a press from the future */
                in = next_input(sim, ENG_IN_PRESS, 0);
                in.press.role = ENG_ROLE_BUTTONS;
                in.press.press_us = sim->now + 1;
                break;
        case 3:                 /* started already */
                in = next_input(sim, ENG_IN_START, ENG_SEAT_TABLE);
                break;
        case 4:                 /* not paused */
                in = next_input(sim, ENG_IN_RESUME, ENG_SEAT_TABLE);
                break;
        case 5:                 /* a repeated sequence number */
                in = next_input(sim, ENG_IN_PAUSE, ENG_SEAT_TABLE);
                sim->seq--;
                in.seq = st->last_seq;
                break;
        default:                /* time going backwards */
                in = next_input(sim, ENG_IN_PAUSE, ENG_SEAT_TABLE);
                in.time_us = st->last_us - 1;
                break;
        }
        return submit(sim, &in, EXPECT_REFUSE);
}

/* Each seat's plan for the card it has up (made when the card came up). */
static void make_plans(struct sim *sim) {
        const struct cz_sim_params *p = sim->p;

        for (int s = 0; s < sim->st->n_seats; s++) {
                struct plan *pl = &sim->plans[s];
                struct cz_view v;

                if (cz_view_of(sim->st, s, &v) < 0 || !v.may_resolve) {
                        pl->valid = false;
                        continue;
                }
                if (pl->valid && pl->for_shown_us == v.shown_us && pl->handle == v.handle)
                        continue;
                pl->valid = cz_bot_choose(&v, &sim->rng, p->error_pct, p->false_shout_pct, &pl->shout,
                                          &pl->place) == 0;
                if (!pl->valid)
                        continue;
                if (pl->shout && cz_scene_answer(&v.scene, NULL) == CZ_ANS_ZOMBIE && roll(sim, p->miss_zombie_pct)) {
                        pl->shout = false;
                        pl->place = (unsigned) eng_rng_below(&sim->rng, CZ_N_RESOLVE);
                }
                pl->for_shown_us = v.shown_us;
                pl->handle = v.handle;
                pl->at_us = (v.shown_us > sim->now ? v.shown_us : sim->now) +
                            span(sim, p->reaction_min_us, p->reaction_max_us);
        }
}

/* The race: perhaps a second shout within the grace, then the racers'
 * slaps in press order (some never come), then the deadline's timer if a
 * racer is missing. */
static int play_race(struct sim *sim) {
        struct cz_state *st = sim->st;
        int64_t shout_us = st->race.shout_us, at[CZ_MAX_SEATS];
        int order[CZ_MAX_SEATS], n = 0, r;

        sim->stats.races++;
        for (int s = 0; s < st->n_seats; s++) {
                struct cz_view v;

                if (!(st->race.racers & (UINT32_C(1) << s)) || cz_view_of(st, s, &v) < 0 || !v.has_card)
                        continue;
                /* A zombie of its own, seen at the same moment: a
                 * simultaneous shout (Z21). */
                if (cz_scene_answer(&v.scene, NULL) == CZ_ANS_ZOMBIE && roll(sim, 30)) {
                        int64_t t = shout_us + (int64_t) eng_rng_below(&sim->rng, (uint64_t) st->grace_us + 1);

                        if (t < sim->now - SIM_SETTLE_US)
                                t = sim->now - SIM_SETTLE_US;
                        sim->stats.shouts++;
                        r = press(sim, s, ENG_ROLE_BUTTONS, CZ_BUTTON_SHOUT, t, EXPECT_ANY);
                        if (r < 0)
                                return r;
                        if (st->phase != CZ_PHASE_RACE)
                                return 0;
                }
        }
        for (int s = 0; s < st->n_seats; s++) {
                if (!(st->race.racers & (UINT32_C(1) << s)) || roll(sim, sim->p->no_slap_pct))
                        continue;
                at[s] = shout_us + span(sim, SIM_SLAP_MIN_US, SIM_SLAP_MIN_US + SIM_SLAP_SPAN_US);
                if (at[s] < sim->now - SIM_SETTLE_US)
                        at[s] = sim->now - SIM_SETTLE_US;
                if (at[s] > st->race.deadline_us)
                        continue;       /* too slow: it counts as missing */
                order[n++] = s;
        }
        /* Press order (insertion sort; at most five). */
        for (int i = 1; i < n; i++)
                for (int j = i; j > 0 && at[order[j]] < at[order[j - 1]]; j--) {
                        int t = order[j];

                        order[j] = order[j - 1];
                        order[j - 1] = t;
                }
        for (int i = 0; i < n && st->phase == CZ_PHASE_RACE; i++) {
                r = press(sim, order[i], ENG_ROLE_SLAP, 0, at[order[i]], EXPECT_ACCEPT);
                if (r < 0)
                        return r;
        }
        if (st->phase == CZ_PHASE_RACE)
                return timer(sim);
        return 0;
}

/* After the check: the earliest shouter says Driiiiive with its slap pad,
 * or a referee does, or the time runs out. */
static int play_checked(struct sim *sim) {
        struct cz_state *st = sim->st;
        struct eng_input in;
        int64_t t = sim->now + SIM_DRIVE_US;

        if (roll(sim, sim->p->drive_timeout_pct) || t >= st->wake_us)
                return timer(sim);
        if (roll(sim, 20)) {
                sim->now = t;
                in = next_input(sim, ENG_IN_ACTION, ENG_SEAT_TABLE);
                in.action = CZ_ACTION_DRIVE;
                return submit(sim, &in, EXPECT_ACCEPT);
        }
        return press(sim, st->race.first, ENG_ROLE_SLAP, 0, t, EXPECT_ACCEPT);
}

/* 2 players: the seat looks at the cards in front of it now and then and
 * covers those that show a zombie (and, rarely, one that does not). */
static int maybe_cover(struct sim *sim, int s) {
        struct cz_view v;
        struct eng_input in;

        if (cz_view_of(sim->st, s, &v) < 0)
                return -EPROTO;
        for (unsigned i = 0; i < v.n_front; i++) {
                bool zombie = cz_scene_answer(&v.front_scene[i], NULL) == CZ_ANS_ZOMBIE;

                if (v.front_covered[i] || !roll(sim, zombie ? sim->p->cover_pct : 5))
                        continue;
                in = next_input(sim, ENG_IN_ACTION, s);
                in.action = CZ_ACTION_COVER;
                in.arg[CZ_COVER_CARD] = v.front_handle[i];
                return submit(sim, &in, EXPECT_ACCEPT);
        }
        return 0;
}

/* Playing: the seat whose plan comes first acts. */
static int play_step(struct sim *sim) {
        struct cz_state *st = sim->st;
        struct plan *pl;
        int seat = -1, r;

        if (roll(sim, sim->p->junk_pct)) {
                r = junk(sim);
                if (r < 0)
                        return r;
        }
        make_plans(sim);
        for (int s = 0; s < st->n_seats; s++)
                if (sim->plans[s].valid && (seat < 0 || sim->plans[s].at_us < sim->plans[seat].at_us))
                        seat = s;
        if (seat < 0)
                return -EPROTO;         /* nobody can act while playing */
        pl = &sim->plans[seat];
        pl->valid = false;
        if (pl->at_us < sim->now - SIM_SETTLE_US)
                pl->at_us = sim->now - SIM_SETTLE_US;
        if (pl->shout) {
                sim->stats.shouts++;
                r = press(sim, seat, ENG_ROLE_BUTTONS, CZ_BUTTON_SHOUT, pl->at_us, EXPECT_ACCEPT);
                if (r >= 0 && st->two_player && st->phase != CZ_PHASE_FINISHED)
                        r = maybe_cover(sim, 1 - seat);
                return r;
        }
        sim->stats.resolutions++;
        return press(sim, seat, ENG_ROLE_BUTTONS, pl->place, pl->at_us, EXPECT_ACCEPT);
}

int cz_sim_match(struct cz_state *st, const struct eng_config *cfg, unsigned n_seats, uint64_t seed,
                 uint64_t bot_seed, const struct cz_sim_params *p, struct eng_input *log, size_t log_cap,
                 cz_sim_step_fn step, void *ctx, struct cz_sim_stats *ret_stats) {
        struct sim sim = {
                .st = st, .p = p, .log = log, .log_cap = log_cap, .step = step, .ctx = ctx, .now = SIM_T0_US,
        };
        struct eng_input in;
        int r;

        if (!st || !cfg || !p || p->reaction_min_us < 0 || p->reaction_max_us < p->reaction_min_us ||
            p->uncertainty_us < 0)
                return -EINVAL;
        r = cz_game.create(st, cfg, NULL, n_seats, seed);
        if (r < 0)
                return r;
        eng_rng_seed(&sim.rng, bot_seed);
        in = next_input(&sim, ENG_IN_START, ENG_SEAT_TABLE);
        r = submit(&sim, &in, EXPECT_ACCEPT);
        while (r >= 0 && st->phase != CZ_PHASE_FINISHED) {
                switch (st->phase) {
                case CZ_PHASE_PLAYING:
                        r = play_step(&sim);
                        break;
                case CZ_PHASE_RACE:
                        r = play_race(&sim);
                        break;
                case CZ_PHASE_CHECKED:
                        r = play_checked(&sim);
                        break;
                case CZ_PHASE_ENDING:
                        r = timer(&sim);
                        break;
                default:
                        r = -EPROTO;
                        break;
                }
        }
        if (ret_stats)
                *ret_stats = sim.stats;
        return r < 0 ? r : 0;
}
