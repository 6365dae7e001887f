/* api/league.h — league events: what the daemons of a league's venues tell
 * each other through their shared database (docs/architecture.md, "Several
 * venues"; the rows and their SQL are store/league.h's).
 *
 * What it owns.
 *   - Outgoing.  Every event this daemon publishes first-hand on the
 *     topics "tournament/<id>", "table/<id>", "ratings/<game>" and
 *     "venue/<id>" goes through api_publish_shared(): on the SSE hub at
 *     once, and into a queue of league appends.  The queue is bounded (LEAGUE_QUEUE_MAX; when full
 *     the oldest is dropped, counted and logged) and waits while the
 *     database is not READY.  Before the loop sleeps, when no append of
 *     ours is in flight, what is queued goes out in one statement
 *     (store_league_append, on the REST connection, never the input lane),
 *     so events queued while one is in flight share the next.  While
 *     another venue's daemon runs ("peers": one holds its venue's lock, as
 *     store/venues.h reads pg_locks at every READY and about once a
 *     minute, or one of its events was read), a live match of ours that
 *     published since the last append is "dirty"; each append carries one
 *     "match_view" event per dirty match (its public view as
 *     GET /v1/matches/{id} shows it), so a match's views go out at most
 *     once a round trip however fast it plays.  A club with one venue
 *     sends none: a view is a write per input that nobody would read.
 *     Each time its input lane takes the venue's lock the daemon appends
 *     "venue_ready"; a daemon that reads
 *     another's marks all its live matches dirty, so that one that has
 *     just (re)connected has every view at once.
 *   - Incoming.  It LISTENs on STORE_LEAGUE_CHANNEL; on a NOTIFY and on
 *     every READY (NOTIFY does not replay what came while the connection
 *     was down) it reads the events after its cursor, a page of
 *     LEAGUE_PAGE at a time, one read in flight.  Each event of another
 *     venue is published on this daemon's hub, with this hub's own id (so
 *     every stream's ids stay monotonic whichever venue made the event),
 *     and a tournament's is passed to deps->tournament_event (D-Bus) too.
 *     A "match_assigned" for this venue makes the match runtime adopt the
 *     match (matches_adopt).  The newest "match_view" of each remote match
 *     is kept in a bounded cache (LEAGUE_VIEWS_MAX, least recently updated
 *     dropped first; an entry goes at the match's "match_ended"), which
 *     GET /v1/matches/{id} of a remote match shows (api_league_view).
 *   - Pruning: about once a minute, the rows older than STORE_LEAGUE_KEEP_S
 *     (any daemon may; several doing it is harmless).
 *
 * Invariants.
 *   - Ids commit in id order (store/league.h), so the cursor only moves
 *     forward over rows that are all there: no row below it commits later.
 *   - Events of this daemon's own venue are skipped when read back: they
 *     were published here first-hand.
 *   - At the first READY the cursor starts at the newest id (history is
 *     not replayed: a display that was following another daemon reads
 *     the state over REST); after a reconnect it catches up from where it
 *     was.  Rows pruned past the cursor before they were read are logged.
 *   - Nothing here waits: every statement is a store_query() callback.
 *
 * Event shapes (docs/operations.md, "Several venues"; docs/openapi.yaml):
 *   match_view      topic "match/<id>": {match, venue, table, seq, state, view}
 *   match_assigned  topic "venue/<venue>": {match, venue}
 *   venue_ready     topic "venue/<venue>": {venue}
 * and the tournament, table and ratings events as their own modules
 * publish them.
 *
 * Ownership: the daemon owns the league; it borrows deps (read at each
 * use: deps->store, events, matches and tournament_event may be set after
 * api_league_new), which must outlive it.  Single-threaded.
 */
#ifndef ARBITER_API_LEAGUE_H
#define ARBITER_API_LEAGUE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "api/api.h"

struct loop;
struct matches;
struct sse_hub;
struct api_league;

/* Appends waiting while the database is away: ten thousand events, an
 * hour of a busy venue's tournament, table and ratings events (its match
 * views are not queued: only the newest of each is sent). */
#define LEAGUE_QUEUE_MAX        10000
/* Events read per statement while catching up. */
#define LEAGUE_PAGE             1000
/* Remote matches whose newest view is kept: every live table of a league
 * of a hundred venues, with room. */
#define LEAGUE_VIEWS_MAX        1024
/* How often the old rows are pruned. */
#define LEAGUE_PRUNE_MS         60000

/* venue: this daemon's ([venue] id), copied.  LISTENs on deps->store,
 * which must be set. */
int api_league_new(struct loop *loop, const struct api_deps *deps, const char *venue, struct api_league **ret);
void api_league_free(struct api_league *l);     /* accepts NULL */

const char *api_league_venue(const struct api_league *l);

/* The REST connection (deps->store) became READY: catches up, asks
 * whether another venue's daemon runs, and sends what waited. */
void api_league_store_ready(struct api_league *l);

/* The input lane became READY, holding this venue's lock (so the venue's
 * row is there, which league_events refers to): appends "venue_ready".
 * Accepts NULL. */
void api_league_venue_ready(struct api_league *l);

/* Marks this venue's live matches dirty when they publish (see above). */
int api_league_observe(struct api_league *l, struct matches *reg);

/* Publishes event on topic with data (taken) on hub, and appends it to
 * the league's events when league is not NULL.  hub may be NULL. */
void api_publish_shared(struct sse_hub *hub, struct api_league *league, const char *topic, const char *event,
                        json_t *data);

/* Match id was stored for venue (another's): "match_assigned" on topic
 * "venue/<venue>", so that venue's daemon adopts and runs it. */
void api_league_match_assigned(struct api_league *l, int64_t match, const char *venue);

/* A remote match's resource (a match of another venue: its "venue" member
 * is not ours, and it is not over): fills "view" and "state" from the
 * newest match_view this daemon has.  Returns true when done (filled, or
 * nothing to fill: not remote, over), false when the cache has no view of
 * it: then api_league_view_read() asks the database. */
bool api_league_view(struct api_league *l, json_t *resource);
/* Reads the newest match_view of resource's match from the database, fills
 * resource as api_league_view() does when there is one, and calls done
 * (always, once, from the loop; resource is the caller's throughout).
 * 0, or store_query()'s -ENOTCONN, -ENOMEM (done not called). */
typedef void (*api_league_view_fn)(void *userdata, json_t *resource);
int api_league_view_read(struct api_league *l, json_t *resource, api_league_view_fn done, void *userdata);

/* The "league" member of GET /v1/status: {cursor (the newest id read;
 * null until the first READY has read where to start), peers (another
 * venue's daemon runs: live matches' views go out), received (events
 * of other venues), reads (of the league's events: at most one every
 * LEAGUE_READ_GAP_MS after a NOTIFY), appended (events and views of ours committed), queued
 * (waiting, or in flight), dropped (from a full queue, or refused)}. */
json_t *api_league_status(const struct api_league *l);

#endif
