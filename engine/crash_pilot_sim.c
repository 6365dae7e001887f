/* engine/crash_pilot_sim.c — a bot and a whole simulated table for Crash
 * Pilot, for the property tests and the engine benchmark (crash_pilot.h).
 *
 * The simulation plays the runtime's part: it opens no judge (it decides
 * each window's outcome by dice), but it builds exactly the inputs the
 * runtime would — a CALL or a TIE for the open window with a press time
 * after the reveal, a TIMER at the engine's wake-up time — plus the things
 * a real table throws in: late calls, referee voids, pauses, and malformed
 * inputs that must be refused.  It checks that every input it meant to be
 * accepted was, and every junk input was refused.
 */
#include "engine/crash_pilot.h"

#include <errno.h>
#include <string.h>

/* Simulated matches start at 1 s of CLOCK_MONOTONIC: any value works, and
 * a non-zero one catches code that treats 0 as "no time". */
#define SIM_T0_US               INT64_C(1000000)
/* The judge decides one settle window after the first press
 * (JUDGE_DEFAULT_SETTLE_US). */
#define SIM_SETTLE_US           2500
/* A referee takes a moment to void; a pause lasts a little while. */
#define SIM_REFEREE_US          INT64_C(500000)
#define SIM_PAUSE_US            INT64_C(2000000)
#define PERCENT                 100

/* Which rows the card fits, from a view: what a player at the table sees. */
static unsigned fitting_rows(const struct cp_view *v, bool fits[CP_ROWS]) {
        unsigned n = 0;

        for (unsigned r = 0; r < CP_ROWS; r++) {
                fits[r] = cp_row_accepts(v->rows[r], v->row_len[r], v->face_up);
                n += fits[r];
        }
        return n;
}

int cp_bot_call(const struct cp_view *v, struct eng_rng *rng, unsigned correct_pct, int *ret_call) {
        int good[CP_ROWS + 1], bad[CP_ROWS + 1];
        unsigned n_good = 0, n_bad = 0;
        bool fits[CP_ROWS];
        unsigned n_fit;

        if (!v || !rng || !ret_call || !v->face_up_shown || v->phase != CP_PHASE_SHOWING)
                return -EAGAIN;
        n_fit = fitting_rows(v, fits);
        for (unsigned r = 0; r < CP_ROWS; r++) {
                if (fits[r])
                        good[n_good++] = (int) r + 1;
                else
                        bad[n_bad++] = (int) r + 1;
        }
        if (n_fit == 0)
                good[n_good++] = CP_CALL_DOESNT_FIT;
        else
                bad[n_bad++] = CP_CALL_DOESNT_FIT;
        if (eng_rng_below(rng, PERCENT) < correct_pct)
                *ret_call = good[eng_rng_below(rng, n_good)];
        else
                *ret_call = bad[eng_rng_below(rng, n_bad)];
        return 0;
}

void cp_sim_params_default(struct cp_sim_params *ret) {
        *ret = (struct cp_sim_params) {
                .correct_pct = 75,
                .tie_pct = 10,
                .expire_pct = 3,
                .late_pct = 10,
                .void_pct = 3,
                .pause_pct = 2,
                .junk_pct = 5,
                .reaction_min_us = 150000,
                .reaction_max_us = 3000000,
                .max_inputs = 100000,
        };
}

struct sim {
        struct cp_state *st;
        const struct cp_sim_params *p;
        struct eng_rng rng;
        struct eng_input *log;
        size_t log_cap;
        cp_sim_step_fn step;
        void *ctx;
        struct cp_sim_stats stats;
        uint64_t seq;
        int64_t now;
};

enum expect {
        EXPECT_ACCEPT,
        EXPECT_REFUSE,
        EXPECT_ANY,
};

/* Applies one input, logs it, hands it to the step hook, and checks the
 * answer against what the simulation meant. */
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
        r = cp_game.apply(sim->st, in, &out);
        if (r < 0)
                return r;
        sim->stats.inputs++;
        sim->stats.outputs += out.n;
        if (out.refusal != ENG_ACCEPTED)
                sim->stats.refused++;
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

