/* api/match_events.c — the match runtime's events on the SSE hub: each
 * durable input's events on topic "match/<id>", as match/json.h shows
 * them, with the match id and the input's seq added; requests to the
 * runtime (windows, pad feedback) are not published.  An abort is
 * "match_aborted".  A match played at a table is also announced on topic
 * "table/<id>": "match_created" when it is made, "match_ended" (with its
 * state, finished or aborted) when it is over; those go to the league's
 * events too (api/league.h), so that every venue's scoreboard follows
 * every venue's tables.
 *
 * Audiences (engine/engine.h).  An event every field of which is public is
 * published once, for everyone.  Any other goes out in renderings: the
 * public one (if the public hears it at all, without the fields it may not
 * see), one for the event's seat in scope "match/<id>/seat/<n>", and the
 * referee's in scope "match/<id>/referee" (api/sse.h, "Scopes"); only the
 * seat and referee streams subscribe in those scopes, behind their
 * tokens. */
#include <inttypes.h>
#include <stdio.h>

#include <string.h>

#include "api/handlers.h"
#include "api/league.h"
#include "api/sse.h"
#include "common/log.h"
#include "match/json.h"
#include "match/match.h"

void api_match_topic(int64_t id, char topic[static MATCH_TOPIC_MAX]) {
        snprintf(topic, MATCH_TOPIC_MAX, "match/%" PRId64, id);
}

void api_match_scope(int64_t id, int seat, char scope[static MATCH_TOPIC_MAX]) {
        if (seat >= 0)
                snprintf(scope, MATCH_TOPIC_MAX, "match/%" PRId64 "/seat/%d", id, seat + 1);
        else
                snprintf(scope, MATCH_TOPIC_MAX, "match/%" PRId64 "/referee", id);
}

/* ---- the table's topic: matches that come and go at it -------------------- */

static void publish_table(const struct api_deps *p, const struct match *m, const char *name, const char *state) {
        char topic[MATCH_TOPIC_MAX];
        json_t *data;

        if (!m->table_id)
                return;
        snprintf(topic, sizeof topic, "table/%" PRId64, m->table_id);
        /* the table's venue is this daemon's: it runs only its own tables' matches */
        data = json_pack("{s:s, s:I, s:I, s:s, s:s?}", "kind", name, "match", (json_int_t) m->id, "table",
                         (json_int_t) m->table_id, "game", m->game->name, "venue", p->venue);
        if (data && state)
                json_object_set_new(data, "state", json_string(state));
        api_publish_shared(p->events, p->league, topic, name, data);
}

static void on_added(void *userdata, struct match *m, bool created) {
        /* A rebuilt match is news to nobody: a display that was following
         * the table before the restart gets a "reset" and reads it again. */
        if (created)
                publish_table(userdata, m, "match_created", NULL);
}

/* Whether out, the outputs of one stored input, made m's result final:
 * the finish of a match that needs no confirmation, or the confirm of one
 * that does (engine/log.h).  Read from the input's own outputs, not from
 * m, which may be inputs ahead of the one being published. */
static bool made_final(const struct match *m, const struct eng_out *out) {
        for (size_t i = 0; i < out->n; i++)
                if ((out->v[i].def == &eng_ev_match_finished && !m->setup.confirm) ||
                    out->v[i].def == &eng_ev_result_confirmed)
                        return true;
        return false;
}

/* ---- the match's topic ------------------------------------------------------ */

/* One rendering, with the match and the input it came from. */
static json_t *event_for(const struct match *m, const struct eng_input *in, const struct eng_output *o,
                         const struct match_reader *reader) {
        json_t *j = match_json_output(m->game, m->state, o, reader, NULL);

        if (j) {
                json_object_set_new(j, "match", json_integer(m->id));
                json_object_set_new(j, "seq", json_integer((json_int_t) in->seq));
        }
        return j;
}

static void on_published(void *userdata, struct match *m, const struct eng_input *in, const struct eng_out *out) {
        const struct api_deps *p = userdata;
        struct sse_hub *hub = p->events;
        char topic[MATCH_TOPIC_MAX], seat_scope[MATCH_TOPIC_MAX], referee_scope[MATCH_TOPIC_MAX];

        api_match_topic(m->id, topic);
        api_match_scope(m->id, ENG_SEAT_TABLE, referee_scope);
        for (size_t i = 0; i < out->n; i++) {
                const struct eng_output *o = &out->v[i];
                struct sse_variant v[2];
                size_t n = 0;
                int r;

                if (eng_output_is_request(o))
                        continue;
                if (match_json_all_public(o)) {
                        r = sse_publish(hub, topic, o->def->name, event_for(m, in, o, &match_public));
                } else {
                        if (o->seat >= 0) {
                                struct match_reader seat = { .audience = ENG_VIEW_SEAT, .seat = o->seat };

                                api_match_scope(m->id, o->seat, seat_scope);
                                v[n++] = (struct sse_variant) { .scope = seat_scope,
                                                                .data = event_for(m, in, o, &seat) };
                        }
                        v[n++] = (struct sse_variant) { .scope = referee_scope,
                                                        .data = event_for(m, in, o, &match_referee) };
                        r = sse_publish_scoped(hub, topic, o->def->name,
                                               match_json_hears(o, &match_public) ? event_for(m, in, o, &match_public)
                                                                                  : NULL,
                                               v, n);
                }
                if (r < 0)
                        log_warning("match %" PRId64 ": cannot publish %s: %s", m->id, o->def->name, strerror(-r));
        }
        if (made_final(m, out))
                publish_table(p, m, "match_ended", "finished");
}


static void on_aborted(void *userdata, struct match *m) {
        const struct api_deps *p = userdata;
        char topic[MATCH_TOPIC_MAX];

        api_match_topic(m->id, topic);
        sse_publish(p->events, topic, "match_aborted",
                    json_pack("{s:s, s:I}", "kind", "match_aborted", "match", (json_int_t) m->id));
        publish_table(p, m, "match_ended", "aborted");
}

int api_match_events_observe(struct matches *reg, const struct api_deps *deps) {
        const struct match_observer obs = {
                .added = on_added,
                .published = on_published,
                .aborted = on_aborted,
                .userdata = (void *) deps,
        };

        return matches_observe(reg, &obs);
}
