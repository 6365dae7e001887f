/* api/read_store.c — where a read that may lag reads from
 * (api_read_store() in api/handlers.h; docs/operations.md, "A read
 * replica").
 *
 * The routes of displays, leaderboards and exports ask api_read_store()
 * for the store of their reads.  The replica is chosen when one is
 * configured, its verdict is USE (store/replica.h: READY, probed, and at
 * most replica_max_lag behind counting the probe's age) and the request's
 * role is below referee (no token, a seat's, a display's): a referee's
 * console and an organiser's pairing must see the latest write, so theirs
 * read the primary, as every write does.  The choice is made once per
 * request, so that a reply's reads all come from one place, and the reply
 * says which:
 *
 *     Arbiter-Read-From: replica; lag-ms=12
 *     Arbiter-Read-From: primary
 *     Arbiter-Read-From: primary; replica=behind         (skipped: too far behind)
 *     Arbiter-Read-From: primary; replica=unavailable    (skipped: down, not probed, probe failed)
 *
 * lag-ms is the replica's lag at its last probe (at most about a second
 * ago: STORE_REPLICA_PROBE_MS).  A request of a referee or an admin gets
 * plain "primary" even when the replica could serve: nothing was skipped.
 */
#include <inttypes.h>
#include <stdio.h>

#include "api/handlers.h"
#include "common/time.h"
#include "store/replica.h"

struct store *api_read_store(struct api_request *req) {
        struct store_replica *replica = req->deps->replica;
        enum store_replica_verdict v;
        int64_t lag_ms;

        if (req->read_store)
                return req->read_store;
        req->read_store = req->deps->store;
        snprintf(req->read_from, sizeof req->read_from, "primary");
        if (!replica || req->role >= AUTH_ROLE_REFEREE)
                return req->read_store;
        v = store_replica_verdict(replica, now_usec(), &lag_ms);
        store_replica_count_read(replica, v == STORE_REPLICA_USE);
        if (v == STORE_REPLICA_USE) {
                req->read_store = store_replica_store(replica);
                snprintf(req->read_from, sizeof req->read_from, "replica; lag-ms=%" PRId64, lag_ms);
        } else {
                snprintf(req->read_from, sizeof req->read_from, "primary; replica=%s",
                         store_replica_verdict_to_string(v));
        }
        return req->read_store;
}

void api_read_primary(struct api_request *req) {
        if (req->read_store == req->deps->store)
                return;
        req->read_store = req->deps->store;
        snprintf(req->read_from, sizeof req->read_from, "primary");
}
