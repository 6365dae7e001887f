/* tools/arbiterctl/watch.h — `arbiterctl watch`: follows one of arbiterd's
 * Server-Sent Event streams and prints one line per event, until Ctrl-C.
 *
 * States of a watch:
 *
 *   connecting --200--> streaming --the stream ends or breaks--> waiting
 *       |   ^                |                                      |
 *       |   +----------------+--------- retry ms later -------------+
 *       |                    |
 *       | (first connection only:            SIGINT, SIGTERM or
 *       |  refused, 4xx, 5xx -> exit status)  --count reached -> exit 0
 *
 * Reconnecting sends the last id received as Last-Event-ID, so nothing is
 * missed; when the daemon cannot resume (it restarted, or the gap is too
 * old) it sends a "reset" event, printed like any other: the stream goes
 * on with live events.  After the first connection, a refused connection
 * or a 5xx means the daemon is restarting: keep trying.  A 4xx is final
 * (a revoked token, a match that is gone).  The wait between attempts is
 * the stream's "retry:" (SSE_RETRY_MS in api/sse.h), or WATCH_RETRY_MS.
 *
 * Signals: SIGINT and SIGTERM are blocked and read from a signalfd, so
 * they end the watch between two libcurl steps, never inside one.
 *
 * Output: stdout is line-buffered, one line per event: the time it
 * arrived, where (match 42, tournament 7, pad …), the event's name and
 * what happened (describe.h); with --json one compact JSON object per
 * line: {"id", "event", "data"}.  Connection news goes to stderr.
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_WATCH_H
#define ARBITER_TOOLS_ARBITERCTL_WATCH_H

#include "tools/arbiterctl/ctl.h"
#include "tools/arbiterctl/http.h"
#include "tools/arbiterctl/sse.h"

/* Until the stream names its own: EventSource's usual wait (about 3 s in
 * browsers); arbiterd says 2 s in its first line. */
#define WATCH_RETRY_MS 3000
/* No byte for this long: the connection is dead (a pulled cable shows no
 * error).  Four of arbiterd's default heartbeats (15 s, [http]
 * sse_heartbeat); a daemon with a longer heartbeat costs a harmless
 * reconnect, which resumes. */
#define WATCH_STALL_S 60

struct watch_options {
        char path[HTTP_PATH_MAX];       /* the stream, with its query */
        char last_id[SSE_ID_MAX];       /* resume after this id; "" for live events only */
        long long count;                /* stop after this many events; 0: never */
};

/* Returns the exit status: 0 after Ctrl-C or --count events. */
int watch_run(struct ctl *c, const struct watch_options *o);

#endif
