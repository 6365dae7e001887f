/* tests/avr/command.c — the commands on stdin, one a line (the syntax is in
 * tests/avr/avrpad.c's header). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tests/avr/avrpad.h"

/* A time: nothing or "now" (0: at once), NNN µs since the pad's power-on
 * by its own clock, or hNNN µs of the host's CLOCK_MONOTONIC, converted
 * with the pad's crystal (1: *ret is the cycle); -1 (said): no good. */
static int parse_time(struct pad *p, const char *at, avr_cycle_count_t *ret) {
        int host;
        char *end;
        double v;
        avr_cycle_count_t c;

        if (!at || !*at || strcmp(at, "now") == 0)
                return 0;
        host = at[0] == 'h';
        v = strtod(at + host, &end);
        if (end == at + host || *end || v < 0 || !isfinite(v)) {
                say(p, "error: bad time %s", at);
                return -1;
        }
        c = host ? pad_cycle_at(p, llround(v * 1000)) : (avr_cycle_count_t) (v * (F_CPU / 1000000));
        if (c <= p->avr->cycle) {
                if (host)
                        say(p, "error: %s is past (now host_us %" PRId64 ")", at, pad_now_ns(p) / 1000);
                else
                        say(p, "error: %s µs is past (now %.1f)", at, pad_emu_us(p));
                return -1;
        }
        *ret = c;
        return 1;
}

static void time_of(struct pad *p) {
        int64_t t = pad_now_ns(p);

        say(p, "time host_us %" PRId64 " lag_us %.1f", t / 1000, (double) (mono_ns() - t) / 1000);
}

static void peek(struct pad *p, const char *args) {
        char a[32];
        unsigned long addr, len = 1;

        if (sscanf(args, "%31s %lu", a, &len) < 1)
                return;
        addr = strtoul(a, NULL, 0) & 0xffff;
        if (addr + len > p->avr->ramend + 1UL || len > 64) {
                say(p, "error: peek past the RAM");
                return;
        }
        char hex[3 * 64 + 1] = "";
        for (unsigned long i = 0; i < len; i++)
                sprintf(hex + 3 * i, " %02lx", (unsigned long) p->avr->data[addr + i]);
        say(p, "peek 0x%04lx:%s", addr, hex);
}

static void schedule(struct pad *p, enum sched_kind kind, unsigned button, const char *at) {
        avr_cycle_count_t c = 0;
        int r = parse_time(p, at, &c);

        if (r < 0)
                return;
        if (r == 0) {
                if (kind == SCHED_RESET)
                        pad_reset(p);
                else
                        pad_edge(p, button, kind == SCHED_PRESS);
                return;
        }
        if (pad_schedule(p, c, kind, button) < 0)
                say(p, "error: more than %d edges scheduled", MAX_SCHEDULED);
}

static const struct {
        const char *name;
        int type;
} types[] = {
        { "HELLO", 0x01 }, { "PRESS", 0x02 }, { "RELEASE", 0x03 }, { "SYNC_REPLY", 0x04 },
        { "HEARTBEAT", 0x05 }, { "ASSIGN", 0x81 }, { "ACK", 0x82 }, { "SYNC", 0x83 }, { "LIGHT", 0x84 },
        { "BUZZ", 0x85 }, { "LOCKOUT", 0x86 }, { "RESET", 0x87 }, { "HOST_BEAT", 0x88 },
};

/* A message type: a name of docs/protocol.md section 6 or a number. */
static int parse_type(const char *s) {
        char *end;
        unsigned long v;

        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
                if (strcasecmp(s, types[i].name) == 0)
                        return types[i].type;
        v = strtoul(s, &end, 0);
        return end != s && !*end && v <= 0xff ? (int) v : -1;
}

/* drop out|in [N] [TYPE] */
static void drop(struct pad *p, int out, const char *args) {
        char a[3][32] = { "", "", "" };
        int n = sscanf(args, "%31s %31s %31s", a[0], a[1], a[2]), type = -1;
        unsigned long count = 1;
        int i = 1;
        char *end;

        if (n >= 2 && a[1][0] >= '0' && a[1][0] <= '9' && strncmp(a[1], "0x", 2) != 0) {
                count = strtoul(a[1], &end, 10);
                if (*end || count == 0 || count > 1000000) {
                        say(p, "error: bad count %s", a[1]);
                        return;
                }
                i = 2;
        }
        if (n > i && (type = parse_type(a[i])) < 0) {
                say(p, "error: bad type %s", a[i]);
                return;
        }
        if (n > i + 1) {
                say(p, "error: drop %s [N] [TYPE]", a[0]);
                return;
        }
        if (out) {
                p->drop_out += (unsigned) count;
                p->drop_out_type = type;
        } else {
                p->drop_in += (unsigned) count;
                p->drop_in_type = type;
        }
}

void command(char *line) {
        char *s = line + strspn(line, " \t\r");
        struct pad *p = &h.pads[0];
        int addressed = 0;
        char verb[16], arg1[32] = "", arg2[32] = "";
        int n, off = 0;

        s[strcspn(s, "\r")] = '\0';
        if (*s == '@') {
                char *end;
                long k = strtol(s + 1, &end, 10);

                if (end == s + 1 || k < 0 || k >= h.n_pads) {
                        say(p, "error: no pad %.*s (0..%d)", (int) strcspn(s + 1, " \t"), s + 1, h.n_pads - 1);
                        return;
                }
                p = &h.pads[k];
                addressed = 1;
                s = end + strspn(end, " \t");
        }
        n = sscanf(s, "%15s%n %31s %31s", verb, &off, arg1, arg2);
        if (n < 1)
                return;
        if (strcmp(verb, "quit") == 0) {
                h.stop = 1;
        } else if (strcmp(verb, "time") == 0) {
                for (int k = 0; k < h.n_pads; k++)
                        if (!addressed || &h.pads[k] == p)
                                time_of(&h.pads[k]);
        } else if (strcmp(verb, "stats") == 0) {
                for (int k = 0; k < h.n_pads; k++)
                        if (!addressed || &h.pads[k] == p)
                                pad_stats(&h.pads[k]);
                if (!addressed || h.n_pads == 1)
                        line_stats();
        } else if (strcmp(verb, "peek") == 0) {
                peek(p, s + off);
        } else if ((strcmp(verb, "press") == 0 || strcmp(verb, "release") == 0) && n >= 2) {
                char *end;
                unsigned long button = strtoul(arg1, &end, 10);

                if (*end || end == arg1 || button >= N_BUTTONS) {
                        say(p, "error: no button %s (0..%d)", arg1, N_BUTTONS - 1);
                        return;
                }
                schedule(p, verb[0] == 'p' ? SCHED_PRESS : SCHED_RELEASE, (unsigned) button, arg2);
        } else if (strcmp(verb, "reset") == 0) {
                schedule(p, SCHED_RESET, 0, arg1);
        } else if (strcmp(verb, "drop") == 0 && n >= 2
                   && (strcmp(arg1, "out") == 0 || strcmp(arg1, "in") == 0)) {
                drop(p, arg1[0] == 'o', s + off);
        } else {
                say(p, "error: unknown command: %s", line);
        }
}
