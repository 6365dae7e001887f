/* tools/arbiter-padsim/sim.c — see sim.h. */
#include "tools/arbiter-padsim/sim.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <event2/event.h>

#include "common/time.h"
#include "tools/arbiter-padsim/bots.h"
#include "tools/arbiter-padsim/keyboard.h"
#include "tools/arbiter-padsim/line.h"
#include "tools/arbiter-padsim/pad.h"
#include "tools/arbiter-padsim/plog.h"
#include "tools/arbiter-padsim/script.h"

void sim_timer_at(struct event *ev, int64_t due_us) {
        int64_t wait = due_us - now_usec();
        struct timeval tv = usec_to_timeval(wait > 0 ? wait : 0);

        evtimer_add(ev, &tv);
}

/* libevent forgets a loopbreak issued before the loop starts (a script
 * whose first line is "quit"), hence the flag sim_run() checks first. */
void sim_quit(struct sim *s) {
        s->quitting = true;
        event_base_loopbreak(s->base);
}

void sim_unplug(struct sim *s, int64_t duration_us) {
        line_unplug(s->line, duration_us);
}

void sim_toggle_plug(struct sim *s) {
        if (line_plugged(s->line))
                line_unplug(s->line, -1);
        else
                line_replug(s->line);
}

/* Every pad on a multi-drop bus hears every frame; each decides whether it
 * is addressed. */
static void sim_rx(void *userdata, const struct frame *f, int64_t rx_us) {
        struct sim *s = userdata;

        for (unsigned i = 0; i < s->n_pads; i++)
                pad_receive(s->pads[i], f, rx_us);
}

static void sim_signal_cb(evutil_socket_t sig, short what, void *userdata) {
        (void) what;
        plog(PLOG_INFO, "%s: stopping", strsignal((int) sig));
        sim_quit(userdata);
}

const char *sim_kind_name(uint8_t kind) {
        switch (kind) {
        case PROTO_KIND_BUTTONS:
                return "buttons";
        case PROTO_KIND_SLAP:
                return "slap";
        case PROTO_KIND_REFEREE:
                return "referee";
        default:
                return "unknown";
        }
}

static void sim_log_start(const struct sim *s) {
        const struct sim_options *o = s->opt;
        char kinds[256] = "";
        size_t n = 0;

        for (unsigned i = 0; i < o->n_pads && n < sizeof kinds - 16; i++)
                n += (size_t) snprintf(kinds + n, sizeof kinds - n, "%s%s", i ? "," : "",
                                       sim_kind_name(o->pads[i].kind));
        plog(PLOG_INFO, "%u pad%s (%s), uids 0x%016" PRIx64 "..., seed %" PRIu64, o->n_pads,
             o->n_pads == 1 ? "" : "s", kinds, o->pads[0].uid, o->seed);
}

/* Tears down in the reverse order of sim_run(): drivers first, so nothing
 * presses a freed pad; the line last, which removes the link.  Counters are
 * logged only after a run, not after a failed start. */
static void sim_done(struct sim *s, bool log_stats) {
        bots_free(s->bots);
        kbd_free(s->kbd);
        script_free(s->script);
        for (unsigned i = 0; i < s->n_pads; i++) {
                if (s->pads[i] && log_stats)
                        pad_log_stats(s->pads[i]);
                pad_free(s->pads[i]);
        }
        if (s->line && log_stats)
                line_log_stats(s->line);
        line_free(s->line);
        plog_detach();
        if (s->sigint)
                event_free(s->sigint);
        if (s->sigterm)
                event_free(s->sigterm);
        if (s->base)
                event_base_free(s->base);
}

/* The precise-timer flag makes libevent use a timerfd on Linux: without it
 * epoll rounds every timeout up to a whole millisecond, far coarser than
 * the press spacings the judge has to tell apart. */
static struct event_base *new_base(void) {
        struct event_config *cfg = event_config_new();
        struct event_base *base;

        if (!cfg)
                return NULL;
        event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
        base = event_base_new_with_config(cfg);
        event_config_free(cfg);
        return base;
}

int sim_run(const struct sim_options *opt) {
        struct line_config lc = {
                .port = opt->port,
                .link = opt->link,
                .n_pads = opt->n_pads,
                .delay_us = opt->delay_us,
                .jitter_us = opt->jitter_us,
                .bitflip = opt->bitflip,
                .garbage_rate = opt->garbage_rate,
                .drop = opt->drop,
                .seed = opt->seed,
        };
        struct sim s = { .opt = opt };
        int r;

        s.start_us = now_usec();
        plog_setup(opt->log_level, s.start_us, opt->events);
        signal(SIGPIPE, SIG_IGN);
        s.base = new_base();
        if (!s.base) {
                plog(PLOG_WARN, "cannot create the event loop");
                return EXIT_FAILURE;
        }
        if (plog_attach(s.base) < 0) {
                plog(PLOG_WARN, "out of memory");
                sim_done(&s, false);
                return EXIT_FAILURE;
        }
        s.sigint = evsignal_new(s.base, SIGINT, sim_signal_cb, &s);
        s.sigterm = evsignal_new(s.base, SIGTERM, sim_signal_cb, &s);
        if (!s.sigint || !s.sigterm || evsignal_add(s.sigint, NULL) < 0 || evsignal_add(s.sigterm, NULL) < 0) {
                plog(PLOG_WARN, "cannot watch SIGINT and SIGTERM");
                sim_done(&s, false);
                return EXIT_FAILURE;
        }
        if (line_new(s.base, &lc, sim_rx, &s, &s.line) < 0) {
                sim_done(&s, false);
                return EXIT_FAILURE;
        }
        for (unsigned i = 0; i < opt->n_pads; i++) {
                if (pad_new(&s, i, &opt->pads[i], &s.pads[i]) < 0) {
                        plog(PLOG_WARN, "out of memory");
                        sim_done(&s, false);
                        return EXIT_FAILURE;
                }
                s.n_pads++;
        }
        sim_log_start(&s);
        for (unsigned i = 0; i < s.n_pads; i++)
                pad_start(s.pads[i]);
        r = 0;
        if (opt->script)
                r = script_new(&s, opt->script, &s.script);
        if (r >= 0 && opt->keyboard)
                r = kbd_new(&s, &s.kbd);
        if (r >= 0 && opt->bots)
                r = bots_new(&s, &s.bots);
        if (r < 0) {
                sim_done(&s, false);
                return EXIT_FAILURE;
        }
        s.status = EXIT_SUCCESS;
        if (!s.quitting && event_base_dispatch(s.base) < 0) {
                plog(PLOG_WARN, "the event loop failed");
                s.status = EXIT_FAILURE;
        }
        sim_done(&s, true);
        return s.status;
}
