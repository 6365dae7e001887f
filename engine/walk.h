/* engine/walk.h — writing a view, a face or a seat's statistics as a walk
 * (struct eng_visitor, engine/engine.h) without checking every call.
 *
 * What it owns: struct eng_walk and its writers.  A walk keeps the first
 * error a visitor callback returns; every later call does nothing.  So an
 * engine writes its view straight through and returns w.r once at the end.
 * Pure: libc only.
 *
 *     struct eng_walk w = { .v = v, .ctx = ctx };
 *     eng_walk_obj(&w, "you");
 *     eng_walk_int(&w, "seat", seat);
 *     eng_walk_end_obj(&w);
 *     return w.r;
 */
#ifndef ARBITER_ENGINE_WALK_H
#define ARBITER_ENGINE_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"

struct eng_walk {
        const struct eng_visitor *v;
        void *ctx;
        int r;                          /* 0, or the first callback's error */
};

void eng_walk_int(struct eng_walk *w, const char *key, int64_t value);
void eng_walk_bool(struct eng_walk *w, const char *key, bool value);
void eng_walk_str(struct eng_walk *w, const char *key, const char *value);
void eng_walk_null(struct eng_walk *w, const char *key);
void eng_walk_obj(struct eng_walk *w, const char *key);
void eng_walk_arr(struct eng_walk *w, const char *key);
void eng_walk_end_obj(struct eng_walk *w);
void eng_walk_end_arr(struct eng_walk *w);

/* A time, or null for ENG_NEVER ("not yet", "none"). */
void eng_walk_time(struct eng_walk *w, const char *key, int64_t value);
/* A seat mask as the list of its engine seats, lowest first (the JSON
 * builder makes them 1-based by the member's name, docs/matches.md). */
void eng_walk_seats(struct eng_walk *w, const char *key, uint32_t seats);
/* A card's handle as views show it: eight lower-case hex digits. */
void eng_walk_handle(struct eng_walk *w, const char *key, uint32_t handle);

#endif
