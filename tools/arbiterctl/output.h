/* tools/arbiterctl/output.h — what arbiterctl prints on stdout: aligned
 * tables and "key: value" blocks for people, JSON for scripts.
 *
 * Tables.  One header line of upper-case column names, then one line per
 * row; columns are separated by two blanks and padded to their widest cell
 * (counted in characters, not bytes: names may be UTF-8); numbers are
 * right-aligned; the last column is not padded.  An empty list prints the
 * header alone, so a script reading the table still finds its columns.
 *
 * Values.  null and absent are "-", booleans "yes"/"no", real numbers with
 * at most OUT_DECIMALS decimals and no trailing zeros (3, 0.33, 27.64),
 * lists of plain values joined by ", ", anything else compact JSON.  Line
 * breaks and tabs in text become blanks, so one row is one line.
 *
 * JSON.  --json prints the server's reply (a list: every page's items in
 * one {"items": [...]}) indented by two blanks, and nothing else on stdout.
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_OUTPUT_H
#define ARBITER_TOOLS_ARBITERCTL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

/* Points are whole numbers or halves, ratings are read to hundredths; a
 * script that needs every digit has --json. */
#define OUT_DECIMALS 2
/* The longest cell text kept; longer ones are cut with "...". */
#define OUT_CELL_MAX 512

#define N_COLS(cols) (sizeof (cols) / sizeof (cols)[0])

typedef void (*cell_fn)(const json_t *row, char *buf, size_t size);

struct column {
        const char *header;
        const char *path;               /* members of the row, dot-separated ("rating.mu"); NULL: cell */
        cell_fn cell;                   /* computes the text; NULL: the value at path */
        bool right;                     /* right-aligned (numbers) */
};

/* rows: an array of objects. */
int out_table(const struct column *cols, size_t n_cols, const json_t *rows);
/* "key: value" lines of obj's members, nested objects flattened to dotted
 * keys ("database.state"); members named in skip (NULL-ended, may be NULL)
 * are left out. */
int out_fields(const json_t *obj, const char *const *skip);
/* j as indented JSON and a newline. */
int out_json(const json_t *j);
/* {"items": items} as out_json does. */
int out_json_items(const json_t *items);

/* The value at a dot-separated path of members, or NULL. */
const json_t *out_path(const json_t *obj, const char *path);
/* A value as a table cell (the rules above) into buf. */
void out_value(const json_t *v, char *buf, size_t size);
/* The players of a stage match or an event ("Ana, Ben") from its
 * participants (or a result's entries) list: names, else player ids. */
void out_names(const json_t *list, char *buf, size_t size);
/* A result in seat order as ranks ("1 Ana, 2 Ben, 3 Cy (forfeit)"). */
void out_result(const json_t *result, char *buf, size_t size);
/* Appends formatted text to buf (keeps it NUL-terminated, cuts when full). */
void out_append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