static int64_t reaction(struct sim *sim) {
        const struct cp_sim_params *p = sim->p;
        uint64_t span = (uint64_t) (p->reaction_max_us - p->reaction_min_us) + 1;

        return p->reaction_min_us + (int64_t) eng_rng_below(&sim->rng, span);
}

static int random_seat_of(struct sim *sim, uint32_t mask) {
        int seats[CP_MAX_SEATS], n = 0;

        for (int s = 0; s < CP_MAX_SEATS; s++)
                if (mask & (UINT32_C(1) << s))
                        seats[n++] = s;
        return n ? seats[eng_rng_below(&sim->rng, (uint64_t) n)] : -1;
}

/* An input that must be refused, of a kind picked at random: each one
 * breaks a different rule of apply(). */
static int junk(struct sim *sim, const struct cp_view *v) {
        const struct cp_state *st = sim->st;
        struct eng_input in;

        switch (eng_rng_below(&sim->rng, 9)) {
        case 0:                 /* no such seat */
                in = next_input(sim, ENG_IN_CALL, st->n_seats);
                in.call = (typeof(in.call)) { v->window, 1, v->shown_us };
                break;
        case 1:                 /* no such call */
                in = next_input(sim, ENG_IN_CALL, 0);
                in.call = (typeof(in.call)) { v->window, CP_CALL_DOESNT_FIT + 1, v->shown_us };
                break;
        case 2:                 /* a tie of one */
                in = next_input(sim, ENG_IN_TIE, ENG_SEAT_TABLE);
                in.tie = (typeof(in.tie)) { v->window, 1, v->shown_us };
                break;
        case 3:                 /* a timer before its time */
                if (st->wake_us <= sim->now)
                        return 0;
                in = next_input(sim, ENG_IN_TIMER, ENG_SEAT_TABLE);
                break;
        case 4:                 /* a kind Crash Pilot does not use */
                in = next_input(sim, ENG_IN_PRESS, 0);
                break;
        case 5:                 /* started already */
                in = next_input(sim, ENG_IN_START, ENG_SEAT_TABLE);
                break;
        case 6:                 /* not paused */
                in = next_input(sim, ENG_IN_RESUME, ENG_SEAT_TABLE);
                break;
        case 7:                 /* a repeated sequence number */
                if (!st->any_input)
                        return 0;
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

/* The outcome of one open window: nobody calls, a tie, or one judged
 * call; then perhaps a late call, a void. */
static int play_window(struct sim *sim) {
        const struct cp_sim_params *p = sim->p;
        struct cp_view v;
        struct eng_input in;
        uint64_t dice;
        uint32_t window;
        int r;

        r = cp_view(sim->st, ENG_VIEW_REFEREE, -1, &v);
        if (r < 0)
                return r;
        if (roll(sim, p->junk_pct)) {
                r = junk(sim, &v);
                if (r < 0)
                        return r;
        }
        if (roll(sim, p->pause_pct)) {
                sim->stats.pauses++;
                sim->now += SIM_PAUSE_US / 4;
                in = next_input(sim, ENG_IN_PAUSE, ENG_SEAT_TABLE);
                r = submit(sim, &in, EXPECT_ACCEPT);
                if (r < 0)
                        return r;
                sim->now += SIM_PAUSE_US;
                in = next_input(sim, ENG_IN_RESUME, ENG_SEAT_TABLE);
                return submit(sim, &in, EXPECT_ACCEPT);
        }

        window = v.window;
        dice = eng_rng_below(&sim->rng, PERCENT);
        if (dice < p->expire_pct) {
                sim->stats.expiries++;
                if (sim->now < v.deadline_us)
                        sim->now = v.deadline_us;
                in = next_input(sim, ENG_IN_TIMER, ENG_SEAT_TABLE);
                r = submit(sim, &in, EXPECT_ACCEPT);
        } else if (dice < p->expire_pct + p->tie_pct && __builtin_popcount(v.allowed) >= 2) {
                uint32_t seats = 0, left = v.allowed;
                unsigned k = 2 + (unsigned) eng_rng_below(&sim->rng,
                                                          (uint64_t) __builtin_popcount(v.allowed) - 1);
                int64_t press = v.shown_us + reaction(sim);

                while (k--) {
                        int s = random_seat_of(sim, left);

                        seats |= UINT32_C(1) << s;
                        left &= ~(UINT32_C(1) << s);
                }
                sim->stats.ties++;
                if (sim->now < press + SIM_SETTLE_US)
                        sim->now = press + SIM_SETTLE_US;
                in = next_input(sim, ENG_IN_TIE, ENG_SEAT_TABLE);
                in.tie = (typeof(in.tie)) { window, seats, press };
                r = submit(sim, &in, EXPECT_ACCEPT);
        } else {
                int seat = random_seat_of(sim, v.allowed), call;
                int64_t press = v.shown_us + reaction(sim);

                r = cp_bot_call(&v, &sim->rng, p->correct_pct, &call);
                if (r < 0)
                        return -EPROTO;
                sim->stats.calls++;
                if (sim->now < press + SIM_SETTLE_US)
                        sim->now = press + SIM_SETTLE_US;
                in = next_input(sim, ENG_IN_CALL, seat);
                in.call = (typeof(in.call)) { window, call, press };
                r = submit(sim, &in, EXPECT_ACCEPT);
        }
        if (r < 0)
                return r;

        if (roll(sim, p->late_pct)) {
                /* A press the judge let through for a window that has just
                 * closed: always refused, as too late, not allowed (an
                 * eliminated seat) or finished. */
                int seat = (int) eng_rng_below(&sim->rng, sim->st->n_seats);

                sim->now += 1000;
                in = next_input(sim, ENG_IN_CALL, seat);
                in.call = (typeof(in.call)) { window, 1 + (int) eng_rng_below(&sim->rng, CP_ROWS),
                                              v.shown_us };
                r = submit(sim, &in, EXPECT_REFUSE);
                if (r < 0)
                        return r;
        }
        if (sim->st->t.phase != CP_PHASE_FINISHED && roll(sim, p->void_pct)) {
                sim->stats.voids++;
                sim->now += SIM_REFEREE_US;
                in = next_input(sim, ENG_IN_ACTION, ENG_SEAT_TABLE);
                in.action = CP_ACTION_VOID_CALL;
                r = submit(sim, &in, EXPECT_ACCEPT);
        }
        return r;
}

int cp_sim_match(struct cp_state *st, const struct eng_config *cfg, unsigned n_seats,
                 uint64_t seed, uint64_t bot_seed, const struct cp_sim_params *p,
                 struct eng_input *log, size_t log_cap, cp_sim_step_fn step, void *ctx,
                 struct cp_sim_stats *ret_stats) {
        struct sim sim = {
                .st = st, .p = p, .log = log, .log_cap = log_cap, .step = step, .ctx = ctx,
                .now = SIM_T0_US,
        };
        struct eng_input in;
        int r;

        if (!st || !cfg || !p || p->reaction_min_us < 0 ||
            p->reaction_max_us < p->reaction_min_us)
                return -EINVAL;
        r = cp_game.create(st, cfg, NULL, n_seats, seed);
        if (r < 0)
                return r;
        eng_rng_seed(&sim.rng, bot_seed);
        in = next_input(&sim, ENG_IN_START, ENG_SEAT_TABLE);
        r = submit(&sim, &in, EXPECT_ACCEPT);
        while (r >= 0 && st->t.phase != CP_PHASE_FINISHED) {
                if (st->t.phase == CP_PHASE_BETWEEN) {
                        if (roll(&sim, p->pause_pct)) {
                                sim.stats.pauses++;
                                in = next_input(&sim, ENG_IN_PAUSE, ENG_SEAT_TABLE);
                                r = submit(&sim, &in, EXPECT_ACCEPT);
                                sim.now += SIM_PAUSE_US;
                                in = next_input(&sim, ENG_IN_RESUME, ENG_SEAT_TABLE);
                                if (r >= 0)
                                        r = submit(&sim, &in, EXPECT_ACCEPT);
                                continue;
                        }
                        if (sim.now < st->wake_us)
                                sim.now = st->wake_us;
                        in = next_input(&sim, ENG_IN_TIMER, ENG_SEAT_TABLE);
                        r = submit(&sim, &in, EXPECT_ACCEPT);
                } else {
                        r = play_window(&sim);
                }
        }
        if (ret_stats)
                *ret_stats = sim.stats;
        return r < 0 ? r : 0;
}
