/* engine/walk.c — writers that keep a walk's first error (walk.h). */
#include "engine/walk.h"

#include <stdio.h>

/* Eight hex digits and a NUL. */
#define HANDLE_TEXT             9

void eng_walk_int(struct eng_walk *w, const char *key, int64_t value) {
        if (w->r >= 0)
                w->r = w->v->integer(w->ctx, key, value);
}

void eng_walk_bool(struct eng_walk *w, const char *key, bool value) {
        if (w->r >= 0)
                w->r = w->v->boolean(w->ctx, key, value);
}

void eng_walk_str(struct eng_walk *w, const char *key, const char *value) {
        if (w->r >= 0)
                w->r = w->v->string(w->ctx, key, value);
}

void eng_walk_null(struct eng_walk *w, const char *key) {
        if (w->r >= 0)
                w->r = w->v->null(w->ctx, key);
}

void eng_walk_obj(struct eng_walk *w, const char *key) {
        if (w->r >= 0)
                w->r = w->v->object_begin(w->ctx, key);
}

void eng_walk_arr(struct eng_walk *w, const char *key) {
        if (w->r >= 0)
                w->r = w->v->array_begin(w->ctx, key);
}

void eng_walk_end_obj(struct eng_walk *w) {
        if (w->r >= 0)
                w->r = w->v->object_end(w->ctx);
}

void eng_walk_end_arr(struct eng_walk *w) {
        if (w->r >= 0)
                w->r = w->v->array_end(w->ctx);
}

void eng_walk_time(struct eng_walk *w, const char *key, int64_t value) {
        if (value == ENG_NEVER)
                eng_walk_null(w, key);
        else
                eng_walk_int(w, key, value);
}

void eng_walk_seats(struct eng_walk *w, const char *key, uint32_t seats) {
        eng_walk_arr(w, key);
        for (int s = 0; s < ENG_MAX_SEATS; s++)
                if (seats & (UINT32_C(1) << s))
                        eng_walk_int(w, NULL, s);
        eng_walk_end_arr(w);
}

void eng_walk_handle(struct eng_walk *w, const char *key, uint32_t handle) {
        char text[HANDLE_TEXT];

        snprintf(text, sizeof text, "%08x", (unsigned) handle);
        eng_walk_str(w, key, text);
}
