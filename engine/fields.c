/* engine/fields.c — the one type system of engine.h: slot layouts, value
 * checks, settings by schema, data files. */
#include "engine/engine.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t eng_field_slots(const struct eng_field *f) {
        if (f->type == ENG_T_PLACES)
                return ENG_MAX_SEATS;
        if (f->type == ENG_T_RECORDS)
                return 1 + (size_t) f->max_count * eng_fields_slots(f->fields, f->n_fields);
        return f->max_count ? 1 + (size_t) f->max_count : 1;
}

size_t eng_fields_slots(const struct eng_field *f, size_t n) {
        size_t slots = 0;

        for (size_t i = 0; i < n; i++)
                slots += eng_field_slots(&f[i]);
        return slots;
}

int eng_fields_offset(const struct eng_field *f, size_t n, const char *name) {
        size_t at = 0;

        if (!name)
                return -ENOENT;
        for (size_t i = 0; i < n; i++) {
                if (strcmp(f[i].name, name) == 0)
                        return (int) at;
                at += eng_field_slots(&f[i]);
        }
        return -ENOENT;
}

const struct eng_field *eng_fields_find(const struct eng_field *f, size_t n, const char *name) {
        for (size_t i = 0; name && i < n; i++)
                if (strcmp(f[i].name, name) == 0)
                        return &f[i];
        return NULL;
}

