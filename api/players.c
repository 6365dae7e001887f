/* api/players.c — /v1/players: the club's players (name, club, optional
 * external id, active).  A player is never deleted: results and ratings
 * refer to it; an organiser sets active false instead.
 *
 * A player is its row (store/players.h) and its all-time ratings, read
 * after it from the rating tables (store_ratings_of_players(),
 * store/ratings.h): two statements, one reply. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/failures.h"
#include "api/handlers.h"
#include "store/players.h"
#include "store/ratings.h"
#include "tournament/openskill.h"

/* One of a player's ratings: OpenSkill's (mu, sigma, the ordinal a
 * scoreboard sorts by, games) and Glicko-2's. */
static json_t *rating_json(const struct store_player_rating *r) {
        const struct store_rating_row *x = &r->rating;
        struct tour_os_rating os = { .mu = x->mu, .sigma = x->sigma };

        return json_pack("{s:s, s:f, s:f, s:f, s:i, s:{s:f, s:f, s:f, s:i}}",
                         "game", r->game, "mu", x->mu, "sigma", x->sigma, "ordinal", tour_os_ordinal(&os),
                         "games", (int) x->games,
                         "glicko2", "rating", x->g2_rating, "rd", x->g2_rd, "volatility", x->g2_volatility,
                         "games", (int) x->g2_games);
}

/* The player resource, without its "ratings" (added once they are read). */
static json_t *player_json(const struct store_player_row *p) {
        return json_pack("{s:I, s:s, s:o, s:o, s:b, s:s}",
                         "id", (json_int_t) p->id,
                         "name", p->name,
                         "club", p->club ? json_string(p->club) : json_null(),
                         "external_id", p->external_id ? json_string(p->external_id) : json_null(),
                         "active", p->active,
                         "created_at", p->created_at);
}

/* A reply of players waiting for their ratings. */
struct reply {
        struct api_request *req;
        unsigned status;
        bool page;                      /* a list: {items, next}; else the one player */
        const char *what;               /* for a failure */
        json_t *items;                  /* the players read, in id order */
        int64_t last_id;
};

static void reply_free(struct reply *c) {
        json_decref(c->items);
        free(c);
}

static void on_ratings(void *userdata, const struct store_player_rating *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct reply *c = userdata;
        json_t *player;
        size_t i, k = 0;

        if (failure) {
                api_reply_store_failed(c->req, failure, c->what, error);
                reply_free(c);
                return;
        }
        /* Both in player id order: one walk. */
        json_array_foreach(c->items, i, player) {
                json_int_t id = json_integer_value(json_object_get(player, "id"));
                json_t *ratings = json_array();

                while (k < n && rows[k].rating.player < id)
                        k++;
                for (; k < n && rows[k].rating.player == id; k++)
                        json_array_append_new(ratings, rating_json(&rows[k]));
                json_object_set_new(player, "ratings", ratings);
        }
        if (c->page)
                api_reply_json(c->req, c->status, api_page(json_incref(c->items), c->last_id));
        else
                api_reply_json(c->req, c->status, json_incref(json_array_get(c->items, 0)));
        reply_free(c);
}

static void on_players(void *userdata, const struct store_player_row *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct reply *c = userdata;
        struct api_request *req = c->req;
        int64_t *ids;
        int r;

        if (failure) {
                api_reply_store_failed(req, failure, c->what, error);
                reply_free(c);
                return;
        }
        if (n == 0 && !c->page) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no player %s", route_param(&req->match, "id"));
                reply_free(c);
                return;
        }
        if (n == 0) {                   /* an empty page */
                api_reply_json(req, c->status, api_page(json_array(), 0));
                reply_free(c);
                return;
        }
        ids = calloc(n, sizeof *ids);
        c->items = json_array();
        if (!ids || !c->items) {
                free(ids);
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                reply_free(c);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                ids[i] = rows[i].id;
                json_array_append_new(c->items, player_json(&rows[i]));
        }
        c->last_id = n > 0 ? rows[n - 1].id : 0;
        /* the player's ratings from where the player came: a write's
         * answer from the primary, a display's read perhaps the replica */
        r = store_ratings_of_players(req->read_store ? req->read_store : req->deps->store, ids, n, on_ratings, c);
        free(ids);
        if (r < 0) {
                reply_store_error(req, r);
                reply_free(c);
        }
}

/* A reply for req: status, a page or one player; NULL after replying 500. */
static struct reply *reply_new(struct api_request *req, unsigned status, bool page, const char *what) {
        struct reply *c = calloc(1, sizeof *c);

        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return NULL;
        }
        *c = (struct reply) { .req = req, .status = status, .page = page, .what = what };
        return c;
}

/* What a repository call returned: on failure the reply is freed and the
 * request answered. */
static void queued(struct api_request *req, struct reply *c, int r) {
        if (r < 0) {
                reply_free(c);
                reply_store_error(req, r);
        }
}

void handle_players_create(struct api_request *req) {
        struct body_player b;
        struct reply *c;
        json_t *problem;

        if (body_player(req->body, false, &b, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if (!(c = reply_new(req, MHD_HTTP_CREATED, false, "the player query")))
                return;
        queued(req, c, store_players_insert(req->deps->store, b.name, b.club, b.external_id, on_players, c));
}

/* PATCH: name, club, external_id, active; members absent stay as they are. */
void handle_player_update(struct api_request *req) {
        struct body_player b;
        struct reply *c;
        json_t *problem;
        long long id;

        if (!id_param(req, "id", &id))
                return;
        if (body_player(req->body, true, &b, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        const struct store_player_change change = {
                .name = b.name,
                .club_given = b.club_given, .club = b.club,
                .external_id_given = b.external_id_given, .external_id = b.external_id,
                .active = b.active,
        };
        if (!(c = reply_new(req, MHD_HTTP_OK, false, "the player query")))
                return;
        queued(req, c, store_players_update(req->deps->store, id, &change, on_players, c));
}

void handle_player_get(struct api_request *req) {
        struct store *store = api_read_store(req);
        struct reply *c;
        long long id;

        if (!id_param(req, "id", &id) || !(c = reply_new(req, MHD_HTTP_OK, false, "the player query")))
                return;
        queued(req, c, store_players_get(store, id, on_players, c));
}

void handle_players_list(struct api_request *req) {
        struct store *store = api_read_store(req);
        long long limit, after;
        struct reply *c;

        if (!page_params(req, &limit, &after) || !(c = reply_new(req, MHD_HTTP_OK, true, "the list query")))
                return;
        queued(req, c, store_players_list(store, after, limit, on_players, c));
}
