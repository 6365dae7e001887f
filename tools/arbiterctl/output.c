/* tools/arbiterctl/output.c — see output.h. */
#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/arbiterctl/output.h"

#define COLUMN_GAP "  "
/* A dotted key in a fields block ("pads.clock.offset_us"). */
#define FIELD_KEY_MAX 128

void out_append(char *buf, size_t size, const char *fmt, ...) {
        size_t len = strlen(buf);
        va_list ap;

        if (len + 1 >= size)
                return;
        va_start(ap, fmt);
        vsnprintf(buf + len, size - len, fmt, ap);
        va_end(ap);
}

const json_t *out_path(const json_t *obj, const char *path) {
        char key[FIELD_KEY_MAX];
        const char *dot;

        while (obj && (dot = strchr(path, '.'))) {
                size_t n = (size_t) (dot - path);
                if (n >= sizeof key)
                        return NULL;
                memcpy(key, path, n);
                key[n] = '\0';
                obj = json_object_get(obj, key);
                path = dot + 1;
        }
        return obj ? json_object_get(obj, path) : NULL;
}

static void format_real(double d, char *buf, size_t size) {
        snprintf(buf, size, "%.*f", OUT_DECIMALS, d);
        if (strchr(buf, '.')) {
                size_t len = strlen(buf);
                while (len > 0 && buf[len - 1] == '0')
                        buf[--len] = '\0';
                if (len > 0 && buf[len - 1] == '.')
                        buf[--len] = '\0';
        }
        if (strcmp(buf, "-0") == 0)
                snprintf(buf, size, "0");
}

static bool is_plain(const json_t *v) {
        return !json_is_object(v) && !json_is_array(v);
}

void out_value(const json_t *v, char *buf, size_t size) {
        size_t i;
        const json_t *e;
        bool plain = true;

        buf[0] = '\0';
        if (!v) {
                snprintf(buf, size, "-");
                return;
        }
        switch (json_typeof(v)) {
        case JSON_STRING:
                snprintf(buf, size, "%s", json_string_value(v));
                break;
        case JSON_INTEGER:
                snprintf(buf, size, "%lld", (long long) json_integer_value(v));
                break;
        case JSON_REAL:
                format_real(json_real_value(v), buf, size);
                break;
        case JSON_TRUE:
                snprintf(buf, size, "yes");
                break;
        case JSON_FALSE:
                snprintf(buf, size, "no");
                break;
        case JSON_ARRAY:
                json_array_foreach(v, i, e) plain = plain && is_plain(e);
                if (plain) {
                        if (json_array_size(v) == 0)
                                snprintf(buf, size, "-");
                        json_array_foreach(v, i, e) {
                                char one[OUT_CELL_MAX];
                                out_value(e, one, sizeof one);
                                out_append(buf, size, "%s%s", i ? ", " : "", one);
                        }
                        break;
                }
                /* a list of objects: as JSON */
                __attribute__((fallthrough));
        case JSON_OBJECT: {
                char *text = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(DBL_DIG));
                snprintf(buf, size, "%s", text ? text : "?");
                free(text);
                break;
        }
        case JSON_NULL:
        default:
                snprintf(buf, size, "-");
                break;
        }
        for (char *p = buf; *p; p++)
                if (*p == '\n' || *p == '\r' || *p == '\t')
                        *p = ' ';
        if (strlen(buf) + 1 >= size && size > 4)
                memcpy(buf + size - 4, "...", 4);
}

/* Characters, not bytes: UTF-8 continuation bytes do not count. */
static size_t width(const char *s) {
        size_t w = 0;

        for (; *s; s++)
                w += ((unsigned char) *s & 0xC0) != 0x80;
        return w;
}

static void pad(size_t n) {
        for (size_t i = 0; i < n; i++)
                putchar(' ');
}

