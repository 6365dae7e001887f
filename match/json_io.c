/* match/json_io.c — inputs and outputs as JSON, and the referee's
 * explanation of outputs (json.h). */
#include "match/json.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "match/json_fields.h"

/* One sentence of an explanation. */
#define SENTENCE_MAX            512
/* One value in words. */
#define WORDS_MAX               160

const struct match_reader match_public = { .audience = ENG_VIEW_PUBLIC, .seat = ENG_SEAT_TABLE };
const struct match_reader match_referee = { .audience = ENG_VIEW_REFEREE, .seat = ENG_SEAT_TABLE };
const struct match_reader match_runtime = { .audience = ENG_VIEW_RUNTIME, .seat = ENG_SEAT_TABLE };

const char *match_json_status_name(enum eng_status status) {
        const char *name = eng_status_name(status);

        return strcmp(name, "unknown") == 0 ? NULL : name;
}

/* ---- Inputs. */

static bool seat_ok(int seat) {
        return seat == ENG_SEAT_TABLE || (seat >= 0 && seat < ENG_MAX_SEATS);
}

json_t *match_json_input_to(const struct eng_game *g, const struct eng_input *in) {
        const struct eng_input_def *def = eng_input_def_of(g, in);
        json_t *j;
        int r;

        if (!def || in->seq > (uint64_t) INT64_MAX || !seat_ok(in->seat) ||
            (in->kind != ENG_IN_ACTION && in->action != 0))
                return NULL;
        /* What would not read back to in is not logged as if it did. */
        for (size_t i = 0, at = 0; i < def->n_fields; at += eng_field_slots(&def->fields[i]), i++)
                if (!jf_value_carried(&def->fields[i], &in->arg[at]))
                        return NULL;
        j = json_object();
        if (!j)
                return NULL;
        r = jf_set(j, "seq", json_integer((json_int_t) in->seq));
        r |= jf_set(j, "time_us", json_integer(in->time_us));
        r |= jf_set(j, "seat", jf_seat(in->seat));
        r |= jf_set(j, "kind", json_string(def->name));
        if (r < 0 || jf_fields_to(g, NULL, def->fields, def->n_fields, in->arg, NULL, NULL, j) < 0) {
                json_decref(j);
                return NULL;
        }
        return j;
}

static int get_int(json_t *j, const char *key, int64_t min, int64_t max, int64_t *ret,
                   struct eng_error *ret_err) {
        json_t *v = json_object_get(j, key);

        if (!v)
                return eng_error_set(ret_err, key, "is missing");
        if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
                return eng_error_set(ret_err, key, "must be a whole number %lld..%lld", (long long) min,
                                     (long long) max);
        *ret = json_integer_value(v);
        return 0;
}

/* "seat": 1-based, or null for the table. */
static int get_seat(json_t *v, int *ret, struct eng_error *ret_err) {
        if (json_is_null(v)) {
                *ret = ENG_SEAT_TABLE;
                return 0;
        }
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > ENG_MAX_SEATS)
                return eng_error_set(ret_err, "seat", "must be 1..%d or null (the table)", ENG_MAX_SEATS);
        *ret = (int) json_integer_value(v) - 1;
        return 0;
}

/* Appends ", name" (or the first name) to list, as far as it goes. */
static void list_add(char *list, size_t len, const char *name) {
        size_t at = strlen(list);

        if (at < len)
                snprintf(list + at, len - at, "%s%s", at ? ", " : "", name);
}

/* The kind first, so that an unknown member can be told from a member of
 * another kind.  An unknown kind lists the game's inputs: in a request the
 * ones that may be sent, in the log every one. */
