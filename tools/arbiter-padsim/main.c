/* tools/arbiter-padsim/main.c — arbiter-padsim's command line.
 *
 * Parses and checks every option into a struct sim_options, so that a
 * mistake is reported (exit 64) before anything is created, then hands over
 * to sim_run().  docs/padsim.md is the manual.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/number.h"
#include "common/time.h"
#include "tools/arbiter-padsim/plog.h"
#include "tools/arbiter-padsim/rng.h"
#include "tools/arbiter-padsim/sim.h"

/* sysexits.h's EX_USAGE, as arbiterd uses. */
#define EXIT_USAGE              64

#define DEFAULT_PADS            2
/* Crash Pilot rows 1–6 plus "doesn't fit". */
#define DEFAULT_BUTTONS         7
/* A referee keypad (docs/protocol.md section 7): digits 0–9, Enter,
 * Clear, Undo, Start / resume, Pause, Call the organiser. */
#define REFEREE_KEYS            16
#define DEFAULT_BOT_PERIOD_MS   4000
/* Upper bounds that catch a unit mistake rather than limit an experiment. */
#define MAX_DELAY_US            (10 * USEC_PER_SEC)
#define MAX_OFFSET_US           (3600 * USEC_PER_SEC)
#define MAX_DRIFT_PPM           10000.0
#define MAX_GARBAGE_RATE        1000.0
#define MIN_BOT_PERIOD_MS       100
#define MAX_BOT_PERIOD_MS       3600000
/* High bits of a default uid: "PS", for padsim, so that simulated pads
 * are recognisable in the daemon's device list. */
#define UID_PREFIX              UINT64_C(0x5053000000000000)
#define UID_RANDOM_MASK         UINT64_C(0x0000ffffffff0000)

