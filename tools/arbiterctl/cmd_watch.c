/* tools/arbiterctl/cmd_watch.c — `watch`: which stream to follow (every
 * event, a tournament's, a match's public, a seat's or the referee's) and
 * from where; watch.c follows it. */
#include <stdio.h>
#include <string.h>

#include "tools/arbiterctl/commands.h"
#include "tools/arbiterctl/http.h"
#include "tools/arbiterctl/watch.h"

/* docs/openapi.yaml, Seat: seats 1..8; a heat seats up to 16. */
#define SEAT_MAX 16

static int watch_cmd(struct ctl *c, const struct args *a) {
        const char *topic = args_get(a, "topic"), *last = args_get(a, "last-event-id");
        const char *seat_text = args_get(a, "seat");
        bool referee = args_flag(a, "referee");
        struct watch_options o = { 0 };
        int64_t tournament = 0, match = 0, seat = 0, count = 0;
        int chosen;

        if (args_opt_id(a, "tournament", &tournament) < 0 || args_opt_id(a, "match", &match) < 0)
                return CTL_EXIT_USAGE;
        chosen = (tournament > 0) + (match > 0) + (topic != NULL);
        if (chosen > 1)
                return ctl_fail(CTL_EXIT_USAGE, "watch: one of --tournament, --match and --topic");
        if ((seat_text || referee) && !match)
                return ctl_fail(CTL_EXIT_USAGE, "watch: --seat and --referee go with --match");
        if (seat_text && referee)
                return ctl_fail(CTL_EXIT_USAGE, "watch: --seat or --referee, not both");
        if (seat_text && args_parse_int(seat_text, "--seat", 1, SEAT_MAX, &seat) < 0)
                return CTL_EXIT_USAGE;
        if (args_get(a, "count") && args_parse_int(args_get(a, "count"), "--count", 1, INT64_MAX, &count) < 0)
                return CTL_EXIT_USAGE;
        o.count = count;
        if (last) {
                if (strlen(last) >= sizeof o.last_id || strpbrk(last, "\r\n"))
                        return ctl_fail(CTL_EXIT_USAGE, "--last-event-id: not an event id (\"0\" or BOOT-N)");
                snprintf(o.last_id, sizeof o.last_id, "%s", last);
        }
        if (tournament) {
                /* its stream does not look the id up: a typo would wait forever */
                char path[HTTP_PATH_MAX];
                json_t *t;
                int st;
                http_path(path, "/v1/tournaments/%lld", (long long) tournament);
                st = http_get_json(c, path, &t);
                if (st)
                        return st;
                json_decref(t);
                http_path(o.path, "/v1/tournaments/%lld/events", (long long) tournament);
        } else if (match && seat) {
                http_path(o.path, "/v1/matches/%lld/seats/%lld/events", (long long) match, (long long) seat);
        } else if (match && referee) {
                http_path(o.path, "/v1/matches/%lld/referee/events", (long long) match);
        } else if (match) {
                http_path(o.path, "/v1/matches/%lld/events", (long long) match);
        } else {
                snprintf(o.path, sizeof o.path, "/v1/events");
                if (http_query(o.path, "topic", topic) < 0)
                        return ctl_fail(CTL_EXIT_USAGE, "--topic: too long");
        }
        return watch_run(c, &o);
}

static const struct opt opts[] = {
        { "tournament", 't', OPT_VALUE, "ID", "a tournament's events", NULL },
        { "match", 'm', OPT_VALUE, "ID", "a runtime match's public events", NULL },
        { "seat", 0, OPT_VALUE, "N", "with --match: that seat's events with its private fields", NULL },
        { "referee", 0, OPT_FLAG, NULL, "with --match: every event with every field (referee token)", NULL },
        { "topic", 0, OPT_VALUE, "TOPIC", "only this topic or below it (pads, match/42, tournament/7)", NULL },
        { "last-event-id", 0, OPT_VALUE, "ID", "resume after this event id; 0: every event this daemon kept", NULL },
        { "count", 'n', OPT_VALUE, "N", "stop after N events", NULL },
        { NULL },
};

static const struct verb verbs[] = {
        { "", "[--tournament ID | --match ID [--seat N | --referee] | --topic TOPIC] [--count N]", 0, 0, NULL,
          "follow live events, one line each, until Ctrl-C",
          "GET /v1/events, /v1/tournaments/{id}/events, /v1/matches/{id}/events (display)",
          "Without an option: every event of the daemon.  After a dropped connection\n"
          "it reconnects by itself and resumes from the last event it printed (a\n"
          "\"reset\" line says when the daemon could not resume).  --json prints one\n"
          "JSON object per event and line: {\"id\", \"event\", \"data\"}.\n",
          opts, watch_cmd },
        { NULL },
};

const struct noun noun_watch = { "watch", "live events, one line each", verbs };
