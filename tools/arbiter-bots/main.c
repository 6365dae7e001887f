/* tools/arbiter-bots/main.c — arbiter-bots's command line.
 *
 * Parses and checks every option into a struct bots_options, so that a
 * mistake is reported (exit 64) before anything starts, then hands over to
 * bots_run().  docs/bots.md is the manual.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>
#include <curl/curl.h>

#include "common/log.h"
#include "common/number.h"
#include "common/time.h"
#include "engine/rng.h"
#include "hardware/protocol.h"
#include "tools/arbiter-bots/bots.h"
#include "tools/arbiter-bots/play.h"

/* sysexits.h's EX_USAGE, as arbiterd and arbiter-padsim use. */
#define EXIT_USAGE              64
#define DEFAULT_URL             "http://127.0.0.1:8080"
#define DEFAULT_BETWEEN_MS      5000
#define PERCENT                 100
/* Upper bounds that catch a unit mistake rather than limit an experiment. */
#define MAX_REACTION_MS         60000
#define MAX_SIGMA               2.0
#define MAX_BETWEEN_MS          3600000
/* A token is one line: "arb_" and 43 characters (api/auth.h). */
#define TOKEN_LINE_MAX          256
#define LIST_MAX                1024
/* Names --players may give: a table's most seats (api/bodies.h). */
#define PLAYERS_MAX             8
#define DEFAULT_GAME            "crash-pilot"

