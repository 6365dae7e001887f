/* match/json_fields.c — one field's values as JSON and back (json_fields.h). */
#include "match/json_fields.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a field name with an index or a "_name" suffix. */
#define MEMBER_MAX              (ENG_FIELD_MAX + 16)
/* "%08x" and its NUL. */
#define HANDLE_CHARS            9

int jf_set(json_t *obj, const char *key, json_t *v) {
        return v && json_object_set_new(obj, key, v) == 0 ? 0 : -ENOMEM;
}

int jf_append(json_t *arr, json_t *v) {
        return v && json_array_append_new(arr, v) == 0 ? 0 : -ENOMEM;
}

json_t *jf_string_or_null(const char *s) {
        return s ? json_string(s) : json_null();
}

json_t *jf_seat(int64_t seat) {
        return seat >= 0 && seat < ENG_MAX_SEATS ? json_integer((json_int_t) seat + 1) : json_null();
}

static json_t *bits_json(int64_t mask, int base, int bits) {
        json_t *a = json_array();
        int r = 0;

        for (int b = 0; a && b < bits; b++)
                if (mask & (INT64_C(1) << b))
                        r |= jf_append(a, json_integer(b + base));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

json_t *jf_seats(int64_t mask) {
        return bits_json(mask, 1, ENG_MAX_SEATS);
}

json_t *jf_handle(int64_t handle) {
        char buf[HANDLE_CHARS];

        snprintf(buf, sizeof buf, "%08x", (unsigned) (uint32_t) handle);
        return json_string(buf);
}

/* ---- A card's face: the game's walk of it into an object.  Faces are
 * flat: integers, booleans, strings and nulls, and nested objects or lists
 * of those (a Crazy Pilot scene). */

#define FACE_MAX_DEPTH          8

struct face {
        json_t *stack[FACE_MAX_DEPTH];
        size_t depth;
};

static int face_add(struct face *f, const char *key, json_t *v) {
        json_t *top;

        if (!v)
                return -ENOMEM;
        top = f->stack[f->depth - 1];
        if (json_is_object(top) ? key == NULL : key != NULL) {
                json_decref(v);
                return -EINVAL;
        }
        if (key)
                return json_object_set_new(top, key, v) == 0 ? 0 : -ENOMEM;
        return json_array_append_new(top, v) == 0 ? 0 : -ENOMEM;
}

static int face_open(struct face *f, const char *key, json_t *c) {
        int r;

        if (f->depth >= FACE_MAX_DEPTH) {
                json_decref(c);
                return -E2BIG;
        }
        r = face_add(f, key, json_incref(c));
        if (r < 0) {
                json_decref(c);
                return r;
        }
        f->stack[f->depth++] = c;
        json_decref(c);
        return 0;
}

static int face_obj(void *ctx, const char *key) { return face_open(ctx, key, json_object()); }
static int face_arr(void *ctx, const char *key) { return face_open(ctx, key, json_array()); }
/* The root is closed by the caller; a close must match its open. */
static int face_close(struct face *f, bool object) {
        if (f->depth < 2 || json_is_object(f->stack[f->depth - 1]) != object)
                return -EINVAL;
        f->depth--;
        return 0;
}
static int face_obj_end(void *ctx) { return face_close(ctx, true); }
static int face_arr_end(void *ctx) { return face_close(ctx, false); }
static int face_int(void *ctx, const char *key, int64_t v) { return face_add(ctx, key, json_integer(v)); }
static int face_bool(void *ctx, const char *key, bool v) { return face_add(ctx, key, json_boolean(v)); }
static int face_str(void *ctx, const char *key, const char *v) { return face_add(ctx, key, jf_string_or_null(v)); }
static int face_null(void *ctx, const char *key) { return face_add(ctx, key, json_null()); }

static const struct eng_visitor face_visitor = {
        .object_begin = face_obj, .object_end = face_obj_end, .array_begin = face_arr, .array_end = face_arr_end,
        .integer = face_int, .boolean = face_bool, .string = face_str, .null = face_null,
};

static json_t *card_json(const struct eng_game *g, const void *state, int64_t handle) {
        json_t *o = json_object();
        struct face f = { .stack = { o }, .depth = 1 };

        if (!o || jf_set(o, "handle", jf_handle(handle)) < 0) {
                json_decref(o);
                return NULL;
        }
        if (state && g->card_face && (g->card_face(state, (uint32_t) handle, &face_visitor, &f) < 0 ||
                                       f.depth != 1)) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* ---- Values. */

/* PLACES: [{seat, place}] best first, equal places in seat order. */
static json_t *places_json(const int64_t *place) {
        json_t *a = json_array();
        int r = 0;

        for (int64_t p = 1; a && p <= ENG_MAX_SEATS; p++)
                for (int s = 0; s < ENG_MAX_SEATS; s++) {
                        json_t *e;

                        if (place[s] != p)
                                continue;
                        e = json_pack("{s:o, s:I}", "seat", jf_seat(s), "place", (json_int_t) p);
                        r |= jf_append(a, e);
                }
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

static json_t *one_to(const struct eng_game *g, const void *state, const struct eng_field *f, int64_t v) {
        if (v == ENG_ABSENT)
                return json_null();
        switch (f->type) {
        case ENG_T_BOOL:
                return json_boolean(v != 0);
        case ENG_T_ENUM:
                if (f->choices && v >= f->min && v <= f->max && f->choices[v])
                        return json_string(f->choices[v]);
                return json_integer(v);
        case ENG_T_SEAT:
                return jf_seat(v);
        case ENG_T_SEATS:
                return jf_seats(v);
        case ENG_T_BITS:
                return bits_json(v, 0, 32);
        case ENG_T_HANDLE:
                return jf_handle(v);
        case ENG_T_CARD:
                return card_json(g, state, v);
        case ENG_T_INT:
        case ENG_T_TIME:
        case ENG_T_SEQ:
        case ENG_T_CALL:
        default:
                return json_integer(v);
        }
}

json_t *jf_value_to(const struct eng_game *g, const void *state, const struct eng_field *f, const int64_t *v) {
        json_t *a;
        int r = 0;

        if (f->type == ENG_T_PLACES)
                return places_json(v);
        if (!f->max_count)
                return one_to(g, state, f, v[0]);
        if (v[0] < 0 || v[0] > f->max_count)
                return NULL;
        a = json_array();
        for (int64_t i = 0; a && i < v[0]; i++)
                r |= jf_append(a, one_to(g, state, f, v[1 + i]));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

int jf_fields_to(const struct eng_game *g, const void *state, const struct eng_field *f, size_t n,
                 const int64_t *v, bool (*keep)(const struct eng_field *f, const void *ctx), const void *ctx,
                 json_t *obj) {
        char name[MEMBER_MAX];
        int r = 0;

        for (size_t i = 0; i < n; i++) {
                if (!keep || keep(&f[i], ctx)) {
                        json_t *j = jf_value_to(g, state, &f[i], v);

                        if (!j)
                                return -EINVAL;
                        r |= jf_set(obj, f[i].name, j);
                        if (f[i].type == ENG_T_CALL && !f[i].max_count && v[0] != ENG_ABSENT) {
                                snprintf(name, sizeof name, "%s_name", f[i].name);
                                r |= jf_set(obj, name, jf_string_or_null(eng_call_name(g, v[0])));
                        }
                }
                v += eng_field_slots(&f[i]);
        }
        return r;
}

bool jf_is_member(const struct eng_field *f, size_t n, const char *key) {
        size_t len = strlen(key);

        for (size_t i = 0; i < n; i++) {
                size_t fl = strlen(f[i].name);

                if (strcmp(f[i].name, key) == 0)
                        return true;
                if (f[i].type == ENG_T_CALL && !f[i].max_count && len == fl + 5 &&
                    strncmp(key, f[i].name, fl) == 0 && strcmp(key + fl, "_name") == 0)
                        return true;
        }
        return false;
}

/* ---- From JSON. */

/* SEATS and BITS: a list of distinct numbers base .. base + bits − 1; a
 * wrong element is named by its index ("seats[1]"). */
static int mask_from(json_t *j, const char *field, int base, int bits, const char *what, int64_t *ret,
                     struct eng_error *ret_err) {
        int64_t mask = 0;
        json_t *v;
        size_t i;

        if (!json_is_array(j))
                return eng_error_set(ret_err, field, "must be a list of %ss %d..%d", what, base, bits - 1 + base);
        json_array_foreach(j, i, v) {
                json_int_t x = json_integer_value(v);
                char item[MEMBER_MAX];

                snprintf(item, sizeof item, "%s[%zu]", field, i);
                if (!json_is_integer(v) || x < base || x > bits - 1 + base)
                        return eng_error_set(ret_err, item, "must be a %s %d..%d", what, base, bits - 1 + base);
                if (mask & (INT64_C(1) << (x - base)))
                        return eng_error_set(ret_err, item, "%s %lld is listed twice", what, (long long) x);
                mask |= INT64_C(1) << (x - base);
        }
        *ret = mask;
        return 0;
}

/* One value (item: an element of a list, never null).  null is a SEAT's
 * "no seat" (ENG_SEAT_TABLE, a value of the type); for any other optional
 * field it is the field left out: its default, which is ENG_ABSENT only
 * when the field says so (a value outside its range would otherwise reach
 * the engine). */
static int one_from(const struct eng_game *g, const struct eng_field *f, json_t *j, const char *field, bool item,
                    bool request, int64_t *ret, struct eng_error *ret_err) {
        int64_t v;

        if (json_is_null(j)) {
                if (!item && f->type == ENG_T_SEAT) {
                        *ret = ENG_SEAT_TABLE;
                        return 0;
                }
                if (!item && f->optional && f->type != ENG_T_SEATS && f->type != ENG_T_BITS) {
                        *ret = f->def;
                        return 0;
                }
                return eng_error_set(ret_err, field, "must not be null");
        }
        switch (f->type) {
        case ENG_T_BOOL:
                if (!json_is_boolean(j))
                        return eng_error_set(ret_err, field, "must be true or false");
                *ret = json_is_true(j);
                return 0;
        case ENG_T_ENUM:
                for (int64_t c = f->min; json_is_string(j) && f->choices && c <= f->max; c++)
                        if (f->choices[c] && strcmp(f->choices[c], json_string_value(j)) == 0) {
                                *ret = c;
                                return 0;
                        }
                eng_value_check(f, field, f->max + 1, ret_err);
                return -EINVAL;
        case ENG_T_SEAT:
                if (!json_is_integer(j) || json_integer_value(j) < 1 || json_integer_value(j) > ENG_MAX_SEATS)
                        return eng_error_set(ret_err, field, "must be a seat 1..%d%s", ENG_MAX_SEATS,
                                             item ? "" : " or null");
                *ret = json_integer_value(j) - 1;
                return 0;
        case ENG_T_SEATS:
                return mask_from(j, field, 1, ENG_MAX_SEATS, "seat", ret, ret_err);
        case ENG_T_BITS:
                return mask_from(j, field, 0, 32, "bit", ret, ret_err);
        case ENG_T_HANDLE: {
                const char *s = json_string_value(j);
                char *end;
                unsigned long h;

                if (!s || strlen(s) != HANDLE_CHARS - 1 || strspn(s, "0123456789abcdef") != HANDLE_CHARS - 1)
                        return eng_error_set(ret_err, field, "must be a card handle, 8 hex digits as the "
                                             "views show it");
                h = strtoul(s, &end, 16);
                *ret = (int64_t) h;
                return 0;
        }
        case ENG_T_CALL:
                if (json_is_string(j)) {
                        int call;

                        if (eng_call_by_name(g, json_string_value(j), &call) < 0)
                                return eng_error_set(ret_err, field, "\"%.32s\" is no call of %s", json_string_value(j),
                                                     g->display_name);
                        *ret = call;
                        return 0;
                }
                if (!json_is_integer(j) || json_integer_value(j) < f->min || json_integer_value(j) > f->max ||
                    (request && !eng_call_name(g, json_integer_value(j))))
                        return eng_error_set(ret_err, field, "must be a call of %s, by number or name",
                                             g->display_name);
                *ret = json_integer_value(j);
                return 0;
        case ENG_T_CARD:
        case ENG_T_PLACES:
        case ENG_T_RECORDS:
        case ENG_T_OBJECT:
                return eng_error_set(ret_err, field, "cannot be given");
        case ENG_T_INT:
        case ENG_T_TIME:
        case ENG_T_SEQ:
        default:
                if (!json_is_integer(j))
                        return eng_error_set(ret_err, field, "must be a whole number %lld..%lld", (long long) f->min,
                                             (long long) f->max);
                v = json_integer_value(j);
                if (eng_value_check(f, field, v, ret_err) < 0)
                        return -EINVAL;
                *ret = v;
                return 0;
        }
}

int jf_value_from(const struct eng_game *g, const struct eng_field *f, json_t *j, const char *field, bool request,
                  int64_t *ret, struct eng_error *ret_err) {
        json_t *v;
        size_t i;

        if (!f->max_count)
                return one_from(g, f, j, field, false, request, ret, ret_err);
        if (json_is_null(j) && f->optional) {
                ret[0] = 0;
                return 0;
        }
        if (!json_is_array(j) || json_array_size(j) > f->max_count)
                return eng_error_set(ret_err, field, "must be a list of at most %u", f->max_count);
        ret[0] = (int64_t) json_array_size(j);
        json_array_foreach(j, i, v) {
                char item[MEMBER_MAX];

                snprintf(item, sizeof item, "%s[%zu]", field, i);
                if (json_is_null(v))
                        return eng_error_set(ret_err, item, "must not be null");
                if (one_from(g, f, v, item, true, request, &ret[1 + i], ret_err) < 0)
                        return -EINVAL;
        }
        return 0;
}

/* ---- What JSON carries. */

/* Whether one value v of f reads back as itself (item: an element of a
 * list).  The mirror of one_to and one_from. */
static bool one_carried(const struct eng_field *f, int64_t v, bool item) {
        if (v == ENG_ABSENT)
                return !item && f->optional && f->def == ENG_ABSENT && f->type != ENG_T_SEAT &&
                       f->type != ENG_T_SEATS && f->type != ENG_T_BITS;
        switch (f->type) {
        case ENG_T_BOOL:
                return v == 0 || v == 1;
        case ENG_T_ENUM:
                return f->choices && v >= f->min && v <= f->max && f->choices[v];
        case ENG_T_SEAT:
                return (v >= 0 && v < ENG_MAX_SEATS) || (!item && v == ENG_SEAT_TABLE);
        case ENG_T_SEATS:
                return v >= 0 && v < (INT64_C(1) << ENG_MAX_SEATS);
        case ENG_T_BITS:
        case ENG_T_HANDLE:
                return v >= 0 && v <= UINT32_MAX;
        case ENG_T_INT:
        case ENG_T_TIME:
        case ENG_T_SEQ:
        case ENG_T_CALL:
                return v >= f->min && v <= f->max;
        case ENG_T_CARD:
        case ENG_T_PLACES:
        case ENG_T_RECORDS:
        case ENG_T_OBJECT:
        default:
                return false;   /* cannot be given */
        }
}

bool jf_value_carried(const struct eng_field *f, const int64_t *v) {
        if (f->type == ENG_T_PLACES || f->type == ENG_T_RECORDS)
                return false;
        if (!f->max_count)
                return one_carried(f, v[0], false);
        if (v[0] < 0 || v[0] > f->max_count)
                return false;
        for (int64_t i = 0; i < v[0]; i++)
                if (!one_carried(f, v[1 + i], true))
                        return false;
        return true;
}

bool jf_takes_builtin(const struct eng_game *g, enum eng_input_kind k) {
        if ((unsigned) k >= ENG_IN_KINDS_END || !eng_builtin_inputs[k])
                return false;
        switch (k) {
        case ENG_IN_CALL:
        case ENG_IN_TIE:
        case ENG_IN_PRESS:
                return g->builtins & (1u << k);
        default:
                return true;
        }
}
