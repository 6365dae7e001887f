/* api/match_events.c — the match runtime's events on the SSE hub: each
 * durable input's events on topic "match/<id>", as match/json.h shows
 * them, with the match id and the input's seq added; requests to the
 * runtime (windows, pad feedback) are not published.  An abort is
 * "match_aborted". */
#include <inttypes.h>
#include <stdio.h>

#include "api/api.h"
#include "api/sse.h"
#include "common/log.h"
#include "match/json.h"
#include "match/match.h"

static void topic_of(const struct match *m, char topic[static MATCH_TOPIC_MAX]) {
        snprintf(topic, MATCH_TOPIC_MAX, "match/%" PRId64, m->id);
}

static void on_published(void *userdata, struct match *m, const struct eng_input *in, const struct eng_out *out) {
        struct sse_hub *hub = userdata;
        char topic[MATCH_TOPIC_MAX];

        topic_of(m, topic);
        for (size_t i = 0; i < out->n; i++) {
                const char *name;
                json_t *j;

                if (out->v[i].kind >= ENG_REQ_WINDOW_OPEN)
                        continue;
                j = match_json_output(m->game, &out->v[i], &name);
                if (!j) {
                        log_warning("match %" PRId64 ": cannot show output %s", m->id, name);
                        continue;
                }
                json_object_set_new(j, "match", json_integer(m->id));
                json_object_set_new(j, "seq", json_integer((json_int_t) in->seq));
                sse_publish(hub, topic, name, j);
        }
}

static void on_aborted(void *userdata, struct match *m) {
        char topic[MATCH_TOPIC_MAX];

        topic_of(m, topic);
        sse_publish(userdata, topic, "match_aborted",
                    json_pack("{s:s, s:I}", "kind", "match_aborted", "match", (json_int_t) m->id));
}

int api_match_events_observe(struct matches *reg, struct sse_hub *hub) {
        const struct match_observer obs = {
                .published = on_published,
                .aborted = on_aborted,
                .userdata = hub,
        };

        return matches_observe(reg, &obs);
}