int out_table(const struct column *cols, size_t n_cols, const json_t *rows) {
        size_t n_rows = json_array_size(rows), *w, r, k;
        char **cells;

        w = calloc(n_cols, sizeof *w);
        cells = calloc((n_rows + 1) * n_cols, sizeof *cells);
        if (!w || !cells) {
                free(w);
                free(cells);
                return -ENOMEM;
        }
        for (k = 0; k < n_cols; k++) {
                cells[k] = strdup(cols[k].header);
                if (!cells[k])
                        goto oom;
        }
        for (r = 0; r < n_rows; r++) {
                const json_t *row = json_array_get(rows, r);
                for (k = 0; k < n_cols; k++) {
                        char buf[OUT_CELL_MAX];
                        if (cols[k].cell)
                                cols[k].cell(row, buf, sizeof buf);
                        else
                                out_value(out_path(row, cols[k].path), buf, sizeof buf);
                        cells[(r + 1) * n_cols + k] = strdup(buf);
                        if (!cells[(r + 1) * n_cols + k])
                                goto oom;
                }
        }
        for (r = 0; r <= n_rows; r++)
                for (k = 0; k < n_cols; k++) {
                        size_t cw = width(cells[r * n_cols + k]);
                        if (cw > w[k])
                                w[k] = cw;
                }
        for (r = 0; r <= n_rows; r++) {
                /* blanks are held back until something follows them, so
                 * that no line ends in blanks (an empty last cell) */
                size_t held = 0;
                for (k = 0; k < n_cols; k++) {
                        const char *cell = cells[r * n_cols + k];
                        size_t fill = w[k] - width(cell);
                        bool right = cols[k].right && r > 0;
                        if (k > 0)
                                held += strlen(COLUMN_GAP);
                        if (right)
                                held += fill;
                        if (*cell) {
                                pad(held);
                                held = 0;
                                fputs(cell, stdout);
                        }
                        if (!right)
                                held += fill;
                }
                putchar('\n');
        }
        for (k = 0; k < (n_rows + 1) * n_cols; k++)
                free(cells[k]);
        free(cells);
        free(w);
        return 0;
oom:
        for (k = 0; k < (n_rows + 1) * n_cols; k++)
                free(cells[k]);
        free(cells);
        free(w);
        return -ENOMEM;
}

static bool skipped(const char *key, const char *const *skip) {
        for (; skip && *skip; skip++)
                if (strcmp(*skip, key) == 0)
                        return true;
        return false;
}

struct field {
        char key[FIELD_KEY_MAX];
        char value[OUT_CELL_MAX];
};

static int collect(const json_t *obj, const char *prefix, const char *const *skip, struct field **fields,
                   size_t *n) {
        const char *key;
        json_t *v;

        json_object_foreach((json_t *) obj, key, v) {
                char full[FIELD_KEY_MAX];
                snprintf(full, sizeof full, "%s%s%s", prefix, *prefix ? "." : "", key);
                if (!*prefix && skipped(key, skip))
                        continue;
                if (json_is_object(v) && json_object_size(v) > 0) {
                        int r = collect(v, full, skip, fields, n);
                        if (r < 0)
                                return r;
                        continue;
                }
                struct field *f = realloc(*fields, (*n + 1) * sizeof **fields);
                if (!f)
                        return -ENOMEM;
                *fields = f;
                snprintf(f[*n].key, sizeof f[*n].key, "%s", full);
                out_value(v, f[*n].value, sizeof f[*n].value);
                (*n)++;
        }
        return 0;
}

int out_fields(const json_t *obj, const char *const *skip) {
        struct field *fields = NULL;
        size_t n = 0, w = 0;
        int r = collect(obj, "", skip, &fields, &n);

        if (r < 0) {
                free(fields);
                return r;
        }
        for (size_t i = 0; i < n; i++)
                if (width(fields[i].key) + 1 > w)
                        w = width(fields[i].key) + 1;
        for (size_t i = 0; i < n; i++) {
                printf("%s:", fields[i].key);
                pad(w - width(fields[i].key));
                printf("%s\n", fields[i].value);
        }
        free(fields);
        return 0;
}

int out_json(const json_t *j) {
        if (json_dumpf(j, stdout, JSON_INDENT(2) | JSON_ENCODE_ANY | JSON_REAL_PRECISION(DBL_DIG)) < 0)
                return -EIO;
        putchar('\n');
        return 0;
}

int out_json_items(const json_t *items) {
        json_t *o = json_pack("{s:O}", "items", (json_t *) items);
        int r;

        if (!o)
                return -ENOMEM;
        r = out_json(o);
        json_decref(o);
        return r;
}

void out_names(const json_t *list, char *buf, size_t size) {
        size_t i;
        const json_t *p;

        buf[0] = '\0';
        json_array_foreach(list, i, p) {
                const char *name = json_string_value(json_object_get(p, "name"));
                if (name)
                        out_append(buf, size, "%s%s", i ? ", " : "", name);
                else
                        out_append(buf, size, "%s#%lld", i ? ", " : "",
                                   (long long) json_integer_value(json_object_get(p, "player")));
        }
        if (!buf[0])
                snprintf(buf, size, "-");
}

void out_result(const json_t *result, char *buf, size_t size) {
        size_t i;
        const json_t *e;

        buf[0] = '\0';
        json_array_foreach(result, i, e) {
                const char *name = json_string_value(json_object_get(e, "name"));
                out_append(buf, size, "%s%lld ", i ? ", " : "", (long long) json_integer_value(json_object_get(e, "rank")));
                if (name)
                        out_append(buf, size, "%s", name);
                else
                        out_append(buf, size, "#%lld", (long long) json_integer_value(json_object_get(e, "player")));
                if (json_is_true(json_object_get(e, "forfeit")))
                        out_append(buf, size, " (forfeit)");
        }
        if (!buf[0])
                snprintf(buf, size, "-");
}