static const struct eng_input_def *kind_of(const struct eng_game *g, json_t *j, bool request, struct eng_input *in,
                                           struct eng_error *ret_err) {
        json_t *v = json_object_get(j, "kind");
        enum eng_input_kind kind;
        unsigned action;

        if (!v) {
                eng_error_set(ret_err, "kind", "is missing");
                return NULL;
        }
        if (eng_input_find(g, json_string_value(v), &kind, &action) < 0) {
                unsigned sent = request ? ENG_FROM_SEAT | ENG_FROM_REFEREE : ~0u;
                char list[ENG_ERROR_MAX] = "";

                for (unsigned k = ENG_IN_START; k < ENG_IN_KINDS_END; k++)
                        if (jf_takes_builtin(g, (enum eng_input_kind) k) && (eng_builtin_inputs[k]->from & sent))
                                list_add(list, sizeof list, eng_builtin_inputs[k]->name);
                for (size_t a = 0; a < g->n_actions; a++)
                        if (g->actions[a].from & sent)
                                list_add(list, sizeof list, g->actions[a].name);
                eng_error_set(ret_err, "kind", "must be an input of %s: %s", g->display_name, list);
                return NULL;
        }
        in->kind = kind;
        in->action = action;
        return eng_input_def_of(g, in);
}

int match_json_input_from(const struct eng_game *g, json_t *j, struct eng_input *ret, struct eng_error *ret_err) {
        const struct eng_input_def *def;
        struct eng_input in;
        const char *key;
        int64_t x;
        json_t *v;

        if (!g || !ret)
                return -EINVAL;
        if (!json_is_object(j))
                return eng_error_set(ret_err, "input", "must be an object");
        memset(&in, 0, sizeof in);
        def = kind_of(g, j, false, &in, ret_err);
        if (!def)
                return -EINVAL;
        json_object_foreach(j, key, v)
                if (strcmp(key, "seq") != 0 && strcmp(key, "time_us") != 0 && strcmp(key, "seat") != 0 &&
                    strcmp(key, "kind") != 0 && !jf_is_member(def->fields, def->n_fields, key))
                        return eng_error_set(ret_err, key, "is not a member of a %s input", def->name);
        if (get_int(j, "seq", 0, INT64_MAX, &x, ret_err) < 0)
                return -EINVAL;
        in.seq = (uint64_t) x;
        if (get_int(j, "time_us", INT64_MIN, INT64_MAX, &in.time_us, ret_err) < 0)
                return -EINVAL;
        v = json_object_get(j, "seat");
        if (!v)
                return eng_error_set(ret_err, "seat", "is missing");
        if (get_seat(v, &in.seat, ret_err) < 0)
                return -EINVAL;
        int64_t *at = in.arg;
        for (size_t i = 0; i < def->n_fields; i++) {
                const struct eng_field *f = &def->fields[i];

                v = json_object_get(j, f->name);
                if (!v)
                        return eng_error_set(ret_err, f->name, "is missing");
                if (jf_value_from(g, f, v, f->name, false, at, ret_err) < 0)
                        return -EINVAL;
                at += eng_field_slots(f);
        }
        *ret = in;
        return 0;
}

/* An optional field left out: its default (an empty list). */
static void field_default(const struct eng_field *f, int64_t *at) {
        if (f->max_count)
                at[0] = 0;
        else
                at[0] = f->type == ENG_T_SEAT && f->def == ENG_ABSENT ? ENG_SEAT_TABLE : f->def;
}

