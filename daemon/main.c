/* daemon/main.c — arbiterd's command line. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "common/log.h"
#include "common/number.h"
#include "daemon/config.h"
#include "daemon/service.h"
#include "hardware/serial.h"

static void usage(FILE *f) {
        fprintf(f,
                "Usage: arbiterd [OPTIONS]\n"
                "\n"
                "The arbiter daemon: pads, matches and tournaments for reaction games.\n"
                "\n"
                "  -c, --config FILE          read FILE (INI; see arbiterd.conf.example)\n"
                "      --check-config         check the configuration and exit\n"
                "      --migrate-only         apply database migrations and exit\n"
                "      --create-token ROLE NAME\n"
                "                             create an API token (ROLE: admin, referee or\n"
                "                             display), print it once, and exit\n"
                "      --spool-check          list what the spool holds, and any damage\n"
                "      --spool-drop OFFSET    remove the damaged bytes at OFFSET from the spool\n"
                "      --spool-truncate-at OFFSET\n"
                "                             cut the spool at OFFSET (what follows is lost)\n"
                "      --version              print the version and exit\n"
                "  -h, --help                 print this help and exit\n"
                "\n"
                "Environment: ARBITER_DSN, ARBITER_LISTEN, ARBITER_BUS, ARBITER_MIGRATIONS,\n"
                "ARBITER_WEB and ARBITER_LOG_LEVEL override the file.\n"
                "Exit status: 0 ok, 1 failure, 64 usage, 65 database or spool refused, 69 database\n"
                "unreachable (one-shot modes), 78 bad configuration.\n");
}

int main(int argc, char **argv) {
        enum { OPT_CHECK = 0x100, OPT_MIGRATE, OPT_TOKEN, OPT_VERSION, OPT_SPOOL_CHECK, OPT_SPOOL_DROP,
               OPT_SPOOL_TRUNCATE };
        static const struct option options[] = {
                { "config",       required_argument, NULL, 'c' },
                { "check-config", no_argument,       NULL, OPT_CHECK },
                { "migrate-only", no_argument,       NULL, OPT_MIGRATE },
                { "create-token", required_argument, NULL, OPT_TOKEN },
                { "version",      no_argument,       NULL, OPT_VERSION },
                { "spool-check",  no_argument,       NULL, OPT_SPOOL_CHECK },
                { "spool-drop",   required_argument, NULL, OPT_SPOOL_DROP },
                { "spool-truncate-at", required_argument, NULL, OPT_SPOOL_TRUNCATE },
                { "help",         no_argument,       NULL, 'h' },
                {}
        };
        const char *config_path = NULL, *token_role = NULL, *token_name = NULL;
        bool check_only = false, migrate_only = false;
        int spool_op = 0;
        uint64_t spool_offset = 0;
        struct config cfg = { 0 };
        char err[1024];
        int c, status;

        while ((c = getopt_long(argc, argv, "c:h", options, NULL)) != -1) {
                switch (c) {
                case 'c':
                        config_path = optarg;
                        break;
                case OPT_CHECK:
                        check_only = true;
                        break;
                case OPT_MIGRATE:
                        migrate_only = true;
                        break;
                case OPT_TOKEN:
                        token_role = optarg;
                        if (optind >= argc || argv[optind][0] == '-') {
                                fprintf(stderr, "arbiterd: --create-token needs ROLE and NAME, "
                                                "e.g. --create-token display scoreboard-hall-a\n");
                                return EXIT_USAGE;
                        }
                        token_name = argv[optind++];
                        break;
                case OPT_SPOOL_DROP:
                case OPT_SPOOL_TRUNCATE:
                        if (number_parse_u64(optarg, 0, INT64_MAX, &spool_offset) < 0) {
                                fprintf(stderr, "arbiterd: --%s takes a byte offset, as arbiterd --spool-check "
                                                "prints it, not \"%s\"\n",
                                        c == OPT_SPOOL_DROP ? "spool-drop" : "spool-truncate-at", optarg);
                                return EXIT_USAGE;
                        }
                        /* fall through */
                case OPT_SPOOL_CHECK:
                        if (spool_op && spool_op != c) {
                                fprintf(stderr, "arbiterd: give one of --spool-check, --spool-drop and "
                                                "--spool-truncate-at\n");
                                return EXIT_USAGE;
                        }
                        spool_op = c;
                        break;
                case OPT_VERSION:
                        printf("arbiterd %s\n", ARBITER_VERSION);
                        return EXIT_SUCCESS;
                case 'h':
                        usage(stdout);
                        return EXIT_SUCCESS;
                default:
                        usage(stderr);
                        return EXIT_USAGE;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "arbiterd: unexpected argument \"%s\"; see arbiterd --help\n", argv[optind]);
                return EXIT_USAGE;
        }
        if (token_role && auth_role_from_string(token_role) < 0) {
                fprintf(stderr, "arbiterd: unknown role \"%s\": use admin, referee or display\n", token_role);
                return EXIT_USAGE;
        }
        if (token_name && api_name_problem(token_name)) {
                fprintf(stderr, "arbiterd: %s\n", api_name_problem(token_name));
                return EXIT_USAGE;
        }

        log_setup("arbiterd");
        if (config_load(&cfg, config_path, err, sizeof err) < 0) {
                fprintf(stderr, "%s\n", err);
                config_done(&cfg);
                return EXIT_CONFIG;
        }
        if (!serial_speed(cfg.pad_baud)) {
                fprintf(stderr, "%s: [pads] baud = %u is not a speed the serial driver offers "
                                "(e.g. 115200, 230400, 460800, 921600, 1000000, 2000000, 3000000)\n",
                        config_path ? config_path : "configuration", cfg.pad_baud);
                config_done(&cfg);
                return EXIT_CONFIG;
        }
        log_set_level(cfg.log_level);

        if (check_only) {
                printf("%s: configuration OK\n", config_path ? config_path : "(defaults and environment)");
                status = EXIT_SUCCESS;
        } else if (spool_op == OPT_SPOOL_CHECK) {
                status = spool_cmd_check(&cfg);
        } else if (spool_op == OPT_SPOOL_DROP) {
                status = spool_cmd_drop(&cfg, spool_offset);
        } else if (spool_op == OPT_SPOOL_TRUNCATE) {
                status = spool_cmd_truncate_at(&cfg, spool_offset);
        } else if (migrate_only) {
                status = oneshot_migrate(&cfg);
        } else if (token_role) {
                status = oneshot_create_token(&cfg, token_role, token_name);
        } else {
                return service_run(config_path, &cfg);
        }
        config_done(&cfg);
        return status;
}