static void usage(FILE *f) {
        fprintf(f,
                "Usage: arbiter-padsim [OPTIONS]\n"
                "\n"
                "Simulates arbiter pads on a serial line: creates a pty (or opens --port),\n"
                "prints \"PTY /dev/pts/N\" on stdout, and speaks the pad bus protocol as N pads\n"
                "sharing that line.\n"
                "\n"
                "Pads:\n"
                "  -n, --pads N               number of pads (default 2, at most 247)\n"
                "  -k, --kind KIND            buttons, slap or referee for every pad (default\n"
                "                             buttons)\n"
                "      --kinds LIST           one kind per pad, e.g. buttons,buttons,slap (sets\n"
                "                             --pads)\n"
                "  -b, --buttons N            buttons on a button pad, 1..16 (default 7: rows 1-6 and\n"
                "                             \"doesn't fit\"); a slap pad has 1, a referee keypad 16\n"
                "      --uid-base U           uids U, U+1, ... (decimal or 0x hex; default from\n"
                "                             --seed)\n"
                "      --uids LIST            one uid per pad, e.g. 0x1000,0x1000 (sets --pads);\n"
                "                             the same uid twice is two devices claiming one pad\n"
                "\n"
                "Clocks: pad_time = (now - start) * (1 + drift_ppm/1e6) + offset_us\n"
                "                   + clock_start, modulo 2^32\n"
                "      --offset-us LIST       offset of each pad's clock, one value or one per pad\n"
                "                             (e.g. 0,-20000,35000; default 0)\n"
                "      --drift-ppm LIST       drift of each pad's clock in ppm, likewise (default 0)\n"
                "      --clock-start T        every clock's value at start, 0..4294967295 (default 0;\n"
                "                             4294000000 wraps after about a second)\n"
                "      --no-clock             pads have no clock: HELLO says clock_hz 0, times are 0\n"
                "\n"
                "Transport and noise (pad -> host):\n"
                "      --delay-us D           each frame reaches the line D us after the pad sent it\n"
                "      --jitter-us J          plus uniform(0, J) us per frame (one pad's frames stay\n"
                "                             in order; different pads' frames may overtake)\n"
                "      --drop P               probability that a frame is lost (0..1)\n"
                "      --bitflip P            probability that one bit of a frame is flipped (0..1)\n"
                "      --garbage R            bursts of 1-40 random bytes, R per second on average\n"
                "\n"
                "Line:\n"
                "      --port PATH            open PATH (a serial device, a socat pty) instead of\n"
                "                             creating a pty\n"
                "      --link PATH            keep a symlink PATH -> the current pty (re-pointed after\n"
                "                             a replug, removed while unplugged and at exit)\n"
                "\n"
                "Driving:\n"
                "      --script FILE          JSON-lines actions from FILE, or - for stdin\n"
                "      --keyboard             1-7: pad 0 buttons 0-6, q-u: pad 1, space: slap pad,\n"
                "                             p: unplug/replug, Esc or Ctrl-C: quit\n"
                "      --bots                 pads press after human-like reaction times\n"
                "      --bot-period-ms MS     time between the bots' stimuli, +-25%% (default 4000)\n"
                "      --seed S               seed for every random choice (default: from the time;\n"
                "                             the seed used is logged)\n"
                "\n"
                "Output:\n"
                "      --events               also write PRESS/RELEASE/ACK/ASSIGN/RESET/UNPLUG\n"
                "                             records to stdout (with the true press times)\n"
                "  -q, --quiet                log only warnings on stderr\n"
                "  -v, --verbose              log every frame on stderr\n"
                "      --version              print the version and exit\n"
                "  -h, --help                 print this help and exit\n"
                "\n"
                "Exit status: 0 after SIGINT, SIGTERM, Esc or a script's quit; 1 on failure;\n"
                "64 for a bad option.  Manual: docs/padsim.md.\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
        va_list ap;

        fputs("arbiter-padsim: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputs("; see arbiter-padsim --help\n", stderr);
        return EXIT_USAGE;
}

/* Splits a comma list into at most max numbers; returns how many. */
static int parse_double_list(const char *s, double min, double max, double *out, unsigned n_max) {
        char buf[4096], *save = NULL, *tok;
        unsigned n = 0;

        if (snprintf(buf, sizeof buf, "%s", s) >= (int) sizeof buf)
                return -E2BIG;
        for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (n >= n_max || number_parse_double(tok, min, max, &out[n]) < 0)
                        return -EINVAL;
                n++;
        }
        return n > 0 ? (int) n : -EINVAL;
}

/* Splits a comma list of non-zero uids; returns how many. */
static int parse_uid_list(const char *s, uint64_t *out, unsigned n_max) {
        char buf[4096], *save = NULL, *tok;
        unsigned n = 0;

        if (snprintf(buf, sizeof buf, "%s", s) >= (int) sizeof buf)
                return -E2BIG;
        for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (n >= n_max || number_parse_u64(tok, 1, UINT64_MAX, &out[n]) < 0)
                        return -EINVAL;
                n++;
        }
        return n > 0 ? (int) n : -EINVAL;
}

static int parse_kind(const char *s, uint8_t *ret) {
        if (strcmp(s, "buttons") == 0)
                *ret = PROTO_KIND_BUTTONS;
        else if (strcmp(s, "slap") == 0)
                *ret = PROTO_KIND_SLAP;
        else if (strcmp(s, "referee") == 0)
                *ret = PROTO_KIND_REFEREE;
        else
                return -EINVAL;
        return 0;
}

static int parse_kind_list(const char *s, uint8_t *out, unsigned n_max) {
        char buf[4096], *save = NULL, *tok;
        unsigned n = 0;

        if (snprintf(buf, sizeof buf, "%s", s) >= (int) sizeof buf)
                return -E2BIG;
        for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (n >= n_max || parse_kind(tok, &out[n]) < 0)
                        return -EINVAL;
                n++;
        }
        return n > 0 ? (int) n : -EINVAL;
}

/* A seed nobody gave: different every run, and logged so the run can be
 * repeated with --seed. */
static uint64_t default_seed(void) {
        struct timespec ts;
        uint64_t st;

        clock_gettime(CLOCK_REALTIME, &ts);
        st = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec + ((uint64_t) getpid() << 32);
        return rng_splitmix64(&st) >> 1;      /* fits a signed 64-bit JSON integer too */
}

