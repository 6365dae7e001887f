/* tests/integration/crash_pilot_view.c — see crash_pilot_view.h. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

json_int_t cp_window_id(json_t *view) {
        return json_integer_value(json_object_get(json_object_get(view, "window"), "id"));
}

int cp_pick_call(json_t *view, bool want_wrong) {
        json_t *face = json_object_get(view, "face_up"), *rows = json_object_get(view, "rows"), *row, *card;
        json_int_t obj = json_integer_value(json_object_get(face, "object")),
                   col = json_integer_value(json_object_get(face, "colour"));
        size_t r, i;
        int legal = 0, wrong = 0;

        json_array_foreach(rows, r, row) {
                bool fits = true;
                json_array_foreach(row, i, card)
                        if (json_integer_value(json_object_get(card, "object")) == obj ||
                            json_integer_value(json_object_get(card, "colour")) == col)
                                fits = false;
                if (fits && !legal)
                        legal = (int) r + 1;
                if (!fits && !wrong)
                        wrong = (int) r + 1;
        }
        if (want_wrong)
                return wrong ? wrong : CP_DOESNT_FIT_CALL;
        return legal ? legal : CP_DOESNT_FIT_CALL;
}

json_t *cp_wait_window(json_t *(*fetch)(json_int_t id), json_int_t id, json_int_t after) {
        int64_t deadline = mono_ms() + HARNESS_WAIT_MS;

        for (;;) {
                json_t *v = fetch(id), *w = json_object_get(v, "window");
                if (json_is_object(w) && json_integer_value(json_object_get(w, "id")) != after &&
                    json_is_object(json_object_get(v, "face_up")))
                        return v;
                json_decref(v);
                if (mono_ms() > deadline)
                        fail_msg("no new window opened in match %lld", (long long) id);
                usleep(20000);
        }
}
