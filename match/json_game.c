/* match/json_game.c — a game's description, its settings and its data
 * files as JSON (json.h). */
#include "match/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match/json_fields.h"

/* The longest dotted path a config member can have and still be a
 * setting: far above any key a game declares ("reveal.timeout_ms"); a
 * longer path is reported as unknown, by its first ENG_FIELD_MAX bytes. */
#define CONFIG_PATH_MAX         128
/* Settings a game may have (a bit each catches one given twice). */
#define PARAMS_MAX              64

/* ---- Describing a game. */

static json_t *field_json(const struct eng_field *f, bool with_audience) {
        json_t *o = json_object(), *choices;
        int r;

        if (!o)
                return NULL;
        r = jf_set(o, "name", json_string(f->name));
        r |= jf_set(o, "type", json_string(eng_type_name(f->type)));
        if (f->type == ENG_T_INT || f->type == ENG_T_TIME || f->type == ENG_T_SEQ) {
                r |= jf_set(o, "min", json_integer(f->min));
                r |= jf_set(o, "max", json_integer(f->max));
        }
        if (f->type == ENG_T_ENUM && f->choices) {
                choices = json_array();
                for (int64_t c = f->min; choices && c <= f->max; c++)
                        r |= jf_append(choices, jf_string_or_null(f->choices[c]));
                r |= jf_set(o, "choices", choices);
        }
        if (f->max_count)
                r |= jf_set(o, "max_count", json_integer(f->max_count));
        if (f->type == ENG_T_RECORDS) {
                json_t *sub = json_array();

                for (size_t i = 0; sub && i < f->n_fields; i++)
                        r |= jf_append(sub, field_json(&f->fields[i], false));
                r |= jf_set(o, "fields", sub);
        }
        if (f->optional)
                r |= jf_set(o, "optional", json_true());
        if (with_audience)
                r |= jf_set(o, "audience", json_string(eng_audience_name(f->audience)));
        r |= jf_set(o, "unit", jf_string_or_null(f->unit));
        r |= jf_set(o, "doc", jf_string_or_null(f->doc));
        if (r < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static json_t *fields_json(const struct eng_field *f, size_t n, bool with_audience) {
        json_t *a = json_array();
        int r = 0;

        for (size_t i = 0; a && i < n; i++)
                r |= jf_append(a, field_json(&f[i], with_audience));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

/* A setting's default as JSON: a list is empty by default. */
static json_t *param_json(const struct eng_field *f) {
        json_t *o = field_json(f, false);
        int64_t v[1] = { f->def };

        if (!o)
                return NULL;
        if (f->max_count || f->type == ENG_T_RECORDS) {
                if (jf_set(o, "default", json_array()) < 0)
                        goto fail;
        } else if (jf_set(o, "default", jf_value_to(NULL, NULL, f, v)) < 0) {
                goto fail;
        }
        return o;
fail:
        json_decref(o);
        return NULL;
}

static json_t *from_json(unsigned from) {
        json_t *a = json_array();
        int r = 0;

        if (a && (from & ENG_FROM_SEAT))
                r |= jf_append(a, json_string("seat"));
        if (a && (from & ENG_FROM_REFEREE))
                r |= jf_append(a, json_string("referee"));
        if (a && (from & ENG_FROM_RUNTIME))
                r |= jf_append(a, json_string("runtime"));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

static json_t *input_def_json(const struct eng_input_def *d) {
        return json_pack("{s:s, s:o, s:b, s:o, s:s?}", "name", d->name, "from", from_json(d->from), "seated",
                         d->seated, "fields", fields_json(d->fields, d->n_fields, false), "doc", d->doc);
}

static json_t *inputs_json(const struct eng_game *g) {
        json_t *a = json_array();
        int r = 0;

        for (unsigned k = ENG_IN_START; a && k < ENG_IN_KINDS_END; k++)
                if (jf_takes_builtin(g, (enum eng_input_kind) k))
                        r |= jf_append(a, input_def_json(eng_builtin_inputs[k]));
        for (size_t i = 0; a && i < g->n_actions; i++)
                r |= jf_append(a, input_def_json(&g->actions[i]));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

static json_t *event_def_json(const struct eng_event_def *d, bool framework) {
        return json_pack("{s:s, s:s, s:b, s:b, s:o, s:s?, s:s?}", "name", d->name, "audience",
                         eng_audience_name(d->audience), "framework", framework, "reveals", d->reveals,
                         "fields", fields_json(d->fields, d->n_fields, true), "text", d->text, "doc", d->doc);
}

static json_t *events_json(const struct eng_game *g) {
        json_t *a = json_array();
        int r = 0;

        for (size_t i = 0; a && eng_framework_events[i]; i++)
                r |= jf_append(a, event_def_json(eng_framework_events[i], true));
        for (size_t i = 0; a && i < g->n_events; i++)
                r |= jf_append(a, event_def_json(g->events[i], false));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

static json_t *routes_json(const struct eng_game *g) {
        static const char *const kinds[] = { [ENG_ROUTE_CALL] = "call", [ENG_ROUTE_PRESS] = "press",
                                             [ENG_ROUTE_INPUT] = "input" };
        json_t *a = json_array();
        int r = 0;

        for (size_t i = 0; a && i < g->n_routes; i++) {
                const struct eng_route *rt = &g->routes[i];
                json_t *o = json_pack("{s:s?, s:o, s:s}", "role", eng_role_name(rt->role), "button",
                                      rt->button == ENG_ANY_BUTTON ? json_null() : json_integer(rt->button),
                                      "kind", kinds[rt->kind]);

                if (o && rt->kind == ENG_ROUTE_CALL) {
                        r |= jf_set(o, "call", json_integer(rt->call));
                        r |= jf_set(o, "call_name", jf_string_or_null(eng_call_name(g, rt->call)));
                }
                if (o && rt->kind == ENG_ROUTE_INPUT)
                        r |= jf_set(o, "input", json_string(rt->input));
                r |= jf_append(a, o);
        }
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

/* The calls, with the button pad button that makes each by default. */
static json_t *calls_json(const struct eng_game *g) {
        json_t *a = json_array();
        int r = 0;

        for (size_t c = 0; a && c < g->n_calls; c++) {
                json_t *button = json_null();

                if (!g->calls[c])
                        continue;
                for (size_t i = 0; i < g->n_routes; i++)
                        if (g->routes[i].kind == ENG_ROUTE_CALL && g->routes[i].call == (int) c &&
                            g->routes[i].role == ENG_ROLE_BUTTONS && g->routes[i].button != ENG_ANY_BUTTON) {
                                button = json_integer(g->routes[i].button);
                                break;
                        }
                r |= jf_append(a, json_pack("{s:I, s:s, s:o}", "call", (json_int_t) c, "name", g->calls[c],
                                            "button", button));
        }
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

static json_t *strings_json(const char *const *s, size_t n) {
        json_t *a = json_array();
        int r = 0;

        for (size_t i = 0; a && i < n; i++)
                r |= jf_append(a, json_string(s[i]));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

static json_t *data_defs_json(const struct eng_game *g) {
        json_t *a = json_array();
        int r = 0;

        for (size_t i = 0; a && i < g->n_data; i++)
                r |= jf_append(a, json_pack("{s:s, s:I, s:s?}", "name", g->data[i].name, "max_len",
                                            (json_int_t) g->data[i].max_len, "doc", g->data[i].doc));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

json_t *match_json_game(const struct eng_game *g) {
        struct eng_config defaults;
        json_t *o, *params;
        int r;

        if (!g)
                return NULL;
        o = json_object();
        if (!o)
                return NULL;
        r = jf_set(o, "name", json_string(g->name));
        r |= jf_set(o, "display_name", json_string(g->display_name));
        r |= jf_set(o, "description", jf_string_or_null(g->description));
        r |= jf_set(o, "min_seats", json_integer(g->min_seats));
        r |= jf_set(o, "max_seats", json_integer(g->max_seats));
        params = json_array();
        for (size_t i = 0; params && i < g->n_params; i++)
                r |= jf_append(params, param_json(&g->params[i]));
        r |= jf_set(o, "params", params);
        eng_config_defaults(g, &defaults);
        r |= jf_set(o, "defaults", match_json_config_to(g, &defaults));
        r |= jf_set(o, "data", data_defs_json(g));
        r |= jf_set(o, "inputs", inputs_json(g));
        r |= jf_set(o, "events", events_json(g));
        r |= jf_set(o, "routes", routes_json(g));
        r |= jf_set(o, "calls", calls_json(g));
        r |= jf_set(o, "terms", strings_json(g->terms, g->n_terms));
        r |= jf_set(o, "view", fields_json(g->view, g->n_view, true));
        if (r < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* ---- Config. */

/* Is path a group of settings: some key continues it after a dot? */
static bool is_group(const struct eng_game *g, const char *path) {
        size_t n = strlen(path);

        for (size_t i = 0; i < g->n_params; i++)
                if (strncmp(g->params[i].name, path, n) == 0 && g->params[i].name[n] == '.')
                        return true;
        return false;
}

/* A list of records: each an object of the record's fields, every one
 * given (a record has no defaults to fall back on); a CALL's "_name"
 * companion, which records_to writes, is allowed and not read. */
static int records_from(const struct eng_game *g, const struct eng_field *p, json_t *v, int64_t *slots,
                        struct eng_error *ret_err) {
        size_t rec = eng_fields_slots(p->fields, p->n_fields), i;
        json_t *item;

        if (!json_is_array(v) || json_array_size(v) > p->max_count)
                return eng_error_set(ret_err, p->name, "must be a list of at most %u objects", p->max_count);
        slots[0] = (int64_t) json_array_size(v);
        json_array_foreach(v, i, item) {
                int64_t *at = slots + 1 + i * rec;
                const char *key;
                json_t *m;

                if (!json_is_object(item)) {
                        char field[ENG_FIELD_MAX];

                        snprintf(field, sizeof field, "%s[%zu]", p->name, i);
                        return eng_error_set(ret_err, field, "must be an object");
                }
                json_object_foreach(item, key, m)
                        if (!jf_is_member(p->fields, p->n_fields, key)) {
                                char field[ENG_FIELD_MAX];

                                snprintf(field, sizeof field, "%s[%zu].%.20s", p->name, i, key);
                                return eng_error_set(ret_err, field, "no such field");
                        }
                for (size_t k = 0; k < p->n_fields; k++) {
                        const struct eng_field *f = &p->fields[k];
                        char field[ENG_FIELD_MAX];

                        snprintf(field, sizeof field, "%s[%zu].%s", p->name, i, f->name);
                        m = json_object_get(item, f->name);
                        if (!m)
                                return eng_error_set(ret_err, field, "is missing");
                        if (jf_value_from(g, f, m, field, true, at, ret_err) < 0)
                                return -EINVAL;
                        at += eng_field_slots(f);
                }
        }
        return 0;
}

/* One setting's JSON value into cfg, checked for type and range; given
 * catches the same setting given twice, nested and dotted. */
static int config_set_one(const struct eng_game *g, const char *path, json_t *v, struct eng_config *cfg,
                          bool *given, struct eng_error *ret_err) {
        const struct eng_field *p;
        int i = eng_param_find(g, path);
        int64_t *slots;

        if (i < 0) {
                if (is_group(g, path))
                        return eng_error_set(ret_err, path, "must be an object of settings");
                return eng_error_set(ret_err, path, "no such setting");
        }
        p = &g->params[i];
        if (given[i])
                return eng_error_set(ret_err, p->name, "is given twice");
        given[i] = true;
        slots = &cfg->v[eng_fields_offset(g->params, g->n_params, p->name)];
        if (p->type == ENG_T_RECORDS)
                return records_from(g, p, v, slots, ret_err);
        /* null is no setting's default, but it is a seat's "no seat" */
        if (json_is_null(v) && !p->max_count && p->type != ENG_T_SEAT)
                return eng_error_set(ret_err, p->name, "must not be null");
        return jf_value_from(g, p, v, p->name, true, slots, ret_err);
}

/* Walks obj's members with prefix as the dotted path so far: a member that
 * names a group is descended into, anything else must be a setting.  The
 * depth is bounded by the dots of the game's keys. */
static int config_walk(const struct eng_game *g, const char *prefix, json_t *obj, struct eng_config *cfg,
                       bool *given, struct eng_error *ret_err) {
        const char *key;
        json_t *v;

        json_object_foreach(obj, key, v) {
                char path[CONFIG_PATH_MAX];
                int n, r;

                n = prefix ? snprintf(path, sizeof path, "%s.%s", prefix, key) : snprintf(path, sizeof path, "%s", key);
                if (n < 0 || (size_t) n >= sizeof path)
                        return eng_error_set(ret_err, path, "no such setting");
                if (json_is_object(v) && eng_param_find(g, path) < 0 && is_group(g, path))
                        r = config_walk(g, path, v, cfg, given, ret_err);
                else
                        r = config_set_one(g, path, v, cfg, given, ret_err);
                if (r < 0)
                        return r;
        }
        return 0;
}

int match_json_config_from(const struct eng_game *g, json_t *obj, const struct eng_data *data, unsigned n_seats,
                           struct eng_config *ret, struct eng_error *ret_err) {
        bool given[PARAMS_MAX] = { false };
        int r;

        if (!g || !ret || g->n_params > PARAMS_MAX)
                return -EINVAL;
        eng_config_defaults(g, ret);
        if (obj && !json_is_null(obj)) {
                if (!json_is_object(obj))
                        return eng_error_set(ret_err, "config", "must be an object of settings");
                r = config_walk(g, NULL, obj, ret, given, ret_err);
                if (r < 0)
                        return r;
        }
        return eng_config_validate(g, ret, data, n_seats, ret_err) < 0 ? -EINVAL : 0;
}

/* Sets key's value in root, creating the objects along its dots. */
static int config_put(json_t *root, const char *key, json_t *v) {
        json_t *at = root;
        const char *seg = key, *dot;

        while ((dot = strchr(seg, '.'))) {
                char name[CONFIG_PATH_MAX];
                json_t *next;
                size_t n = (size_t) (dot - seg);

                if (n >= sizeof name) {
                        json_decref(v);
                        return -ENAMETOOLONG;
                }
                memcpy(name, seg, n);
                name[n] = '\0';
                next = json_object_get(at, name);
                if (!next) {
                        next = json_object();
                        if (jf_set(at, name, next) < 0) {
                                json_decref(v);
                                return -ENOMEM;
                        }
                } else if (!json_is_object(next)) {
                        json_decref(v);
                        return -EEXIST;
                }
                at = next;
                seg = dot + 1;
        }
        if (!v || json_object_get(at, seg)) {
                json_decref(v);
                return -EEXIST;
        }
        return jf_set(at, seg, v);
}

static json_t *records_to(const struct eng_game *g, const struct eng_field *p, const int64_t *slots) {
        size_t rec = eng_fields_slots(p->fields, p->n_fields);
        json_t *a = json_array();
        int r = 0;

        if (slots[0] < 0 || slots[0] > p->max_count) {
                json_decref(a);
                return NULL;
        }
        for (int64_t i = 0; a && i < slots[0]; i++) {
                json_t *o = json_object();

                r |= jf_append(a, o);
                if (o && jf_fields_to(g, NULL, p->fields, p->n_fields, slots + 1 + (size_t) i * rec, NULL, NULL, o) < 0)
                        r = -EINVAL;
        }
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

json_t *match_json_config_to(const struct eng_game *g, const struct eng_config *cfg) {
        size_t at = 0;
        json_t *o;

        if (!g || !cfg)
                return NULL;
        o = json_object();
        for (size_t i = 0; o && i < g->n_params; i++) {
                const struct eng_field *p = &g->params[i];
                json_t *v = p->type == ENG_T_RECORDS ? records_to(g, p, &cfg->v[at])
                                                     : jf_value_to(g, NULL, p, &cfg->v[at]);

                if (config_put(o, p->name, v) < 0) {
                        json_decref(o);
                        return NULL;
                }
                at += eng_field_slots(p);
        }
        return o;
}

/* ---- Data files. */

int match_json_data_from(const struct eng_game *g, json_t *obj, struct eng_data *ret, struct eng_error *ret_err) {
        const char *key;
        json_t *v;

        memset(ret, 0, sizeof *ret);
        if (!obj || json_is_null(obj))
                return 0;
        if (!json_is_object(obj))
                return eng_error_set(ret_err, "data", "must be an object of data files, {\"<name>\": \"<the file>\"}");
        json_object_foreach(obj, key, v) {
                char field[ENG_FIELD_MAX];
                size_t i;

                snprintf(field, sizeof field, "data.%.32s", key);
                for (i = 0; i < g->n_data && strcmp(g->data[i].name, key) != 0; i++)
                        ;
                if (i == g->n_data)
                        return eng_error_set(ret_err, field, "%s has no such data file", g->display_name);
                if (!json_is_string(v))
                        return eng_error_set(ret_err, field, "must be the file's text, a string");
                ret->text[i] = json_string_value(v);
                ret->len[i] = json_string_length(v);
        }
        return 0;
}

json_t *match_json_data_to(const struct eng_game *g, const struct eng_data *data) {
        json_t *o = json_object();
        int r = 0;

        for (size_t i = 0; o && data && i < g->n_data; i++)
                if (data->text[i])
                        r |= jf_set(o, g->data[i].name, json_stringn(data->text[i], data->len[i]));
        if (r < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}
