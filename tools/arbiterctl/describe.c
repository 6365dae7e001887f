/* tools/arbiterctl/describe.c — see describe.h. */
#include <stdio.h>
#include <string.h>

#include "tools/arbiterctl/describe.h"
#include "tools/arbiterctl/output.h"

typedef void (*describe_fn)(const json_t *d, char *buf, size_t size);

static long long num(const json_t *d, const char *key) {
        return (long long) json_integer_value(json_object_get(d, key));
}

static const char *str(const json_t *d, const char *key) {
        const char *s = json_string_value(json_object_get(d, key));
        return s ? s : "?";
}

void describe_context(const json_t *d, char *buf, size_t size) {
        /* A tournament's event may name a stage match as "match": the
         * tournament is the context then. */
        if (json_is_integer(json_object_get(d, "tournament")))
                snprintf(buf, size, "tournament %lld", num(d, "tournament"));
        else if (json_is_integer(json_object_get(d, "match")))
                snprintf(buf, size, "match %lld", num(d, "match"));
        else if (json_is_string(json_object_get(d, "pad")))
                snprintf(buf, size, "pad %s", str(d, "pad"));
        else if (json_is_string(json_object_get(d, "id")))
                snprintf(buf, size, "pad %s", str(d, "id"));
        else
                buf[0] = '\0';
}

static void pressed(const json_t *d, char *buf, size_t size) {
        snprintf(buf, size, "button %lld%s", num(d, "button"), json_is_true(json_object_get(d, "late")) ? " (late)" : "");
}

static void pad_changed(const json_t *d, char *buf, size_t size) {
        const char *port = json_string_value(json_object_get(d, "port"));
        snprintf(buf, size, "%s pad, %lld buttons%s%s", str(d, "kind"), num(d, "buttons"), port ? " on " : "",
                 port ? port : "");
}

static void tournament_changed(const json_t *d, char *buf, size_t size) {
        const json_t *cur = json_object_get(d, "current");
        snprintf(buf, size, "state %s", str(d, "state"));
        if (json_is_object(cur))
                out_append(buf, size, ", stage %lld round %lld", num(cur, "stage"), num(cur, "round"));
}

static void registration_changed(const json_t *d, char *buf, size_t size) {
        const json_t *r = json_object_get(d, "registration");
        snprintf(buf, size, "%s (player %lld): %s, %s", str(r, "name"), num(r, "player"), str(r, "status"),
                 json_is_true(json_object_get(r, "checked_in")) ? "checked in" : "not checked in");
}

static void round_started(const json_t *d, char *buf, size_t size) {
        const json_t *matches = json_object_get(d, "matches"), *m;
        size_t i;

        snprintf(buf, size, "stage %lld round %lld: %zu matches", num(d, "stage"), num(d, "round"),
                 json_array_size(matches));
        json_array_foreach(matches, i, m) {
                char names[OUT_CELL_MAX];
                out_names(json_object_get(m, "participants"), names, sizeof names);
                out_append(buf, size, "%s%s", i ? "; " : ": ", names);
        }
}

static void match_called(const json_t *d, char *buf, size_t size) {
        char names[OUT_CELL_MAX];

        out_names(json_object_get(d, "participants"), names, sizeof names);
        snprintf(buf, size, "match %lld to ", num(d, "match"));
        if (json_is_integer(json_object_get(d, "table")))
                out_append(buf, size, "table %lld", num(d, "table"));
        else
                out_append(buf, size, "no table");
        out_append(buf, size, ": %s (runtime match %lld)", names, num(d, "runtime_match"));
}

static void result_recorded(const json_t *d, char *buf, size_t size) {
        char result[OUT_CELL_MAX];

        out_result(json_object_get(d, "result"), result, sizeof result);
        snprintf(buf, size, "match %lld (stage %lld round %lld): %s%s", num(d, "match"), num(d, "stage"),
                 num(d, "round"), result, json_is_true(json_object_get(d, "correction")) ? " (corrected)" : "");
}

static void standings_changed(const json_t *d, char *buf, size_t size) {
        snprintf(buf, size, "stage %lld", num(d, "stage"));
}

static void match_finished(const json_t *d, char *buf, size_t size) {
        const json_t *w = json_object_get(d, "winner");
        if (json_is_integer(w))
                snprintf(buf, size, "seat %lld wins", (long long) json_integer_value(w));
        else
                snprintf(buf, size, "no winner");
}

static void inputs_voided(const json_t *d, char *buf, size_t size) {
        snprintf(buf, size, "%lld inputs from seq %lld", num(d, "count"), num(d, "target"));
}

static void reset(const json_t *d, char *buf, size_t size) {
        snprintf(buf, size, "(%s): events were missed, refetch what you show", str(d, "reason"));
}

static void overflow(const json_t *d, char *buf, size_t size) {
        snprintf(buf, size, "(%s): this stream fell behind and ends", str(d, "reason"));
}

/* Any other event (a game's own): its seat, then its plain fields. */
static void generic(const json_t *d, char *buf, size_t size) {
        static const char *const skip[] = { "kind", "seat", "at_us", "match", "seq", "tournament", NULL };
        const char *key;
        json_t *v;

        buf[0] = '\0';
        if (json_is_integer(json_object_get(d, "seat")))
                out_append(buf, size, "seat %lld:", num(d, "seat"));
        json_object_foreach((json_t *) d, key, v) {
                bool skipped = false;
                for (const char *const *s = skip; *s; s++)
                        skipped = skipped || strcmp(*s, key) == 0;
                if (skipped || json_is_object(v) || json_is_array(v) || json_is_null(v))
                        continue;
                char value[OUT_CELL_MAX];
                out_value(v, value, sizeof value);
                out_append(buf, size, "%s%s=%s", buf[0] ? " " : "", key, value);
        }
}

static const struct {
        const char *name;
        describe_fn fn;
} known[] = {
        { "pressed", pressed },
        { "pad_added", pad_changed },
        { "pad_removed", pad_changed },
        { "tournament_changed", tournament_changed },
        { "registration_changed", registration_changed },
        { "round_started", round_started },
        { "bracket_advanced", round_started },
        { "match_called", match_called },
        { "result_recorded", result_recorded },
        { "standings_changed", standings_changed },
        { "match_finished", match_finished },
        { "inputs_voided", inputs_voided },
        { "reset", reset },
        { "overflow", overflow },
};

void describe_event(const char *name, const json_t *data, char *buf, size_t size) {
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
                if (strcmp(known[i].name, name) == 0) {
                        known[i].fn(data, buf, size);
                        return;
                }
        generic(data, buf, size);
}