int main(int argc, char **argv) {
        enum {
                OPT_KINDS = 0x100, OPT_UID_BASE, OPT_UIDS, OPT_OFFSET, OPT_DRIFT, OPT_CLOCK_START, OPT_NO_CLOCK,
                OPT_DELAY, OPT_JITTER, OPT_DROP, OPT_BITFLIP, OPT_GARBAGE, OPT_PORT, OPT_LINK, OPT_SCRIPT,
                OPT_KEYBOARD, OPT_BOTS, OPT_BOT_PERIOD, OPT_SEED, OPT_EVENTS, OPT_VERSION,
        };
        static const struct option options[] = {
                { "pads",          required_argument, NULL, 'n' },
                { "kind",          required_argument, NULL, 'k' },
                { "kinds",         required_argument, NULL, OPT_KINDS },
                { "buttons",       required_argument, NULL, 'b' },
                { "uid-base",      required_argument, NULL, OPT_UID_BASE },
                { "uids",          required_argument, NULL, OPT_UIDS },
                { "offset-us",     required_argument, NULL, OPT_OFFSET },
                { "drift-ppm",     required_argument, NULL, OPT_DRIFT },
                { "clock-start",   required_argument, NULL, OPT_CLOCK_START },
                { "no-clock",      no_argument,       NULL, OPT_NO_CLOCK },
                { "delay-us",      required_argument, NULL, OPT_DELAY },
                { "jitter-us",     required_argument, NULL, OPT_JITTER },
                { "drop",          required_argument, NULL, OPT_DROP },
                { "bitflip",       required_argument, NULL, OPT_BITFLIP },
                { "garbage",       required_argument, NULL, OPT_GARBAGE },
                { "port",          required_argument, NULL, OPT_PORT },
                { "link",          required_argument, NULL, OPT_LINK },
                { "script",        required_argument, NULL, OPT_SCRIPT },
                { "keyboard",      no_argument,       NULL, OPT_KEYBOARD },
                { "bots",          no_argument,       NULL, OPT_BOTS },
                { "bot-period-ms", required_argument, NULL, OPT_BOT_PERIOD },
                { "seed",          required_argument, NULL, OPT_SEED },
                { "events",        no_argument,       NULL, OPT_EVENTS },
                { "quiet",         no_argument,       NULL, 'q' },
                { "verbose",       no_argument,       NULL, 'v' },
                { "version",       no_argument,       NULL, OPT_VERSION },
                { "help",          no_argument,       NULL, 'h' },
                {}
        };
        static struct sim_options opt;
        static double offsets[SIM_MAX_PADS], drifts[SIM_MAX_PADS];
        static uint8_t kinds[SIM_MAX_PADS];
        static uint64_t uids[SIM_MAX_PADS];
        int n_offsets = 1, n_drifts = 1, n_kinds = 0, n_uids = 0;
        uint64_t n_pads = 0, buttons = DEFAULT_BUTTONS, uid_base = 0, clock_start = 0, v;
        uint64_t bot_period_ms = DEFAULT_BOT_PERIOD_MS;
        bool have_uid = false, have_seed = false, no_clock = false;
        uint8_t kind = PROTO_KIND_BUTTONS;
        double d;
        int c;

        opt.log_level = PLOG_INFO;
        while ((c = getopt_long(argc, argv, "n:k:b:qvh", options, NULL)) != -1) {
                switch (c) {
                case 'n':
                        if (number_parse_u64(optarg, 1, SIM_MAX_PADS, &n_pads) < 0)
                                return usage_error("--pads needs a number from 1 to %d, not \"%s\"", SIM_MAX_PADS, optarg);
                        break;
                case 'k':
                        if (parse_kind(optarg, &kind) < 0)
                                return usage_error("--kind is buttons, slap or referee, not \"%s\"", optarg);
                        n_kinds = 0;
                        break;
                case OPT_KINDS:
                        n_kinds = parse_kind_list(optarg, kinds, SIM_MAX_PADS);
                        if (n_kinds < 0)
                                return usage_error("--kinds is a comma list of buttons, slap and referee (at most %d), "
                                                   "not \"%s\"", SIM_MAX_PADS, optarg);
                        break;
                case 'b':
                        if (number_parse_u64(optarg, 1, PROTO_MAX_BUTTONS, &buttons) < 0)
                                return usage_error("--buttons needs a number from 1 to %d, not \"%s\"",
                                                   PROTO_MAX_BUTTONS, optarg);
                        break;
                case OPT_UID_BASE:
                        if (number_parse_u64(optarg, 1, UINT64_MAX - SIM_MAX_PADS, &uid_base) < 0)
                                return usage_error("--uid-base needs a non-zero 64-bit number, not \"%s\"", optarg);
                        have_uid = true;
                        n_uids = 0;
                        break;
                case OPT_UIDS:
                        n_uids = parse_uid_list(optarg, uids, SIM_MAX_PADS);
                        if (n_uids < 0)
                                return usage_error("--uids is a comma list of non-zero 64-bit numbers (at most %d), "
                                                   "not \"%s\"", SIM_MAX_PADS, optarg);
                        have_uid = true;
                        break;
                case OPT_OFFSET:
                        n_offsets = parse_double_list(optarg, -(double) MAX_OFFSET_US, (double) MAX_OFFSET_US,
                                                      offsets, SIM_MAX_PADS);
                        if (n_offsets < 0)
                                return usage_error("--offset-us is a comma list of microseconds within +-%lld, "
                                                   "not \"%s\"", (long long) MAX_OFFSET_US, optarg);
                        break;
                case OPT_DRIFT:
                        n_drifts = parse_double_list(optarg, -MAX_DRIFT_PPM, MAX_DRIFT_PPM, drifts, SIM_MAX_PADS);
                        if (n_drifts < 0)
                                return usage_error("--drift-ppm is a comma list of ppm within +-%g, not \"%s\"",
                                                   MAX_DRIFT_PPM, optarg);
                        break;
                case OPT_CLOCK_START:
                        if (number_parse_u64(optarg, 0, UINT32_MAX, &clock_start) < 0)
                                return usage_error("--clock-start needs a number from 0 to 4294967295, not \"%s\"",
                                                   optarg);
                        break;
                case OPT_NO_CLOCK:
                        no_clock = true;
                        break;
                case OPT_DELAY:
                case OPT_JITTER:
                        if (number_parse_u64(optarg, 0, MAX_DELAY_US, &v) < 0)
                                return usage_error("--%s needs microseconds from 0 to %lld, not \"%s\"",
                                                   c == OPT_DELAY ? "delay-us" : "jitter-us",
                                                   (long long) MAX_DELAY_US, optarg);
                        *(c == OPT_DELAY ? &opt.delay_us : &opt.jitter_us) = (int64_t) v;
                        break;
                case OPT_DROP:
                case OPT_BITFLIP:
                        if (number_parse_double(optarg, 0, 1, &d) < 0)
                                return usage_error("--%s needs a probability from 0 to 1, not \"%s\"",
                                                   c == OPT_DROP ? "drop" : "bitflip", optarg);
                        *(c == OPT_DROP ? &opt.drop : &opt.bitflip) = d;
                        break;
                case OPT_GARBAGE:
                        if (number_parse_double(optarg, 0, MAX_GARBAGE_RATE, &opt.garbage_rate) < 0)
                                return usage_error("--garbage needs bursts per second from 0 to %g, not \"%s\"",
                                                   MAX_GARBAGE_RATE, optarg);
                        break;
                case OPT_PORT:
                        opt.port = optarg;
                        break;
                case OPT_LINK:
                        if (!*optarg)
                                return usage_error("--link needs a path");
                        opt.link = optarg;
                        break;
                case OPT_SCRIPT:
                        if (!*optarg)
                                return usage_error("--script needs a file, or - for stdin");
                        opt.script = optarg;
                        break;
                case OPT_KEYBOARD:
                        opt.keyboard = true;
                        break;
                case OPT_BOTS:
                        opt.bots = true;
                        break;
                case OPT_BOT_PERIOD:
                        if (number_parse_u64(optarg, MIN_BOT_PERIOD_MS, MAX_BOT_PERIOD_MS, &bot_period_ms) < 0)
                                return usage_error("--bot-period-ms needs a number from %d to %d, not \"%s\"",
                                                   MIN_BOT_PERIOD_MS, MAX_BOT_PERIOD_MS, optarg);
                        break;
                case OPT_SEED:
                        if (number_parse_u64(optarg, 0, UINT64_MAX, &opt.seed) < 0)
                                return usage_error("--seed needs a number, not \"%s\"", optarg);
                        have_seed = true;
                        break;
                case OPT_EVENTS:
                        opt.events = true;
                        break;
                case 'q':
                        opt.log_level = PLOG_WARN;
                        break;
                case 'v':
                        opt.log_level = PLOG_FRAME;
                        break;
                case OPT_VERSION:
                        printf("arbiter-padsim %s\n", ARBITER_VERSION);
                        return EXIT_SUCCESS;
                case 'h':
                        usage(stdout);
                        return EXIT_SUCCESS;
                default:
                        usage(stderr);
                        return EXIT_USAGE;
                }
        }
        if (optind < argc)
                return usage_error("unexpected argument \"%s\"", argv[optind]);

        if (n_kinds > 0 && n_pads && n_pads != (uint64_t) n_kinds)
                return usage_error("--kinds names %d pads but --pads says %" PRIu64, n_kinds, n_pads);
        if (n_uids > 0 && n_pads && n_pads != (uint64_t) n_uids)
                return usage_error("--uids names %d pads but --pads says %" PRIu64, n_uids, n_pads);
        if (n_uids > 0 && n_kinds > 0 && n_uids != n_kinds)
                return usage_error("--uids names %d pads but --kinds %d", n_uids, n_kinds);
        opt.n_pads = n_kinds > 0 ? (unsigned) n_kinds : n_uids > 0 ? (unsigned) n_uids
                   : n_pads ? (unsigned) n_pads : DEFAULT_PADS;
        if (n_offsets > 1 && (unsigned) n_offsets != opt.n_pads)
                return usage_error("--offset-us has %d values for %u pads: give one, or one per pad", n_offsets,
                                   opt.n_pads);
        if (n_drifts > 1 && (unsigned) n_drifts != opt.n_pads)
                return usage_error("--drift-ppm has %d values for %u pads: give one, or one per pad", n_drifts,
                                   opt.n_pads);
        if (opt.keyboard && opt.script && strcmp(opt.script, "-") == 0)
                return usage_error("--keyboard and --script - both want stdin");

        if (!have_seed)
                opt.seed = default_seed();
        if (!have_uid) {
                struct rng r;
                rng_seed(&r, opt.seed, RNG_STREAM_UID);
                uid_base = UID_PREFIX | (rng_next(&r) & UID_RANDOM_MASK);
        }
        opt.bot_period_us = (int64_t) bot_period_ms * USEC_PER_MSEC;
        for (unsigned i = 0; i < opt.n_pads; i++) {
                struct pad_config *p = &opt.pads[i];
                p->uid = n_uids > 0 ? uids[i] : uid_base + i;
                p->kind = n_kinds > 0 ? kinds[i] : kind;
                p->n_buttons = p->kind == PROTO_KIND_SLAP ? 1 :
                               p->kind == PROTO_KIND_REFEREE ? REFEREE_KEYS : (uint8_t) buttons;
                p->has_clock = !no_clock;
                p->offset_us = llround(offsets[n_offsets > 1 ? i : 0]);
                p->drift_ppm = drifts[n_drifts > 1 ? i : 0];
                p->clock_start = (uint32_t) clock_start;
        }
        return sim_run(&opt);
}
