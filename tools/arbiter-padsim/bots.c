/* tools/arbiter-padsim/bots.c — see bots.h. */
#include "tools/arbiter-padsim/bots.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/time.h>
#include <event2/event.h>

#include "common/time.h"
#include "tools/arbiter-padsim/pad.h"
#include "tools/arbiter-padsim/plog.h"
#include "tools/arbiter-padsim/rng.h"

/* Choice reaction time to a visual stimulus with a handful of alternatives
 * (Hick's law puts it at 400–500 ms for 6–7 choices); reaction-time
 * distributions are right-skewed and a log-normal is the usual simple fit.
 * These are assumptions for a plausible demo, not measurements. */
#define BOT_RT_MEDIAN_US        (450 * USEC_PER_MSEC)
#define BOT_RT_SIGMA            0.25
/* Nobody reacts faster than a simple visual reaction (~150 ms), and a
 * player who has not pressed after 3 s has given up on the round. */
#define BOT_RT_MIN_US           (150 * USEC_PER_MSEC)
#define BOT_RT_MAX_US           (3 * USEC_PER_SEC)
/* Share of stimuli a player lets pass: not sure, or not paying attention. */
#define BOT_PASS_PROBABILITY    0.15
/* The stimulus period varies by ± this fraction. */
#define BOT_PERIOD_SPREAD       0.25
/* A press by hand lasts 60–160 ms. */
#define BOT_HOLD_MIN_US         (60 * USEC_PER_MSEC)
#define BOT_HOLD_SPREAD_US      (100 * USEC_PER_MSEC)

struct bot {
        struct bots *bots;
        unsigned pad;
        unsigned button;
        int64_t press_us;
        int64_t hold_us;
        struct event *ev;
};

struct bots {
        struct sim *sim;
        struct rng rng;
        struct event *stimulus_ev;
        struct bot bot[SIM_MAX_PADS];
        unsigned round;
};

static void bots_arm(struct bots *b) {
        double spread = (2 * rng_uniform(&b->rng) - 1) * BOT_PERIOD_SPREAD;
        int64_t wait = (int64_t) ((double) b->sim->opt->bot_period_us * (1 + spread));

        sim_timer_at(b->stimulus_ev, now_usec() + wait);
}

static void bot_press_cb(evutil_socket_t fd, short what, void *userdata) {
        struct bot *bot = userdata;
        struct bots *b = bot->bots;

        (void) fd;
        (void) what;
        pad_press(b->sim->pads[bot->pad], bot->button, bot->press_us, -1, bot->hold_us);
}

/* Draws every pad's response at the stimulus, in pad order, so one seed
 * gives the same rounds however the timers interleave. */
static void bots_stimulus_cb(evutil_socket_t fd, short what, void *userdata) {
        struct bots *b = userdata;
        struct sim *s = b->sim;
        int64_t now = now_usec();
        unsigned players = 0;

        (void) fd;
        (void) what;
        b->round++;
        for (unsigned i = 0; i < s->n_pads; i++) {
                struct pad *p = s->pads[i];
                struct bot *bot = &b->bot[i];
                double rt;

                if (pad_kind(p) == PROTO_KIND_REFEREE || !pad_assigned(p))
                        continue;
                if (rng_chance(&b->rng, BOT_PASS_PROBABILITY))
                        continue;
                rt = rng_lognormal(&b->rng, BOT_RT_MEDIAN_US, BOT_RT_SIGMA);
                if (rt < BOT_RT_MIN_US)
                        rt = BOT_RT_MIN_US;
                if (rt > BOT_RT_MAX_US)
                        rt = BOT_RT_MAX_US;
                bot->button = (unsigned) rng_below(&b->rng, pad_buttons(p));
                bot->press_us = now + (int64_t) rt;
                bot->hold_us = BOT_HOLD_MIN_US + (int64_t) rng_below(&b->rng, BOT_HOLD_SPREAD_US);
                sim_timer_at(bot->ev, bot->press_us);
                players++;
        }
        plog(PLOG_INFO, "bots: stimulus %u, %u pad%s will press", b->round, players, players == 1 ? "" : "s");
        bots_arm(b);
}

int bots_new(struct sim *s, struct bots **ret) {
        struct bots *b = calloc(1, sizeof *b);

        if (!b)
                return -ENOMEM;
        b->sim = s;
        rng_seed(&b->rng, s->opt->seed, RNG_STREAM_BOTS);
        b->stimulus_ev = evtimer_new(s->base, bots_stimulus_cb, b);
        if (!b->stimulus_ev) {
                bots_free(b);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < s->n_pads; i++) {
                b->bot[i] = (struct bot) { .bots = b, .pad = i };
                b->bot[i].ev = evtimer_new(s->base, bot_press_cb, &b->bot[i]);
                if (!b->bot[i].ev) {
                        bots_free(b);
                        return -ENOMEM;
                }
        }
        bots_arm(b);
        *ret = b;
        return 0;
}

void bots_free(struct bots *b) {
        if (!b)
                return;
        if (b->stimulus_ev)
                event_free(b->stimulus_ev);
        for (unsigned i = 0; i < SIM_MAX_PADS; i++)
                if (b->bot[i].ev)
                        event_free(b->bot[i].ev);
        free(b);
}