int eng_error_set(struct eng_error *ret_err, const char *field, const char *fmt, ...) {
        va_list ap;
        int n;

        if (!ret_err)
                return -EINVAL;
        snprintf(ret_err->field, sizeof ret_err->field, "%s", field);
        n = snprintf(ret_err->message, sizeof ret_err->message, "%s: ", field);
        if (n < 0 || (size_t) n >= sizeof ret_err->message)
                return -EINVAL;
        va_start(ap, fmt);
        vsnprintf(ret_err->message + n, sizeof ret_err->message - (size_t) n, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* The choices of an ENUM as "a, b, c", for its error message. */
static void choice_list(const struct eng_field *f, char *buf, size_t len) {
        size_t at = 0;

        buf[0] = '\0';
        for (int64_t c = f->min; f->choices && c <= f->max; c++) {
                int n = snprintf(buf + at, len - at, "%s%s", c > f->min ? ", " : "", f->choices[c]);

                if (n < 0 || (size_t) n >= len - at)
                        break;
                at += (size_t) n;
        }
}

/* The one place that words a range error, so that every game's messages
 * read alike. */
int eng_value_check(const struct eng_field *f, const char *field, int64_t value, struct eng_error *ret_err) {
        char list[ENG_ERROR_MAX];

        switch (f->type) {
        case ENG_T_BOOL:
                if (value == 0 || value == 1)
                        return 0;
                eng_error_set(ret_err, field, "must be true or false");
                return -ERANGE;
        case ENG_T_ENUM:
                if (value >= f->min && value <= f->max)
                        return 0;
                choice_list(f, list, sizeof list);
                eng_error_set(ret_err, field, "must be one of %s", list);
                return -ERANGE;
        case ENG_T_SEAT:
                if (value == ENG_SEAT_TABLE || (value >= 0 && value < ENG_MAX_SEATS))
                        return 0;
                eng_error_set(ret_err, field, "must be a seat 1..%d", ENG_MAX_SEATS);
                return -ERANGE;
        case ENG_T_SEATS:
                if (value >= 0 && (value >> ENG_MAX_SEATS) == 0)
                        return 0;
                eng_error_set(ret_err, field, "must list seats 1..%d", ENG_MAX_SEATS);
                return -ERANGE;
        case ENG_T_BITS:
        case ENG_T_HANDLE:
                if (value >= 0 && value <= UINT32_MAX)
                        return 0;
                eng_error_set(ret_err, field, f->type == ENG_T_HANDLE ? "must be a card handle"
                                                                      : "must list bits 0..31");
                return -ERANGE;
        case ENG_T_INT:
        case ENG_T_TIME:
        case ENG_T_SEQ:
        case ENG_T_CALL:
        default:
                if (value >= f->min && value <= f->max)
                        return 0;
                eng_error_set(ret_err, field, "must be %lld..%lld%s%s", (long long) f->min, (long long) f->max,
                              f->unit ? " " : "", f->unit ? f->unit : "");
                return -ERANGE;
        }
}

/* ---- Settings. */

int eng_param_find(const struct eng_game *game, const char *key) {
        if (!game || !key)
                return -ENOENT;
        for (size_t i = 0; i < game->n_params; i++)
                if (strcmp(game->params[i].name, key) == 0)
                        return (int) i;
        return -ENOENT;
}

void eng_config_defaults(const struct eng_game *game, struct eng_config *ret) {
        size_t at = 0;

        memset(ret, 0, sizeof *ret);
        for (size_t i = 0; i < game->n_params; i++) {
                const struct eng_field *p = &game->params[i];

                if (at < ENG_MAX_CONFIG_SLOTS && !p->max_count && p->type != ENG_T_RECORDS)
                        ret->v[at] = p->def;
                at += eng_field_slots(p);
        }
}

int eng_config_set(const struct eng_game *game, struct eng_config *cfg, const char *key, int64_t value,
                   struct eng_error *ret_err) {
        int i = eng_param_find(game, key);
        const struct eng_field *p;

        if (i < 0) {
                eng_error_set(ret_err, key ? key : "(null)", "no such setting");
                return -ENOENT;
        }
        p = &game->params[i];
        if (p->max_count || p->type == ENG_T_RECORDS) {
                eng_error_set(ret_err, p->name, "is a list");
                return -EINVAL;
        }
        if (eng_value_check(p, p->name, value, ret_err) < 0)
                return -ERANGE;
        cfg->v[eng_fields_offset(game->params, game->n_params, key)] = value;
        return 0;
}

int eng_config_set_choice(const struct eng_game *game, struct eng_config *cfg, const char *key,
                          const char *choice, struct eng_error *ret_err) {
        const struct eng_field *p;
        int i = eng_param_find(game, key);

        if (i < 0) {
                eng_error_set(ret_err, key ? key : "(null)", "no such setting");
                return -ENOENT;
        }
        p = &game->params[i];
        if (p->type != ENG_T_ENUM || !p->choices || p->max_count) {
                eng_error_set(ret_err, p->name, "is not a choice");
                return -EINVAL;
        }
        for (int64_t c = p->min; choice && c <= p->max; c++)
                if (strcmp(p->choices[c], choice) == 0)
                        return eng_config_set(game, cfg, key, c, ret_err);
        return eng_value_check(p, p->name, p->max + 1, ret_err);
}

/* Checks the values of fields f[0..n) laid out from v, path the prefix of
 * each field's name in messages ("" at the top, "challenges[2]." in a
 * record). */
static int check_values(const struct eng_field *f, size_t n, const int64_t *v, const char *path,
                        struct eng_error *ret_err) {
        /* Room for a path, an index and a name; eng_error_set cuts it to
         * ENG_FIELD_MAX. */
        char field[2 * ENG_FIELD_MAX];

        for (size_t i = 0; i < n; i++) {
                const struct eng_field *p = &f[i];

                snprintf(field, sizeof field, "%s%s", path, p->name);
                if (p->type == ENG_T_RECORDS) {
                        size_t rec = eng_fields_slots(p->fields, p->n_fields);

                        if (v[0] < 0 || v[0] > p->max_count)
                                return eng_error_set(ret_err, field, "must list at most %u", p->max_count);
                        for (int64_t k = 0; k < v[0]; k++) {
                                char sub[2 * ENG_FIELD_MAX + 24];
                                int r;

                                snprintf(sub, sizeof sub, "%s[%lld].", field, (long long) k);
                                r = check_values(p->fields, p->n_fields, v + 1 + (size_t) k * rec, sub, ret_err);
                                if (r < 0)
                                        return r;
                        }
                } else if (p->max_count) {
                        if (v[0] < 0 || v[0] > p->max_count)
                                return eng_error_set(ret_err, field, "must list at most %u", p->max_count);
                        for (int64_t k = 0; k < v[0]; k++) {
                                char item[2 * ENG_FIELD_MAX + 24];

                                snprintf(item, sizeof item, "%s[%lld]", field, (long long) k);
                                if (eng_value_check(p, item, v[1 + k], ret_err) < 0)
                                        return -EINVAL;
                        }
                } else if (p->type != ENG_T_PLACES && eng_value_check(p, field, v[0], ret_err) < 0) {
                        return -EINVAL;
                }
                v += eng_field_slots(p);
        }
        return 0;
}

int eng_config_validate(const struct eng_game *game, const struct eng_config *cfg, const struct eng_data *data,
                        unsigned n_seats, struct eng_error *ret_err) {
        int r;

        if (!game || !cfg)
                return -EINVAL;
        if (n_seats < game->min_seats || n_seats > game->max_seats)
                return eng_error_set(ret_err, "seats", "must be %u..%u", game->min_seats, game->max_seats);
        if (eng_fields_slots(game->params, game->n_params) > ENG_MAX_CONFIG_SLOTS)
                return eng_error_set(ret_err, "config", "the game's settings do not fit");
        r = check_values(game->params, game->n_params, cfg->v, "", ret_err);
        if (r < 0)
                return -EINVAL;
        for (size_t i = 0; data && i < game->n_data; i++)
                if (data->text[i] && data->len[i] > game->data[i].max_len) {
                        char field[ENG_FIELD_MAX];

                        snprintf(field, sizeof field, "data.%s", game->data[i].name);
                        return eng_error_set(ret_err, field, "is %zu bytes; at most %zu are accepted",
                                             data->len[i], game->data[i].max_len);
                }
        return game->validate(cfg, data, n_seats, ret_err);
}

/* ---- Data files. */

int eng_data_file(const struct eng_game *g, const struct eng_data *data, size_t i, const char **ret_text,
                  size_t *ret_len) {
        if (!g || i >= g->n_data || i >= ENG_MAX_DATA)
                return -EINVAL;
        if (data && data->text[i]) {
                *ret_text = data->text[i];
                *ret_len = data->len[i];
        } else {
                *ret_text = g->data[i].builtin;
                *ret_len = strlen(g->data[i].builtin);
        }
        return 0;
}

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
}

int eng_data_next_line(const char *text, size_t len, size_t *pos, const char **ret_start, size_t *ret_len,
                       unsigned *ret_line_no) {
        while (*pos < len) {
                size_t start = *pos, end = start, stop;

                while (end < len && text[end] != '\n')
                        end++;
                *pos = end < len ? end + 1 : end;
                (*ret_line_no)++;
                stop = start;
                while (stop < end && text[stop] != '#')
                        stop++;
                while (start < stop && is_blank(text[start]))
                        start++;
                while (stop > start && is_blank(text[stop - 1]))
                        stop--;
                if (stop > start) {
                        *ret_start = text + start;
                        *ret_len = stop - start;
                        return 1;
                }
        }
        return 0;
}