int match_json_input_request(const struct eng_game *g, json_t *body, int seat_fixed, struct eng_input *ret,
                             struct eng_error *ret_err) {
        const struct eng_input_def *def;
        struct eng_input in;
        const char *key;
        json_t *v;

        if (!g || !ret)
                return -EINVAL;
        if (!json_is_object(body))
                return eng_error_set(ret_err, "input", "must be an object {\"kind\": …}");
        memset(&in, 0, sizeof in);
        in.seat = ENG_SEAT_TABLE;
        def = kind_of(g, body, true, &in, ret_err);
        if (!def)
                return -EINVAL;
        if (!(def->from & (ENG_FROM_REFEREE | ENG_FROM_SEAT)))
                return eng_error_set(ret_err, "kind", "%s inputs are made by the runtime, not sent", def->name);
        json_object_foreach(body, key, v)
                if (strcmp(key, "kind") != 0 && strcmp(key, "seat") != 0 &&
                    !jf_is_member(def->fields, def->n_fields, key))
                        return eng_error_set(ret_err, key, "is not a member of a %s input", def->name);
        v = json_object_get(body, "seat");
        if (def->seated) {
                if (!v && seat_fixed < 0)
                        return eng_error_set(ret_err, "seat", "is missing: a %s input acts for a seat", def->name);
                /* null (the table) is no seat to act for */
                if (v && (json_is_null(v) || get_seat(v, &in.seat, NULL) < 0))
                        return eng_error_set(ret_err, "seat", "must be a seat 1..%d: a %s input acts for a seat",
                                             ENG_MAX_SEATS, def->name);
                if (seat_fixed >= 0) {
                        if (v && in.seat != seat_fixed)
                                return eng_error_set(ret_err, "seat", "this token speaks for seat %d only",
                                                     seat_fixed + 1);
                        in.seat = seat_fixed;
                }
        } else if (v && !json_is_null(v)) {
                return eng_error_set(ret_err, "seat", "a %s input acts for the table, not a seat", def->name);
        } else if (seat_fixed >= 0 && (def->from & ENG_FROM_SEAT)) {
                /* A seat's token speaks as its seat, even for an input
                 * that acts for the table: the engine knows who spoke
                 * (Crazy Pilot's drive: only the shouter may). */
                in.seat = seat_fixed;
        }
        int64_t *at = in.arg;
        for (size_t i = 0; i < def->n_fields; i++) {
                const struct eng_field *f = &def->fields[i];

                v = json_object_get(body, f->name);
                if (!v) {
                        if (!f->optional)
                                return eng_error_set(ret_err, f->name, "is missing");
                        field_default(f, at);
                } else if (jf_value_from(g, f, v, f->name, true, at, ret_err) < 0) {
                        return -EINVAL;
                }
                at += eng_field_slots(f);
        }
        *ret = in;
        return 0;
}

/* ---- Outputs. */

/* Whether reader may see what has audience a, of an output of seat: a
 * seat's only when it is that seat (and the output concerns one). */
static bool reader_sees(enum eng_audience a, int seat, const struct match_reader *reader) {
        switch (a) {
        case ENG_VIEW_PUBLIC:
                return true;
        case ENG_VIEW_SEAT:
                return reader->audience == ENG_VIEW_REFEREE || reader->audience == ENG_VIEW_RUNTIME ||
                       (reader->audience == ENG_VIEW_SEAT && seat >= 0 && reader->seat == seat);
        case ENG_VIEW_REFEREE:
                return reader->audience == ENG_VIEW_REFEREE || reader->audience == ENG_VIEW_RUNTIME;
        case ENG_VIEW_RUNTIME:
        default:
                return reader->audience == ENG_VIEW_RUNTIME;
        }
}

bool match_json_hears(const struct eng_output *o, const struct match_reader *reader) {
        return reader_sees(o->def->audience, o->seat, reader);
}

bool match_json_all_public(const struct eng_output *o) {
        if (o->def->audience != ENG_VIEW_PUBLIC)
                return false;
        for (size_t i = 0; i < o->def->n_fields; i++)
                if (o->def->fields[i].audience != ENG_VIEW_PUBLIC)
                        return false;
        return true;
}

struct see_ctx {
        const struct eng_output *o;
        const struct match_reader *reader;
};

static bool sees(const struct eng_field *f, const void *userdata) {
        const struct see_ctx *c = userdata;

        return reader_sees(f->audience, c->o->seat, c->reader);
}

json_t *match_json_output(const struct eng_game *g, const void *state, const struct eng_output *o,
                          const struct match_reader *reader, const char **ret_name) {
        struct see_ctx c = { .o = o, .reader = reader };
        json_t *j;
        int r;

        if (ret_name)
                *ret_name = o && o->def ? o->def->name : "unknown";
        if (!g || !o || !o->def || !match_json_hears(o, reader))
                return NULL;
        j = json_object();
        if (!j)
                return NULL;
        r = jf_set(j, "kind", json_string(o->def->name));
        r |= jf_set(j, "seat", jf_seat(o->seat));
        r |= jf_set(j, "at_us", json_integer(o->at_us));
        if (r < 0 || jf_fields_to(g, state, o->def->fields, o->def->n_fields, o->v, sees, &c, j) < 0) {
                json_decref(j);
                return NULL;
        }
        return j;
}

