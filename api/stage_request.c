/* api/stage_request.c — see stage_request.h. */
#include "api/stage_request.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/handlers.h"
void stage_req_free(struct stage_req *c) {
        if (!c)
                return;
        stage_data_free(&c->d);
        free(c);
}

struct stage_req *stage_req_new(struct api_request *req, int64_t id, int64_t match) {
        struct stage_req *c = calloc(1, sizeof *c);

        if (!c)
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
        else
                *c = (struct stage_req) { .req = req, .id = id, .match = match };
        return c;
}

/* Queries or replies the store error and frees c. */
void stage_req_query(struct stage_req *c, const char *sql, int n, const char *const *p, store_result_fn fn) {
        int r = store_query(c->req->deps->store, sql, n, p, fn, c);
        if (r < 0) {
                reply_store_error(c->req, r);
                stage_req_free(c);
        }
}

/* Loads the snapshot of stage number (0: as stage_data_sql's rules) into
 * c->d, then calls next. */
void stage_req_load(struct stage_req *c, int number, store_result_fn next) {
        char id_s[24], num_s[24], match_s[24];

        snprintf(id_s, sizeof id_s, "%" PRId64, c->id);
        snprintf(num_s, sizeof num_s, "%d", number);
        snprintf(match_s, sizeof match_s, "%" PRId64, c->match);
        const char *p[] = { id_s, number ? num_s : NULL, c->match ? match_s : NULL };
        stage_req_query(c, stage_data_sql, 3, p, next);
}

/* Parses the snapshot a store callback got into c->d; replies and frees c
 * (returning false) when there is none or it does not parse. */
bool stage_req_snapshot(struct stage_req *c, const PGresult *res, const char *error, const char *none) {
        char err[256];
        json_t *j;

        stage_data_free(&c->d);
        if (!res) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the stage failed: %s", error);
                stage_req_free(c);
                return false;
        }
        if (PQntuples(res) == 0) {
                api_reply_problem(c->req, c->match ? MHD_HTTP_NOT_FOUND : MHD_HTTP_CONFLICT, "%s", none);
                stage_req_free(c);
                return false;
        }
        j = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        int r = j ? stage_data_parse(j, &c->d, err, sizeof err) : -EINVAL;
        json_decref(j);
        if (r < 0) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the stored stage is inconsistent: %s",
                                  j ? err : "not JSON");
                stage_req_free(c);
                return false;
        }
        return true;
}