static void usage(FILE *f) {
        fprintf(f,
                "Usage: arbiter-bots --table NAME --uid-base U [OPTIONS] | arbiter-padsim --script - ...\n"
                "\n"
                "Bots that play Crash Pilot or Crazy Pilot at one table of arbiterd as people\n"
                "would: they follow the table's match through its events and views, as its\n"
                "screens do, and answer each card after a human reaction time, sometimes\n"
                "wrongly, by writing arbiter-padsim script lines (presses of their pads) on\n"
                "stdout.\n"
                "\n"
                "Table:\n"
                "      --url URL              arbiterd (default " DEFAULT_URL ")\n"
                "      --table NAME           the table they sit at, as in GET /v1/tables\n"
                "      --uid-base U           their pads are U, U+1, ... (arbiter-padsim's\n"
                "                             --uid-base; decimal or 0x hex)\n"
                "      --pads N               how many (default %d: every uid from U on)\n"
                "\n"
                "Players:\n"
                "      --reaction-ms MS       median reaction time (default %d)\n"
                "      --reaction-sigma S     its spread: the standard deviation of its logarithm\n"
                "                             (default %.2f)\n"
                "      --reaction-min-ms MS   never faster than this (default %d)\n"
                "      --reaction-max-ms MS   never slower than this (default %d)\n"
                "      --error-pct P          percent of answers that are wrong, 0..100 (default %d)\n"
                "      --slap-ms MS           Crazy Pilot: median slap time in a race (default %d;\n"
                "                             log-normal, sigma %.2f, %d..%d ms)\n"
                "      --false-shout-pct P    Crazy Pilot: percent of cards without a zombie\n"
                "                             shouted at all the same, 0..100 (default %d)\n"
                "      --seed S               seed for every choice (default: from the time; logged)\n"
                "\n"
                "Hosting:\n"
                "      --keep-playing         when no match runs at the table, create and start one\n"
                "      --game NAME            the game it plays: crash-pilot or crazy-pilot\n"
                "                             (default " DEFAULT_GAME ")\n"
                "      --token-file FILE      a referee's or admin's token, for --keep-playing and\n"
                "                             for Crazy Pilot (its seats' tokens are made with it)\n"
                "      --players LIST         names for the hosted matches, e.g. Ana,Ben,Cy (default:\n"
                "                             one per seat of the table, as many as the game takes)\n"
                "      --match-config JSON    the hosted matches' config, e.g.\n"
                "                             '{\"reveal\": {\"pause_ms\": 500}}' (default: the game's)\n"
                "      --between-ms MS        from a hosted match's end to the next one's start\n"
                "                             (default %d)\n"
                "      --state FILE           remember the hosted match here, so that bots started\n"
                "                             again still know it for their own\n"
                "\n"
                "Output:\n"
                "  -q, --quiet                log only warnings on stderr\n"
                "  -v, --verbose              also log every decision and press\n"
                "      --version              print the version and exit\n"
                "  -h, --help                 print this help and exit\n"
                "\n"
                "Runs until a signal stops it; exit status 1 when stdout is closed (padsim\n"
                "gone), 64 for a bad option.  Manual: docs/bots.md.\n",
                PROTO_ADDR_MAX, HUMAN_MEDIAN_MS, HUMAN_SIGMA, HUMAN_MIN_MS, HUMAN_MAX_MS, HUMAN_ERROR_PCT,
                HUMAN_SLAP_MEDIAN_MS, HUMAN_SLAP_SIGMA, HUMAN_SLAP_MIN_MS, HUMAN_SLAP_MAX_MS, HUMAN_FALSE_SHOUT_PCT,
                DEFAULT_BETWEEN_MS);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
        va_list ap;

        fputs("arbiter-bots: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputs("; see arbiter-bots --help\n", stderr);
        return EXIT_USAGE;
}

/* The first line of path, without its newline: the token. */
static int read_token(const char *path, char **ret) {
        char line[TOKEN_LINE_MAX];
        FILE *f = fopen(path, "re");

        if (!f)
                return -errno;
        if (!fgets(line, sizeof line, f)) {
                fclose(f);
                return -ENODATA;
        }
        fclose(f);
        line[strcspn(line, "\r\n")] = '\0';
        if (!*line)
                return -ENODATA;
        *ret = strdup(line);
        return *ret ? 0 : -ENOMEM;
}

/* Splits a comma list of names; returns how many, or -EINVAL. */
static int parse_names(char *s, const char **out, unsigned n_max) {
        char *save = NULL, *tok;
        unsigned n = 0;

        for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (n >= n_max || !*tok)
                        return -EINVAL;
                out[n++] = tok;
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
        return eng_splitmix64(&st) >> 1;
}

int main(int argc, char **argv) {
        enum {
                OPT_URL = 0x100, OPT_TABLE, OPT_UID_BASE, OPT_PADS, OPT_REACTION, OPT_SIGMA, OPT_MIN, OPT_MAX,
                OPT_ERROR, OPT_SEED, OPT_KEEP, OPT_TOKEN_FILE, OPT_PLAYERS, OPT_CONFIG, OPT_BETWEEN, OPT_STATE, OPT_VERSION,
                OPT_GAME, OPT_SLAP, OPT_FALSE_SHOUT,
        };
        static const struct option options[] = {
                { "url",             required_argument, NULL, OPT_URL },
                { "table",           required_argument, NULL, OPT_TABLE },
                { "uid-base",        required_argument, NULL, OPT_UID_BASE },
                { "pads",            required_argument, NULL, OPT_PADS },
                { "reaction-ms",     required_argument, NULL, OPT_REACTION },
                { "reaction-sigma",  required_argument, NULL, OPT_SIGMA },
                { "reaction-min-ms", required_argument, NULL, OPT_MIN },
                { "reaction-max-ms", required_argument, NULL, OPT_MAX },
                { "error-pct",       required_argument, NULL, OPT_ERROR },
                { "slap-ms",         required_argument, NULL, OPT_SLAP },
                { "false-shout-pct", required_argument, NULL, OPT_FALSE_SHOUT },
                { "game",            required_argument, NULL, OPT_GAME },
                { "seed",            required_argument, NULL, OPT_SEED },
                { "keep-playing",    no_argument,       NULL, OPT_KEEP },
                { "token-file",      required_argument, NULL, OPT_TOKEN_FILE },
                { "players",         required_argument, NULL, OPT_PLAYERS },
                { "match-config",    required_argument, NULL, OPT_CONFIG },
                { "between-ms",      required_argument, NULL, OPT_BETWEEN },
                { "state",           required_argument, NULL, OPT_STATE },
                { "quiet",           no_argument,       NULL, 'q' },
                { "verbose",         no_argument,       NULL, 'v' },
                { "version",         no_argument,       NULL, OPT_VERSION },
                { "help",            no_argument,       NULL, 'h' },
                {}
        };
        static const char *players[PLAYERS_MAX];
        static char names[LIST_MAX];
        struct bots_options opt = { .url = DEFAULT_URL, .n_pads = PROTO_ADDR_MAX, .game = DEFAULT_GAME,
                                    .between_us = DEFAULT_BETWEEN_MS * USEC_PER_MSEC,
                                    .false_shout_pct = HUMAN_FALSE_SHOUT_PCT };
        const char *token_file = NULL;
        bool have_uid = false, have_seed = false;
        int level = LOG_NOTICE, c, n, r;
        char *token = NULL;
        json_error_t jerr;
        uint64_t v;

        human_defaults(&opt.human);
        human_slap_defaults(&opt.slap);
        while ((c = getopt_long(argc, argv, "qvh", options, NULL)) != -1) {
                switch (c) {
                case OPT_URL:
                        if (strncmp(optarg, "http://", strlen("http://")) != 0 &&
                            strncmp(optarg, "https://", strlen("https://")) != 0)
                                return usage_error("--url needs http://HOST:PORT, not \"%s\"", optarg);
                        opt.url = optarg;
                        break;
                case OPT_TABLE:
                        if (!*optarg)
                                return usage_error("--table needs a table's name");
                        opt.table = optarg;
                        break;
                case OPT_UID_BASE:
                        if (number_parse_u64(optarg, 1, UINT64_MAX - PROTO_ADDR_MAX, &opt.uid_base) < 0)
                                return usage_error("--uid-base needs a non-zero 64-bit number, not \"%s\"", optarg);
                        have_uid = true;
                        break;
                case OPT_PADS:
                        if (number_parse_u64(optarg, 1, PROTO_ADDR_MAX, &v) < 0)
                                return usage_error("--pads needs a number from 1 to %d, not \"%s\"", PROTO_ADDR_MAX,
                                                   optarg);
                        opt.n_pads = (unsigned) v;
                        break;
                case OPT_REACTION:
                case OPT_MIN:
                case OPT_MAX:
                        if (number_parse_u64(optarg, 1, MAX_REACTION_MS, &v) < 0)
                                return usage_error("--%s needs milliseconds from 1 to %d, not \"%s\"",
                                                   c == OPT_REACTION ? "reaction-ms" :
                                                   c == OPT_MIN ? "reaction-min-ms" : "reaction-max-ms",
                                                   MAX_REACTION_MS, optarg);
                        *(c == OPT_REACTION ? &opt.human.median_us : c == OPT_MIN ? &opt.human.min_us
                                                                                  : &opt.human.max_us) =
                                (int64_t) v * USEC_PER_MSEC;
                        break;
                case OPT_SIGMA:
                        if (number_parse_double(optarg, 0, MAX_SIGMA, &opt.human.sigma) < 0)
                                return usage_error("--reaction-sigma needs a number from 0 to %g, not \"%s\"",
                                                   MAX_SIGMA, optarg);
                        break;
                case OPT_ERROR:
                        if (number_parse_u64(optarg, 0, PERCENT, &v) < 0)
                                return usage_error("--error-pct needs a percentage from 0 to 100, not \"%s\"",
                                                   optarg);
                        opt.human.error_pct = (unsigned) v;
                        break;
                case OPT_SLAP:
                        if (number_parse_u64(optarg, 1, MAX_REACTION_MS, &v) < 0)
                                return usage_error("--slap-ms needs milliseconds from 1 to %d, not \"%s\"",
                                                   MAX_REACTION_MS, optarg);
                        opt.slap.median_us = (int64_t) v * USEC_PER_MSEC;
                        break;
                case OPT_FALSE_SHOUT:
                        if (number_parse_u64(optarg, 0, PERCENT, &v) < 0)
                                return usage_error("--false-shout-pct needs a percentage from 0 to 100, not \"%s\"",
                                                   optarg);
                        opt.false_shout_pct = (unsigned) v;
                        break;
                case OPT_GAME:
                        if (!play_game_find(optarg))
                                return usage_error("--game needs crash-pilot or crazy-pilot, not \"%s\"", optarg);
                        opt.game = optarg;
                        break;
                case OPT_SEED:
                        if (number_parse_u64(optarg, 0, UINT64_MAX, &opt.seed) < 0)
                                return usage_error("--seed needs a number, not \"%s\"", optarg);
                        have_seed = true;
                        break;
                case OPT_KEEP:
                        opt.keep_playing = true;
                        break;
                case OPT_TOKEN_FILE:
                        token_file = optarg;
                        break;
                case OPT_PLAYERS:
                        if (snprintf(names, sizeof names, "%s", optarg) >= (int) sizeof names ||
                            (n = parse_names(names, players, PLAYERS_MAX)) < 2)
                                return usage_error("--players needs 2 to %d names separated by commas, not \"%s\"",
                                                   PLAYERS_MAX, optarg);
                        opt.players = players;
                        opt.n_players = (size_t) n;
                        break;
                case OPT_CONFIG:
                        json_decref(opt.match_config);
                        opt.match_config = json_loads(optarg, 0, &jerr);
                        if (!json_is_object(opt.match_config))
                                return usage_error("--match-config needs a JSON object of settings, not \"%s\"",
                                                   optarg);
                        break;
                case OPT_BETWEEN:
                        if (number_parse_u64(optarg, 0, MAX_BETWEEN_MS, &v) < 0)
                                return usage_error("--between-ms needs milliseconds from 0 to %d, not \"%s\"",
                                                   MAX_BETWEEN_MS, optarg);
                        opt.between_us = (int64_t) v * USEC_PER_MSEC;
                        break;
                case OPT_STATE:
                        if (!*optarg)
                                return usage_error("--state needs a file");
                        opt.state_file = optarg;
                        break;
                case 'q':
                        level = LOG_WARNING;
                        break;
                case 'v':
                        level = LOG_DEBUG;
                        break;
                case OPT_VERSION:
                        printf("arbiter-bots %s\n", ARBITER_VERSION);
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
        if (!opt.table)
                return usage_error("--table names the table the bots sit at");
        if (!have_uid)
                return usage_error("--uid-base names their pads (arbiter-padsim's --uid-base)");
        if (opt.human.min_us > opt.human.max_us)
                return usage_error("--reaction-min-ms is above --reaction-max-ms");
        /* a slap is never slower to make than the floor given for a decision */
        if (opt.human.min_us < opt.slap.min_us)
                opt.slap.min_us = opt.human.min_us;
        if (opt.keep_playing && !token_file)
                return usage_error("--keep-playing needs --token-file: a referee's or admin's token");

        log_setup("arbiter-bots");
        log_set_level(level);
        if (token_file && (r = read_token(token_file, &token)) < 0) {
                fprintf(stderr, "arbiter-bots: cannot read a token from %s: %s\n", token_file, strerror(-r));
                return EXIT_FAILURE;
        }
        if (!have_seed)
                opt.seed = default_seed();
        opt.token = token;
        log_notice("seed %" PRIu64 "; reaction times median %" PRId64 " ms (sigma %.2f, %" PRId64 "..%" PRId64
                   " ms), %u%% of calls wrong", opt.seed, opt.human.median_us / USEC_PER_MSEC, opt.human.sigma,
                   opt.human.min_us / USEC_PER_MSEC, opt.human.max_us / USEC_PER_MSEC, opt.human.error_pct);
        /* A write to a closed pipe is an error to report, not a silent death. */
        signal(SIGPIPE, SIG_IGN);
        if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK) {
                fprintf(stderr, "arbiter-bots: cannot initialise libcurl\n");
                return EXIT_FAILURE;
        }
        r = bots_run(&opt);
        curl_global_cleanup();
        json_decref(opt.match_config);
        free(token);
        return r;
}
