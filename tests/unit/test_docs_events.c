/* Every event of every game (the framework's and each game's, for the
 * games of this build: tests/games/registry.c) is documented: its name in
 * docs/openapi.yaml (MatchEvent.kind), and, when the public hears it, its
 * D-Bus signal with the signature bus/matches.c gives it, in docs/dbus.md
 * under the right interface.  The live introspection of the same
 * interfaces is compared with docs/dbus.md by the integration tests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bus/matches.h"
#include "engine/engine.h"

#define LINE_MAX_DOC    2048
#define NAME_MAX_DOC    256

/* The whole of a file, NUL-terminated (from the repository root, as
 * tests/run.sh runs the tests). */
static char *slurp(const char *path) {
        FILE *f = fopen(path, "r");
        char *text;
        long n;

        if (!f)
                fail_msg("cannot open %s (run from the repository root)", path);
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        text = calloc(1, (size_t) n + 1);
        assert_non_null(text);
        assert_int_equal(fread(text, 1, (size_t) n, f), (size_t) n);
        fclose(f);
        return text;
}

/* The MatchEvent.kind enum of openapi.yaml contains name. */
static bool openapi_lists(const char *doc, const char *name) {
        const char *schema = strstr(doc, "    MatchEvent:\n"), *end, *p;
        size_t len = strlen(name);

        if (!schema)
                fail_msg("docs/openapi.yaml has no MatchEvent schema");
        p = strstr(schema, "enum: [");
        end = p ? strchr(p, ']') : NULL;
        if (!p || !end)
                fail_msg("docs/openapi.yaml: MatchEvent.kind has no enum");
        for (p += strlen("enum: ["); p < end; p++) {
                p += strspn(p, " ,\n");
                if ((size_t) (end - p) >= len && strncmp(p, name, len) == 0 && strchr(" ,\n]", p[len]))
                        return true;
                p += strcspn(p, ",]") - 1;
        }
        return false;
}

/* docs/dbus.md has, under "### iface", the row "| Signal | member | sig |". */
static bool dbus_doc_lists(const char *doc, const char *iface, const char *member, const char *sig) {
        char heading[NAME_MAX_DOC], row[LINE_MAX_DOC];
        const char *at, *next;

        snprintf(heading, sizeof heading, "### %s\n", iface);
        at = strstr(doc, heading);
        if (!at)
                return false;
        at += strlen(heading);
        next = strstr(at, "\n### ");
        snprintf(row, sizeof row, "| Signal | %s | %s |", member, sig);
        const char *hit = strstr(at, row);
        return hit && (!next || hit < next);
}

static void check_event(const char *openapi, const char *dbus, const struct eng_event_def *d, const char *iface) {
        char member[NAME_MAX_DOC], sig[NAME_MAX_DOC];

        if (!openapi_lists(openapi, d->name))
                fail_msg("event %s is not in docs/openapi.yaml's MatchEvent.kind", d->name);
        if (d->audience != ENG_VIEW_PUBLIC)
                return;         /* no signal: D-Bus is public */
        assert_int_equal(bus_match_camel(d->name, member, sizeof member), 0);
        assert_int_equal(bus_match_signature(d, sig, sizeof sig, NULL, 0), 0);
        if (!dbus_doc_lists(dbus, iface, member, sig))
                fail_msg("signal %s (%s) of %s is not in docs/dbus.md under ### %s", member, sig, d->name, iface);
}

static void every_event_of_every_game_is_documented(void **state) {
        char *openapi = slurp("docs/openapi.yaml"), *dbus = slurp("docs/dbus.md");
        char iface[NAME_MAX_DOC];
        size_t checked = 0;

        (void) state;
        for (size_t i = 0; eng_framework_events[i]; i++, checked++)
                check_event(openapi, dbus, eng_framework_events[i], BUS_MATCH_IFACE);
        for (size_t g = 0; eng_games[g]; g++) {
                assert_int_equal(bus_match_game_iface(eng_games[g], iface, sizeof iface), 0);
                for (size_t e = 0; e < eng_games[g]->n_events; e++, checked++)
                        check_event(openapi, dbus, eng_games[g]->events[e], iface);
        }
        assert_true(checked > 6);
        free(openapi);
        free(dbus);
}

/* The checks themselves: a name that is not documented is found out. */
static void an_undocumented_event_is_found(void **state) {
        static const struct eng_event_def ghost = { .name = "ghost_appeared", .doc = "never documented" };
        char *openapi = slurp("docs/openapi.yaml"), *dbus = slurp("docs/dbus.md");

        (void) state;
        assert_false(openapi_lists(openapi, ghost.name));
        assert_false(openapi_lists(openapi, "match"));          /* a prefix of a listed name is not it */
        assert_true(openapi_lists(openapi, "match_started"));
        assert_false(dbus_doc_lists(dbus, BUS_MATCH_IFACE, "GhostAppeared", "y"));
        assert_false(dbus_doc_lists(dbus, BUS_MATCH_IFACE, "MatchStarted", "yy"));
        assert_true(dbus_doc_lists(dbus, BUS_MATCH_IFACE, "MatchStarted", "y"));
        free(openapi);
        free(dbus);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_event_of_every_game_is_documented),
                cmocka_unit_test(an_undocumented_event_is_found),
        };

        return cmocka_run_group_tests_name("docs_events", tests, NULL, NULL);
}
