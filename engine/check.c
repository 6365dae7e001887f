/* engine/check.c — eng_game_check: whether a game's tables are complete
 * and consistent (engine.h).  A game's author calls it from the game's
 * unit test; tests/unit/test_engine_framework.c runs it on every
 * registered game. */
#include "engine/engine.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define FAIL(...) do { if (why) snprintf(why, len, __VA_ARGS__); return -EINVAL; } while (0)

/* Members every input's JSON has, and the audit member of a request. */
static const char *const input_reserved[] = { "kind", "seat", "seq", "time_us", "reason", NULL };
/* Members every event's JSON has (SSE adds match and seq). */
static const char *const event_reserved[] = { "kind", "seat", "at_us", "match", "seq", NULL };

static bool listed(const char *const *names, const char *name) {
        for (; *names; names++)
                if (strcmp(*names, name) == 0)
                        return true;
        return false;
}

/* A name as JSON members and D-Bus members are made of it. */
static bool snake(const char *s, bool dots) {
        if (!s || !*s || !((*s >= 'a' && *s <= 'z')))
                return false;
        for (; *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || (dots && *s == '.')))
                        return false;
        return true;
}

/* A game's name goes into URLs and D-Bus interface names: "crash-pilot". */
static bool game_name_ok(const char *s) {
        if (!s || !*s || !(*s >= 'a' && *s <= 'z'))
                return false;
        for (; *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
                        return false;
        return true;
}

static int check_fields(const struct eng_field *f, size_t n, size_t max_slots, const char *what,
                        const char *const *reserved, char *why, size_t len) {
        for (size_t i = 0; i < n; i++) {
                if (!snake(f[i].name, reserved == NULL))
                        FAIL("%s: field %zu has no snake_case name", what, i);
                if (reserved && listed(reserved, f[i].name))
                        FAIL("%s: field \"%s\" has a name every %s already has", what, f[i].name,
                             reserved == input_reserved ? "input" : "event");
                if (!f[i].doc)
                        FAIL("%s: field \"%s\" has no doc", what, f[i].name);
                if (f[i].type == ENG_T_ENUM && !f[i].choices)
                        FAIL("%s: field \"%s\" is a choice without choices", what, f[i].name);
                for (size_t k = 0; k < i; k++)
                        if (strcmp(f[k].name, f[i].name) == 0)
                                FAIL("%s: field \"%s\" twice", what, f[i].name);
        }
        if (eng_fields_slots(f, n) > max_slots)
                FAIL("%s: its fields take %zu slots, more than %zu", what, eng_fields_slots(f, n), max_slots);
        return 0;
}

/* Every {name} of an event's text is one of its fields, or {seat} (the
 * event's own seat), and every brace is closed. */
static int check_text(const struct eng_event_def *d, char *why, size_t len) {
        for (const char *t = d->text; (t = strchr(t, '{')); ) {
                const char *close = strchr(t, '}');
                char name[ENG_FIELD_MAX];
                size_t n;

                if (!close || (n = (size_t) (close - t - 1)) == 0 || n >= sizeof name)
                        FAIL("event %s: its text has an unclosed or empty {name}", d->name);
                memcpy(name, t + 1, n);
                name[n] = '\0';
                if (strcmp(name, "seat") != 0 && !eng_fields_find(d->fields, d->n_fields, name))
                        FAIL("event %s: its text names {%s}, which is not one of its fields", d->name, name);
                t = close + 1;
        }
        return 0;
}

static int check_event(const struct eng_event_def *d, char *why, size_t len) {
        if (!snake(d->name, false))
                FAIL("an event has no snake_case name");
        if (!d->doc || !d->text)
                FAIL("event %s: a doc and an explanation text are needed", d->name);
        if (check_text(d, why, len) < 0)
                return -EINVAL;
        return check_fields(d->fields, d->n_fields, ENG_MAX_VALUES, d->name, event_reserved, why, len);
}

int eng_game_check(const struct eng_game *g, char *why, size_t len) {
        enum eng_input_kind kind;
        unsigned action;
        int r;

        if (!g || !game_name_ok(g->name))
                FAIL("a game needs a name of lowercase letters, digits and '-'");
        if (!g->display_name || !g->description)
                FAIL("%s: a display name and a description are needed", g->name);
        if (g->min_seats < 1 || g->min_seats > g->max_seats || g->max_seats > ENG_MAX_SEATS)
                FAIL("%s: seats %u..%u", g->name, g->min_seats, g->max_seats);
        if (!g->validate || !g->create || !g->apply || !g->status || !g->wake_us || !g->view_visit || !g->hash ||
            !g->result)
                FAIL("%s: a required method is missing", g->name);
        if (g->state_size == 0 || g->max_outputs >= ENG_MAX_OUTPUTS)
                FAIL("%s: state_size %zu, max_outputs %zu", g->name, g->state_size, g->max_outputs);
        if (g->n_data > ENG_MAX_DATA || g->n_terms > ENG_MAX_TERMS)
                FAIL("%s: too many data files or score terms", g->name);
        r = check_fields(g->params, g->n_params, ENG_MAX_CONFIG_SLOTS, "settings", NULL, why, len);
        if (r < 0)
                return r;
        for (size_t i = 0; i < g->n_params; i++) {
                int64_t v[1] = { g->params[i].def };
                struct eng_error err;

                if (!g->params[i].max_count && g->params[i].type != ENG_T_RECORDS &&
                    eng_value_check(&g->params[i], g->params[i].name, v[0], &err) < 0)
                        FAIL("%s: the default of %s is out of its range", g->name, g->params[i].name);
        }
        for (size_t i = 0; i < g->n_data; i++)
                if (!snake(g->data[i].name, false) || !g->data[i].builtin || !g->data[i].doc ||
                    strlen(g->data[i].builtin) > g->data[i].max_len)
                        FAIL("%s: data file %zu needs a name, a built-in file within max_len, and a doc", g->name, i);
        for (size_t i = 0; i < g->n_actions; i++) {
                const struct eng_input_def *a = &g->actions[i];

                if (!snake(a->name, false) || !a->doc || !a->from)
                        FAIL("%s: action %zu needs a snake_case name, a doc and who may send it", g->name, i);
                for (unsigned k = ENG_IN_START; k < ENG_IN_KINDS_END; k++)
                        if (eng_builtin_inputs[k] && strcmp(eng_builtin_inputs[k]->name, a->name) == 0)
                                FAIL("%s: action %s has the name of a built-in input", g->name, a->name);
                for (size_t k = 0; k < i; k++)
                        if (strcmp(g->actions[k].name, a->name) == 0)
                                FAIL("%s: action %s twice", g->name, a->name);
                r = check_fields(a->fields, a->n_fields, ENG_MAX_ARGS, a->name, input_reserved, why, len);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < g->n_events; i++) {
                r = check_event(g->events[i], why, len);
                if (r < 0)
                        return r;
                for (size_t k = 0; eng_framework_events[k]; k++)
                        if (strcmp(eng_framework_events[k]->name, g->events[i]->name) == 0)
                                FAIL("%s: event %s has the name of a framework event", g->name, g->events[i]->name);
                for (size_t k = 0; k < i; k++)
                        if (strcmp(g->events[k]->name, g->events[i]->name) == 0)
                                FAIL("%s: event %s twice", g->name, g->events[i]->name);
        }
        for (size_t i = 0; i < g->n_routes; i++) {
                const struct eng_route *rt = &g->routes[i];

                if (rt->role < ENG_ROLE_BUTTONS || rt->role >= ENG_ROLES_END)
                        FAIL("%s: route %zu has no role", g->name, i);
                if (rt->kind == ENG_ROUTE_CALL && !eng_call_name(g, rt->call))
                        FAIL("%s: route %zu makes call %d, which the game does not name", g->name, i, rt->call);
                if (rt->kind == ENG_ROUTE_CALL && !(g->builtins & (1u << ENG_IN_CALL)))
                        FAIL("%s: route %zu is a judged call, but the game takes no calls", g->name, i);
                if (rt->kind == ENG_ROUTE_PRESS && !(g->builtins & (1u << ENG_IN_PRESS)))
                        FAIL("%s: route %zu is a timed press, but the game takes no presses", g->name, i);
                if (rt->kind == ENG_ROUTE_INPUT) {
                        const struct eng_input_def *d;
                        struct eng_input in = { 0 };

                        if (eng_input_find(g, rt->input, &kind, &action) < 0)
                                FAIL("%s: route %zu sends \"%s\", no input of the game", g->name, i,
                                     rt->input ? rt->input : "(null)");
                        in.kind = kind;
                        in.action = action;
                        d = eng_input_def_of(g, &in);
                        for (size_t k = 0; k < d->n_fields; k++)
                                if (!d->fields[k].optional && !d->fields[k].max_count)
                                        FAIL("%s: route %zu sends %s, which has a required field", g->name, i,
                                             d->name);
                }
        }
        for (size_t i = 0; i < g->n_terms; i++)
                if (!snake(g->terms[i], false))
                        FAIL("%s: score term %zu has no snake_case name", g->name, i);
        for (size_t i = 0; i < g->n_view; i++)
                if (!snake(g->view[i].name, false) || !g->view[i].doc)
                        FAIL("%s: view member %zu needs a snake_case name and a doc", g->name, i);
        for (size_t k = 0; eng_framework_events[k]; k++) {
                r = check_event(eng_framework_events[k], why, len);
                if (r < 0)
                        return r;
        }
        return 0;
}