json_t *match_json_outputs(const struct eng_game *g, const void *state, const struct eng_out *out,
                           const struct match_reader *reader) {
        json_t *a = json_array();
        int r = 0;

        for (size_t i = 0; a && i < out->n; i++)
                if (!eng_output_is_request(&out->v[i]) && match_json_hears(&out->v[i], reader))
                        r |= jf_append(a, match_json_output(g, state, &out->v[i], reader, NULL));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

/* ---- Explanations. */

static void seat_words(int64_t seat, char *buf, size_t len) {
        if (seat >= 0 && seat < ENG_MAX_SEATS)
                snprintf(buf, len, "seat %lld", (long long) seat + 1);
        else
                snprintf(buf, len, "nobody");
}

/* A card in words: its face's flat fields, "object 3, colour 1". */
struct words {
        char *buf;
        size_t len, at;
        char name[WORDS_MAX];           /* a card face's "name", when it has one */
};

static int w_put(struct words *w, const char *key, const char *value) {
        int n = snprintf(w->buf + w->at, w->len - w->at, "%s%s%s%s", w->at ? ", " : "", key ? key : "",
                         key ? " " : "", value);

        if (n > 0)
                w->at = w->at + (size_t) n < w->len ? w->at + (size_t) n : w->len - 1;
        return 0;
}
static int w_skip(void *ctx, const char *key) { (void) ctx, (void) key; return 0; }
static int w_end(void *ctx) { (void) ctx; return 0; }
static int w_int(void *ctx, const char *key, int64_t v) {
        char n[24];

        snprintf(n, sizeof n, "%lld", (long long) v);
        return w_put(ctx, key, n);
}
static int w_bool(void *ctx, const char *key, bool v) { return w_put(ctx, key, v ? "yes" : "no"); }
static int w_str(void *ctx, const char *key, const char *v) {
        struct words *w = ctx;

        if (v && key && strcmp(key, ENG_CARD_NAME) == 0)
                snprintf(w->name, sizeof w->name, "%s", v);
        return v ? w_put(ctx, key, v) : 0;
}

static const struct eng_visitor words_visitor = {
        .object_begin = w_skip, .object_end = w_end, .array_begin = w_skip, .array_end = w_end,
        .integer = w_int, .boolean = w_bool, .string = w_str, .null = w_skip,
};

static void one_words(const struct eng_game *g, const void *state, const struct eng_field *f, int64_t v,
                      char *buf, size_t len) {
        struct words w = { .buf = buf, .len = len };

        buf[0] = '\0';
        if (v == ENG_ABSENT) {
                snprintf(buf, len, "none");
                return;
        }
        switch (f->type) {
        case ENG_T_SEAT:
                seat_words(v, buf, len);
                return;
        case ENG_T_SEATS: {
                size_t at = 0;

                for (int s = 0; s < ENG_MAX_SEATS; s++)
                        if (v & (INT64_C(1) << s)) {
                                int n = snprintf(buf + at, len - at, "%sseat %d", at ? " and " : "", s + 1);

                                if (n > 0 && at + (size_t) n < len)
                                        at += (size_t) n;
                        }
                if (!at)
                        snprintf(buf, len, "no seat");
                return;
        }
        case ENG_T_ENUM:
                if (v >= f->min && v <= f->max && f->choices)
                        snprintf(buf, len, "%s", f->choice_text && f->choice_text[v] ? f->choice_text[v]
                                                                                        : f->choices[v]);
                return;
        case ENG_T_CALL:
                snprintf(buf, len, "%s", eng_call_name(g, v) ? eng_call_name(g, v) : "an unknown call");
                return;
        case ENG_T_BOOL:
                snprintf(buf, len, "%s", v ? "yes" : "no");
                return;
        case ENG_T_HANDLE:
                snprintf(buf, len, "card %08x", (unsigned) v);
                return;
        case ENG_T_CARD:
                if (!state || !g->card_face || g->card_face(state, (uint32_t) v, &words_visitor, &w) < 0 || !w.at)
                        snprintf(buf, len, "card %08x", (unsigned) v);
                else if (w.name[0])
                        snprintf(buf, len, "the %.*s", (int) (len > 8 ? len - 8 : 0), w.name);   /* it names itself */
                else {
                        char face[WORDS_MAX];
                        size_t n = strlen(buf) < sizeof face - 1 ? strlen(buf) : sizeof face - 1;

                        memcpy(face, buf, n);
                        face[n] = '\0';
                        snprintf(buf, len, "the card (%.*s)", (int) (len > 16 ? len - 16 : 0), face);
                }
                return;
        default:
                snprintf(buf, len, "%lld", (long long) v);
                return;
        }
}

static void field_words(const struct eng_game *g, const void *state, const struct eng_field *f, const int64_t *v,
                        char *buf, size_t len) {
        char one[WORDS_MAX];
        size_t at = 0;

        if (f->type == ENG_T_PLACES) {
                buf[0] = '\0';
                for (int64_t p = 1; p <= ENG_MAX_SEATS; p++)
                        for (int s = 0; s < ENG_MAX_SEATS; s++)
                                if (v[s] == p) {
                                        int n = snprintf(buf + at, len - at, "%sseat %d place %lld", at ? ", " : "",
                                                         s + 1, (long long) p);

                                        if (n > 0 && at + (size_t) n < len)
                                                at += (size_t) n;
                                }
                return;
        }
        if (!f->max_count) {
                one_words(g, state, f, v[0], buf, len);
                return;
        }
        buf[0] = '\0';
        for (int64_t i = 0; i < v[0] && i < f->max_count; i++) {
                int n;

                one_words(g, state, f, v[1 + i], one, sizeof one);
                n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", one);
                if (n > 0 && at + (size_t) n < len)
                        at += (size_t) n;
        }
        if (!at)
                snprintf(buf, len, "none");
}

/* The event's text with each {name} put in: a field's value in words, or
 * {seat} the output's seat. */
static json_t *sentence(const struct eng_game *g, const void *state, const struct eng_output *o) {
        const char *t = o->def->text ? o->def->text : o->def->name;
        char out[SENTENCE_MAX], name[ENG_FIELD_MAX], value[WORDS_MAX];
        size_t at = 0;

        while (*t && at + 1 < sizeof out) {
                const char *close;

                if (*t != '{' || !(close = strchr(t, '}')) || (size_t) (close - t - 1) >= sizeof name) {
                        out[at++] = *t++;
                        continue;
                }
                memcpy(name, t + 1, (size_t) (close - t - 1));
                name[close - t - 1] = '\0';
                t = close + 1;
                if (strcmp(name, "seat") == 0 && !eng_fields_find(o->def->fields, o->def->n_fields, "seat")) {
                        if (o->seat >= 0)
                                seat_words(o->seat, value, sizeof value);
                        else
                                snprintf(value, sizeof value, "the table");
                } else {
                        const struct eng_field *f = eng_fields_find(o->def->fields, o->def->n_fields, name);
                        int off = eng_fields_offset(o->def->fields, o->def->n_fields, name);

                        if (!f || off < 0)
                                snprintf(value, sizeof value, "{%s}", name);
                        else
                                field_words(g, state, f, o->v + off, value, sizeof value);
                }
                for (const char *p = value; *p && at + 1 < sizeof out; p++)
                        out[at++] = *p;
        }
        out[at] = '\0';
        out[0] = (char) toupper((unsigned char) out[0]);
        return json_string(out);
}

json_t *match_json_explain(const struct eng_game *g, const void *state, const struct eng_out *out) {
        json_t *a = json_array();
        int r = 0;

        for (size_t i = 0; a && i < out->n; i++)
                if (!eng_output_is_request(&out->v[i]) && match_json_hears(&out->v[i], &match_referee))
                        r |= jf_append(a, sentence(g, state, &out->v[i]));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}
