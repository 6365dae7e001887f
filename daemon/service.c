/* daemon/service.c — arbiterd's lifecycle: start, serve, reload, stop.
 *
 *   starting ──(HTTP bound, bus settled, database settled)──> ready ──SIGTERM──> stopping ──> exit 0
 *
 * "Settled" means the first attempt is over either way: the bus name owned
 * (or no bus configured, or the bus unreachable for now), the database
 * migrated and ready (or unreachable for now).  READY=1 goes out then, so a
 * database outage at boot does not hold the HTTP API — /v1/health says what
 * is missing, and the store keeps reconnecting.  A database that holds
 * migrations this build refuses is fatal (exit 65), and so is a database
 * another arbiterd holds (the lock of store.h, taken by the match inputs'
 * connection).
 *
 * Two connections: one for REST, tournaments and tokens, one for the match
 * runtime's inputs, so that a slow read never holds a judged call.
 *
 * Stopping: STOPPING=1, the listening socket closed, requests in flight and
 * queued writes finish (bounded by [daemon] shutdown_timeout), then exit 0.
 */
#include "daemon/service.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "api/api.h"
#include "api/league.h"
#include "api/sse.h"
#include "bus/bus.h"
#include "bus/pads.h"
#include "common/log.h"
#include "common/loop.h"
#include "common/time.h"
#include "bus/matches.h"
#include "daemon/fdlimit.h"
#include "daemon/tour_bus.h"
#include "match/match.h"
#include "organiser/ratings.h"
#include "tournament/glicko2.h"
#include "tournament/openskill.h"
#include "hardware/padbus.h"
#include "store/spool.h"
#include "store/replica.h"
#include "store/spool_writer.h"
#include "store/store.h"

#define STATUS_MAX 256

struct service {
        struct tour_os_params rating_os;        /* [ratings], for the API */
        struct tour_glicko2_params rating_g2;
        const char *config_path;
        struct config cfg;
        struct loop *loop;
        struct store *store;            /* REST, tournaments, tokens */
        struct store *lane;             /* the match runtime's inputs, holding the daemon's lock */
        struct store_replica *replica;  /* reads that may lag ([database] replica_dsn); NULL: none */
        struct auth *auth;
        struct api_server *api;
        struct bus *bus;
        struct bus_pads *bus_pads;      /* the D-Bus objects: after bus_free() */
        struct bus_matches *bus_matches;
        struct tour_bus *tour_bus;
        struct padbus *pads;
        struct sse_hub *events;
        struct api_league *league;      /* the league's events (api/league.h) */
        struct api_results *results;    /* results the database records (api_tournaments_watch) */
        struct matches *matches;
        struct spool *spool;
        struct spool_writer *spool_writer;
        struct org_ratings *ratings;    /* the rating worker */
        struct api_deps deps;

        struct event *ev_term, *ev_int, *ev_hup;
        struct event *ev_housekeeping, *ev_watchdog, *ev_deadline;
        int hook_id;

        int64_t started_usec;           /* CLOCK_MONOTONIC */
        char started_at[32];            /* RFC 3339 UTC, for /v1/health */
        bool store_settled, lane_settled, bus_settled, ready_sent, stopping;
        enum store_state store_state;   /* the last one reported */
        enum store_state lane_state;
        bool outage_logged;             /* warned about this outage already */
        bool lane_outage_logged;
        int exit_status;
        char status[STATUS_MAX];
};

static enum bus_kind bus_kind_of(enum config_bus b) {
        switch (b) {
        case CONFIG_BUS_SESSION: return BUS_KIND_SESSION;
        case CONFIG_BUS_SYSTEM:  return BUS_KIND_SYSTEM;
        default:                 return BUS_KIND_NONE;
        }
}

static struct api_config api_config_of(const struct config *cfg, int listen_fd) {
        return (struct api_config) {
                .address = cfg->listen_address,
                .port = cfg->listen_port,
                .listen_fd = listen_fd,
                .body_limit = cfg->body_limit,
                .max_connections = cfg->max_connections,
                .reserved_connections = cfg->reserved_connections,
                .queue_limit = cfg->queue_limit,
                .max_connections_per_ip = cfg->max_connections_per_ip,
                .pending_per_ip = cfg->pending_per_ip,
                .request_timeout_s = cfg->request_timeout_s,
                .connection_timeout_s = cfg->connection_timeout_s,
                .connection_memory = cfg->connection_memory,
                .open_reads = cfg->open_reads,
                .web_root = cfg->web_root,
        };
}

/* The database as a whole: READY when both connections are, else the
 * state of the one that is not (the REST one first). */
static enum store_state db_state(const struct service *s) {
        enum store_state st = s->store ? store_get_state(s->store) : STORE_DISCONNECTED;

        if (st != STORE_READY)
                return st;
        return s->lane ? store_get_state(s->lane) : STORE_DISCONNECTED;
}

static bool bus_healthy(const struct service *s) {
        enum bus_state b = s->bus ? bus_get_state(s->bus) : BUS_STATE_DISABLED;
        return b == BUS_STATE_OWNED || b == BUS_STATE_DISABLED;
}

/* One line a person reading `systemctl status` understands. */
static void update_status(struct service *s) {
        char line[STATUS_MAX];
        enum store_state st = db_state(s);

        if (s->stopping)
                snprintf(line, sizeof line, "Stopping: finishing %u request%s",
                         api_server_active(s->api), api_server_active(s->api) == 1 ? "" : "s");
        else
                snprintf(line, sizeof line, "%s on %s; database %s; D-Bus %s",
                         s->ready_sent ? "Serving" : "Starting",
                         s->api ? api_server_address(s->api) : "(not bound)",
                         st == STORE_READY ? "ready" : st == STORE_MIGRATING ? "migrating"
                                                     : "unreachable, retrying",
                         s->bus ? bus_state_to_string(bus_get_state(s->bus)) : "off");
        if (strcmp(line, s->status) == 0)
                return;
        snprintf(s->status, sizeof s->status, "%s", line);
        sd_notifyf(0, "STATUS=%s", s->status);
        if (s->bus)
                bus_set_status(s->bus, s->status);
}

static void check_ready(struct service *s) {
        if (s->ready_sent || !s->api || !s->store_settled || !s->lane_settled || !s->bus_settled ||
            s->stopping)
                return;
        s->ready_sent = true;
        update_status(s);
        sd_notify(0, "READY=1");
        log_notice("arbiterd %s ready: %s", ARBITER_VERSION, s->status);
}

static void begin_stop(struct service *s, int exit_status) {
        struct timeval tv = { .tv_sec = s->cfg.shutdown_timeout_s };

        if (s->stopping)
                return;
        s->stopping = true;
        s->exit_status = exit_status;
        sd_notify(0, "STOPPING=1");
        update_status(s);
        if (s->api)
                api_server_quiesce(s->api);
        evtimer_add(s->ev_deadline, &tv);
}

/* The store reports every retry; the log gets transitions only (one
 * warning when the database goes away, one line when it is back), the
 * retries go to debug. */
static void on_store_state(void *userdata, enum store_state state, const char *detail) {
        struct service *s = userdata;
        bool changed = state != s->store_state;

        s->store_state = state;
        switch (state) {
        case STORE_READY:
                log_full_errno(changed ? LOG_NOTICE : LOG_DEBUG, 0, "database ready: %s", detail);
                s->outage_logged = false;
                s->store_settled = true;
                if (api_tokens_reload(s->store, s->auth) < 0)
                        log_warning("could not queue the API token load; writes will be refused until the next reconnect");
                /* every READY: what the other venues said while we were away,
                 * and the results our matches made meanwhile */
                api_league_store_ready(s->league);
                api_tournaments_store_ready(s->results);
                if (changed) {
                        tour_bus_load(s->tour_bus);
                        /* what came while nobody listened */
                        org_ratings_check_all(s->ratings);
                }
                break;
        case STORE_DISCONNECTED:
                log_full_errno(s->outage_logged ? LOG_DEBUG : LOG_WARNING, 0,
                               "database unavailable: %s", detail);
                s->outage_logged = true;
                s->store_settled = true;
                break;
        case STORE_FAILED:
                log_error("database refused: %s", detail);
                s->store_settled = true;
                begin_stop(s, EXIT_DATAERR);
                break;
        case STORE_CONNECTING:
        case STORE_MIGRATING:
                log_debug("database: %s", detail);
                break;
        }
        if (s->bus)
                bus_set_database(s->bus, store_state_to_string(db_state(s)));
        update_status(s);
        check_ready(s);
}

/* The match runtime's own connection (store.h, "The daemon's lock"): its
 * READY flushes the spool and rebuilds the unfinished matches; FAILED (the
 * lock held by another daemon at start, a refused migration) stops. */
static void on_lane_state(void *userdata, enum store_state state, const char *detail) {
        struct service *s = userdata;
        bool changed = state != s->lane_state;

        s->lane_state = state;
        switch (state) {
        case STORE_READY:
                log_full_errno(changed ? LOG_INFO : LOG_DEBUG, 0, "database ready for match inputs");
                s->lane_outage_logged = false;
                s->lane_settled = true;
                if (changed) {
                        matches_store_ready(s->matches);
                        api_league_venue_ready(s->league);
                }
                break;
        case STORE_DISCONNECTED:
                log_full_errno(s->lane_outage_logged ? LOG_DEBUG : LOG_WARNING, 0,
                               "database unavailable for match inputs (they go to the spool): %s", detail);
                s->lane_outage_logged = true;
                s->lane_settled = true;
                break;
        case STORE_FAILED:
                log_error("database refused: %s", detail);
                s->lane_settled = true;
                begin_stop(s, EXIT_DATAERR);
                break;
        case STORE_CONNECTING:
        case STORE_MIGRATING:
                log_debug("database (match inputs): %s", detail);
                break;
        }
        if (s->bus)
                bus_set_database(s->bus, store_state_to_string(db_state(s)));
        update_status(s);
        check_ready(s);
}

/* bus.c logs every state line itself; here only start-up settles. */
static void on_bus_state(void *userdata, enum bus_state state, const char *detail) {
        struct service *s = userdata;

        (void) detail;
        /* OWNED, DISABLED, or a failed attempt (CONNECTING is reported only
         * after one): the first of these settles start-up. */
        if (state != BUS_STATE_REQUESTING)
                s->bus_settled = true;
        update_status(s);
        check_ready(s);
}

/* The "replica" member of "database" (docs/operations.md, "A read
 * replica"): its state and whether reads that may lag use it; in
 * /v1/status how far behind it is, why it is skipped and the counters; its
 * connection's detail line (where it is) for admins only.  Never part of
 * "status": a replica that is away only sends the reads to the primary. */
static json_t *replica_json(const struct service *s, enum api_health_view view) {
        struct store_replica_status st;
        json_t *j;

        store_replica_status(s->replica, now_usec(), &st);
        j = json_pack("{s:s, s:b}", "state", store_state_to_string(st.state), "used",
                      st.verdict == STORE_REPLICA_USE);
        if (view == API_HEALTH_BRIEF)
                return j;
        json_object_set_new(j, "verdict", json_string(store_replica_verdict_to_string(st.verdict)));
        json_object_set_new(j, "lag_ms", st.lag_ms >= 0 ? json_integer(st.lag_ms) : json_null());
        json_object_set_new(j, "max_lag_ms", json_integer(st.max_lag_ms));
        json_object_set_new(j, "probe_age_ms", st.probe_age_ms >= 0 ? json_integer(st.probe_age_ms) : json_null());
        json_object_set_new(j, "in_recovery", json_boolean(st.in_recovery));
        json_object_set_new(j, "reason", st.reason[0] ? json_string(st.reason) : json_null());
        json_object_set_new(j, "probes", json_pack("{s:I, s:I}", "answered", (json_int_t) st.probes, "failed",
                                                   (json_int_t) st.probe_failures));
        json_object_set_new(j, "reads", json_pack("{s:I, s:I}", "replica", (json_int_t) st.reads_replica,
                                                  "primary", (json_int_t) st.reads_primary));
        if (view == API_HEALTH_INTERNALS)
                json_object_set_new(j, "detail", json_string(store_get_detail(store_replica_store(s->replica))));
        return j;
}

static void fill_health(void *userdata, json_t *h, enum api_health_view view) {
        struct service *s = userdata;
        enum store_state st = db_state(s);
        const char *bus_state = s->bus ? bus_state_to_string(bus_get_state(s->bus)) : "disabled";

        enum store_state lane = s->lane ? store_get_state(s->lane) : STORE_DISCONNECTED;
        json_object_set_new(h, "status", json_string(s->stopping ? "stopping"
                                                     : st == STORE_READY && bus_healthy(s) ? "ok"
                                                                                          : "degraded"));
        json_object_set_new(h, "version", json_string(ARBITER_VERSION));
        json_object_set_new(h, "uptime_s", json_integer((now_usec() - s->started_usec) / USEC_PER_SEC));
        if (view == API_HEALTH_BRIEF) {
                json_object_set_new(h, "database", json_pack("{s:s}", "state", store_state_to_string(st)));
                if (s->replica)
                        json_object_set_new(json_object_get(h, "database"), "replica", replica_json(s, view));
                json_object_set_new(h, "bus", json_pack("{s:s}", "state", bus_state));
                json_object_set_new(h, "pads", json_pack("{s:i}", "connected", (int) padbus_connected(s->pads)));
                return;
        }
        json_object_set_new(h, "started_at", json_string(s->started_at));
        json_object_set_new(h, "database", json_pack("{s:s, s:I, s:{s:s, s:I}}", "state", store_state_to_string(st),
                                                     "pending", (json_int_t) store_pending(s->store),
                                                     "inputs", "state", store_state_to_string(lane),
                                                     "pending", (json_int_t) (s->lane ? store_pending(s->lane) : 0)));
        /* its socket path, database name and user: for admins only */
        if (view == API_HEALTH_INTERNALS)
                json_object_set_new(json_object_get(h, "database"), "detail",
                                    json_string(store_get_detail(s->store)));
        if (s->replica)
                json_object_set_new(json_object_get(h, "database"), "replica", replica_json(s, view));
        json_object_set_new(h, "bus", json_pack("{s:s, s:s, s:s}",
                                                "kind", config_bus_to_string(s->cfg.bus),
                                                "name", BUS_NAME,
                                                "state", bus_state));
        unsigned ports_open = 0;
        for (size_t i = 0; i < padbus_n_ports(s->pads); i++)
                ports_open += padbus_port(s->pads, i)->open;
        struct padbus_stats ps;
        padbus_stats(s->pads, &ps);
        json_object_set_new(h, "pads", json_pack("{s:i, s:i, s:i, s:i, s:I, s:i, s:i, s:I, s:I, s:I, s:I}",
                                                 "connected", (int) padbus_connected(s->pads),
                                                 "known", (int) padbus_n_pads(s->pads),
                                                 "ports", (int) padbus_n_ports(s->pads),
                                                 "ports_open", (int) ports_open,
                                                 "unassigned_presses",
                                                 (json_int_t) matches_unassigned_presses(s->matches),
                                                 "in_conflict", (int) ps.in_conflict,
                                                 "refused_devices", (int) ps.refused_devices,
                                                 "conflicts", (json_int_t) ps.conflicts,
                                                 "conflict_presses", (json_int_t) ps.conflict_presses,
                                                 "refused_frames", (json_int_t) ps.refused_frames,
                                                 "moves", (json_int_t) ps.moves));
        json_object_set_new(h, "league", api_league_status(s->league));
        json_object_set_new(h, "tokens", json_pack("{s:b, s:I}", "loaded", auth_loaded(s->auth), "count",
                                                   (json_int_t) auth_count(s->auth)));
        struct loop_stats ls;
        loop_stats(s->loop, &ls);
        json_t *over = json_object();
        for (int i = 0; i < LOOP_STALL_BUCKETS; i++) {
                char ms[16];
                snprintf(ms, sizeof ms, "%u", loop_stall_ms[i]);
                json_object_set_new(over, ms, json_integer((json_int_t) ls.over[i]));
        }
        json_object_set_new(h, "loop", json_pack("{s:I, s:f, s:o}", "turns", (json_int_t) ls.turns,
                                                 "longest_turn_ms", (double) ls.longest_us / 1000.0,
                                                 "turns_over_ms", over));
        struct org_ratings_stats rs;
        org_ratings_stats(s->ratings, &rs);
        json_object_set_new(h, "ratings", json_pack("{s:b, s:b, s:I, s:I, s:I, s:{s:I, s:f}}", "active", rs.active,
                                                    "busy", rs.busy,
                                                    "steps", (json_int_t) rs.steps,
                                                    "recomputes", (json_int_t) rs.recomputes,
                                                    "failures", (json_int_t) rs.failures,
                                                    "last_recompute", "results", (json_int_t) rs.results_last,
                                                    "seconds", rs.seconds_last));
}

/* The rating worker wrote a game's tables. */
static void on_ratings_changed(void *userdata, const char *game) {
        struct service *s = userdata;
        api_ratings_changed(s->events, s->league, game);
}

/* api_deps.tournament_event: the event as a D-Bus signal. */
static void on_tournament_event(void *userdata, int64_t id, const char *event, json_t *data) {
        struct service *s = userdata;
        tour_bus_event(s->tour_bus, id, event, data);
}

static void on_pad_added(void *userdata, const struct pad *pad) {
        struct service *s = userdata;
        bus_pads_added(s->bus_pads, pad, pad->counters.reconnects == 0);
        api_events_pad(s->events, "pad_added", pad);
}

static void on_pad_removed(void *userdata, const struct pad *pad) {
        struct service *s = userdata;
        bus_pads_removed(s->bus_pads, pad);
        api_events_pad(s->events, "pad_removed", pad);
}

static void on_pad_identity(void *userdata, const struct pad *pad) {
        struct service *s = userdata;
        bus_pads_identity(s->bus_pads, pad);
        api_events_pad(s->events, "pad_identity", pad);
}

/* The judge orders presses by time itself: it gets them at once, not one
 * settle window later from the ordered stream (matches.h, "Pads"). */
static bool on_pad_received(void *userdata, const struct pad_press *press) {
        struct service *s = userdata;
        return matches_pad_received(s->matches, press);
}

static void on_pad_pressed(void *userdata, const struct pad_press *press) {
        struct service *s = userdata;
        bus_pads_pressed(s->bus_pads, press);
        api_events_press(s->events, press);
        matches_pad_pressed(s->matches, press);
}

/* SIGHUP: re-read the file; apply what can change while running, keep the
 * rest (and say so). */
static void reload(struct service *s) {
        struct config next = { 0 };
        char err[512];
        bool restart = false;
        int changed;

        sd_notify(0, "RELOADING=1");
        if (config_load(&next, s->config_path, err, sizeof err) < 0) {
                log_error("reload failed, keeping the running configuration: %s", err);
        } else {
                changed = config_reload_into(&s->cfg, &next, &restart);
                log_set_level(s->cfg.log_level);
                struct api_config ac = api_config_of(&s->cfg, -1);
                api_server_reconfigure(s->api, &ac);
                store_set_statement_timeout(s->store, s->cfg.statement_timeout_ms);
                store_set_statement_timeout(s->lane, s->cfg.statement_timeout_ms);
                if (s->replica)
                        store_replica_set_statement_timeout(s->replica, s->cfg.statement_timeout_ms);
                log_notice("configuration reloaded from %s: %d setting%s changed",
                           s->config_path ? s->config_path : "(defaults and environment)",
                           changed, changed == 1 ? "" : "s");
                if (restart)
                        log_warning("some changed settings take effect only after a restart "
                                    "(only log.level, http.open_reads, http.body_limit and "
                                    "database.statement_timeout are reloaded)");
        }
        config_done(&next);
        sd_notify(0, "READY=1");
}

/* The spool failed (matches.c logged why): nothing may be acknowledged
 * after it, so the daemon stops and systemd restarts it. */
static void on_spool_failed(void *userdata) {
        begin_stop(userdata, EXIT_FAILURE);
}

/* Opens [database] spool; what it holds is flushed when the database is
 * READY (matches.h, "The spool"). */
static int open_spool(struct service *s) {
        size_t records = 0, cut = 0;
        int r;

        r = spool_open(s->cfg.spool_path, &s->spool, &records, &cut);
        if (r == -EUCLEAN) {
                /* Not restarted by systemd: a person decides (store/spool.h, "Damage"). */
                s->exit_status = EXIT_DATAERR;
                return log_error_errno(r, "the spool %s is damaged in the middle: whole records, acknowledged "
                                       "inputs, follow the damage, so arbiterd does not cut them and does not "
                                       "start. The file is kept as it is. Run arbiterd --spool-check to see "
                                       "them, then arbiterd --spool-drop OFFSET or --spool-truncate-at OFFSET "
                                       "(docs/operations.md, \"The spool\")", s->cfg.spool_path);
        }
        if (r == -EBUSY)
                return log_error_errno(r, "the spool %s is open in another arbiterd; each daemon needs a spool "
                                       "of its own ([database] spool, ARBITER_SPOOL)", s->cfg.spool_path);
        if (r < 0)
                return log_error_errno(r, "cannot open the spool %s: %s; [database] spool (ARBITER_SPOOL) must "
                                       "name a file in a directory arbiterd can write", s->cfg.spool_path,
                                       strerror(-r));
        if (cut > 0)
                log_warning("spool %s: a torn tail of %zu byte%s (an input never acknowledged) was cut",
                            s->cfg.spool_path, cut, cut == 1 ? "" : "s");
        if (records > 0)
                log_notice("spool %s holds %zu input%s, written to the database once it is ready",
                           s->cfg.spool_path, records, records == 1 ? "" : "s");
        else
                log_info("spool %s is empty", s->cfg.spool_path);
        return 0;
}

static void on_signal(evutil_socket_t sig, short what, void *userdata) {
        struct service *s = userdata;

        (void) what;
        if (sig == SIGHUP) {
                reload(s);
                return;
        }
        if (s->stopping) {
                log_warning("second %s: stopping now without waiting", strsignal((int) sig));
                loop_exit(s->loop);
                return;
        }
        log_notice("%s received: stopping gracefully", strsignal((int) sig));
        begin_stop(s, EXIT_SUCCESS);
}

static void on_deadline(evutil_socket_t fd, short what, void *userdata) {
        struct service *s = userdata;

        (void) fd, (void) what;
        log_warning("still %u request%s and %u database write%s after %u s; stopping anyway",
                    api_server_active(s->api), api_server_active(s->api) == 1 ? "" : "s",
                    store_pending(s->store) + store_pending(s->lane),
                    store_pending(s->store) + store_pending(s->lane) == 1 ? "" : "s",
                    s->cfg.shutdown_timeout_s);
        loop_exit(s->loop);
}

static void on_watchdog(evutil_socket_t fd, short what, void *userdata) {
        (void) fd, (void) what, (void) userdata;
        sd_notify(0, "WATCHDOG=1");
}

/* The periodic tick for work with no event of its own.  Today: keep the
 * status line true; pads and match timers join it later. */
static void on_housekeeping(evutil_socket_t fd, short what, void *userdata) {
        struct service *s = userdata;

        (void) fd, (void) what;
        update_status(s);
}

/* Each loop turn while stopping: leave once nothing is in flight. */
static void before_sleep(void *userdata) {
        struct service *s = userdata;

        if (s->stopping && api_server_active(s->api) == 0 && store_pending(s->store) == 0 &&
            store_pending(s->lane) == 0 && spool_writer_pending(s->spool_writer) == 0)
                loop_exit(s->loop);
}

/* A socket passed by systemd (arbiterd.socket), or -1. */
static int listen_fd_from_systemd(int *ret_fd) {
        int n = sd_listen_fds(1);

        *ret_fd = -1;
        if (n < 0)
                return log_error_errno(n, "cannot read the sockets systemd passed: %s", strerror(-n));
        if (n == 0)
                return 0;
        if (n > 1)
                return log_error_errno(EINVAL, "systemd passed %d sockets; arbiterd.socket must have "
                                       "exactly one ListenStream=", n);
        if (sd_is_socket(SD_LISTEN_FDS_START, AF_UNSPEC, SOCK_STREAM, 1) <= 0)
                return log_error_errno(EINVAL, "the socket systemd passed is not a listening stream socket");
        *ret_fd = SD_LISTEN_FDS_START;
        return 0;
}

static struct event *add_signal(struct service *s, int sig) {
        struct event *ev = evsignal_new(loop_base(s->loop), sig, on_signal, s);
        if (ev)
                event_add(ev, NULL);
        return ev;
}

/* [ratings]: what the file sets, the published defaults for the rest.
 * config.c has checked each value's range. */
static void rating_params(const struct config *cfg, struct tour_os_params *os, struct tour_glicko2_params *g2) {
        tour_os_params_default(os);
        tour_glicko2_params_default(g2);
        if (!isnan(cfg->rating_os_mu))
                os->mu = cfg->rating_os_mu;
        if (!isnan(cfg->rating_os_sigma))
                os->sigma = cfg->rating_os_sigma;
        if (!isnan(cfg->rating_os_beta))
                os->beta = cfg->rating_os_beta;
        if (!isnan(cfg->rating_os_tau))
                os->tau = cfg->rating_os_tau;
        if (!isnan(cfg->rating_g2_rating))
                g2->rating = cfg->rating_g2_rating;
        if (!isnan(cfg->rating_g2_rd))
                g2->rd = cfg->rating_g2_rd;
        if (!isnan(cfg->rating_g2_volatility))
                g2->vol = cfg->rating_g2_volatility;
        if (!isnan(cfg->rating_g2_tau))
                g2->tau = cfg->rating_g2_tau;
        os->provisional_games = (int) cfg->rating_provisional_games;
        g2->provisional_games = (int) cfg->rating_provisional_games;
}

static int start(struct service *s) {
        struct store_config sc = {
                .dsn = s->cfg.dsn,
                .statement_timeout_ms = s->cfg.statement_timeout_ms,
                .reconnect_max_s = s->cfg.reconnect_max_s,
                .migrations_dir = s->cfg.migrations_dir,
                .venue = s->cfg.venue_id,
                .venue_name = config_venue_name(&s->cfg),
        };
        struct timeval tick = usec_to_timeval((int64_t) s->cfg.housekeeping_ms * USEC_PER_MSEC);
        uint64_t wd_usec = 0;
        int listen_fd, r;

        r = loop_new(&s->loop);
        if (r < 0)
                return log_error_errno(r, "cannot create the event loop: %s", strerror(-r));
        struct event_base *base = loop_base(s->loop);

        s->ev_term = add_signal(s, SIGTERM);
        s->ev_int = add_signal(s, SIGINT);
        s->ev_hup = add_signal(s, SIGHUP);
        s->ev_deadline = evtimer_new(base, on_deadline, s);
        s->ev_housekeeping = event_new(base, -1, EV_PERSIST, on_housekeeping, s);
        if (!s->ev_term || !s->ev_int || !s->ev_hup || !s->ev_deadline || !s->ev_housekeeping)
                return log_error_errno(ENOMEM, "cannot set up signal and timer events");
        event_add(s->ev_housekeeping, &tick);
        s->hook_id = loop_add_before_sleep(s->loop, before_sleep, s);

        if (sd_watchdog_enabled(0, &wd_usec) > 0) {
                struct timeval half = usec_to_timeval((int64_t) wd_usec / 2);
                s->ev_watchdog = event_new(base, -1, EV_PERSIST, on_watchdog, s);
                if (!s->ev_watchdog)
                        return log_error_errno(ENOMEM, "cannot set up the watchdog timer");
                event_add(s->ev_watchdog, &half);
                log_info("systemd watchdog every %llu ms", (unsigned long long) wd_usec / 2000);
        }

        r = auth_new(&s->auth);
        if (r < 0)
                return log_error_errno(r, "out of memory");
        struct sse_config ec = { .heartbeat_ms = s->cfg.sse_heartbeat_ms, .max_streams = s->cfg.sse_max_streams };
        r = sse_hub_new(s->loop, &ec, &s->events);
        if (r < 0)
                return log_error_errno(r, "cannot set up live events: %s", strerror(-r));
        s->deps = (struct api_deps) { .auth = s->auth, .events = s->events, .health = fill_health, .userdata = s,
                                      .venue = s->cfg.venue_id, .venue_name = config_venue_name(&s->cfg) };

        r = listen_fd_from_systemd(&listen_fd);
        if (r < 0)
                return r;
        fdlimit_raise((unsigned long) s->cfg.max_connections + FDLIMIT_DAEMON_FDS);
        struct api_config ac = api_config_of(&s->cfg, listen_fd);
        r = api_server_new(s->loop, &ac, &s->deps, &s->api);
        if (r < 0)
                return r;       /* logged with what to do */
        log_info("HTTP API on http://%s/v1/health%s", api_server_address(s->api),
                 listen_fd >= 0 ? " (socket from systemd)" : "");

        r = open_spool(s);
        if (r < 0)
                return r;
        r = spool_writer_new(s->loop, s->spool, &s->spool_writer);
        if (r < 0)
                return log_error_errno(r, "cannot start the spool's writer thread: %s", strerror(-r));
        r = store_new(s->loop, &sc, on_store_state, s, &s->store);
        if (r < 0)
                return log_error_errno(r, "cannot set up the database connection: %s", strerror(-r));
        s->deps.store = s->store;
        if (s->cfg.replica_dsn && s->cfg.replica_dsn[0]) {
                struct store_replica_config rpc = {
                        .dsn = s->cfg.replica_dsn, .statement_timeout_ms = s->cfg.statement_timeout_ms,
                        .reconnect_max_s = s->cfg.reconnect_max_s, .max_lag_ms = s->cfg.replica_max_lag_ms,
                };
                r = store_replica_new(s->loop, &rpc, &s->replica);
                if (r < 0)
                        return log_error_errno(r, "cannot set up the read replica's connection: %s", strerror(-r));
                s->deps.replica = s->replica;
        }
        /* Match inputs have a connection of their own, so that no REST read
         * can hold a judged call's store, publish and ACK. */
        struct store_config lc = sc;
        lc.hold_lock = true;
        lc.pipeline = true;             /* judged calls of several tables share round trips */
        r = store_new(s->loop, &lc, on_lane_state, s, &s->lane);
        if (r < 0)
                return log_error_errno(r, "cannot set up the database connection: %s", strerror(-r));
        r = matches_new(s->loop, s->lane, &s->matches);
        if (r < 0)
                return log_error_errno(r, "out of memory");
        matches_set_spool(s->matches, s->spool, s->spool_writer, on_spool_failed, s);
        r = api_league_new(s->loop, &s->deps, s->cfg.venue_id, &s->league);
        if (r < 0)
                return log_error_errno(r, "cannot set up the league's events: %s", strerror(-r));
        s->deps.league = s->league;
        r = api_match_events_observe(s->matches, &s->deps);
        if (r >= 0)
                r = api_league_observe(s->league, s->matches);
        if (r < 0)
                return log_error_errno(r, "cannot publish match events: %s", strerror(-r));
        s->deps.matches = s->matches;
        r = api_tokens_watch(s->store, s->auth);
        if (r < 0)
                return log_error_errno(r, "cannot watch API token changes: %s", strerror(-r));
        r = api_tournaments_watch(&s->deps, &s->results);
        if (r < 0)
                return log_error_errno(r, "cannot watch recorded results: %s", strerror(-r));

        r = bus_new(s->loop, bus_kind_of(s->cfg.bus), ARBITER_VERSION, on_bus_state, s, &s->bus);
        if (r >= 0)
                r = bus_set_venue(s->bus, s->cfg.venue_id);
        if (r < 0)
                return log_error_errno(r, "cannot set up D-Bus: %s", strerror(-r));
        if (s->cfg.bus == CONFIG_BUS_NONE)
                s->bus_settled = true;

        struct padbus_config pc = {
                .ports = s->cfg.pad_ports,
                .rs485_ports = s->cfg.pad_rs485_ports,
                .rs485_reply_margin_us = s->cfg.pad_rs485_reply_margin_us,
                .baud = s->cfg.pad_baud,
                .heartbeat_timeout_ms = s->cfg.pad_heartbeat_timeout_ms,
                .sync_interval_ms = s->cfg.pad_sync_interval_ms,
                .settle_us = s->cfg.pad_settle_us,
                .reopen_ms = s->cfg.pad_reopen_ms,
                .pty_wire_time = s->cfg.pad_pty_wire_time,
        };
        struct padbus_events pe = {
                .added = on_pad_added, .removed = on_pad_removed, .received = on_pad_received,
                .pressed = on_pad_pressed, .identity = on_pad_identity, .userdata = s,
        };
        r = padbus_new(s->loop, &pc, &pe, &s->pads);
        if (r < 0)
                return r;       /* logged */
        s->deps.pads = s->pads;
        matches_set_pads(s->matches, s->pads);
        r = bus_pads_new(s->bus, s->pads, &s->bus_pads);
        if (r < 0)
                return log_error_errno(r, "cannot export pads on D-Bus: %s", strerror(-r));
        r = bus_matches_new(s->bus, s->matches, &s->bus_matches);
        if (r < 0)
                return log_error_errno(r, "cannot export matches on D-Bus: %s", strerror(-r));
        r = tour_bus_new(s->bus, s->store, &s->tour_bus);
        if (r < 0)
                return log_error_errno(r, "cannot export tournaments on D-Bus: %s", strerror(-r));
        s->deps.tournament_event = on_tournament_event;
        rating_params(&s->cfg, &s->rating_os, &s->rating_g2);
        s->deps.rating_os = &s->rating_os;
        s->deps.rating_g2 = &s->rating_g2;
        struct org_ratings_config rc = { .dsn = s->cfg.dsn, .os = s->rating_os, .g2 = s->rating_g2 };
        r = org_ratings_new(s->loop, s->store, &rc, on_ratings_changed, s, &s->ratings);
        if (r < 0)
                return log_error_errno(r, "cannot start the rating worker: %s", strerror(-r));
        s->deps.ratings = s->ratings;
        update_status(s);
        check_ready(s);
        return 0;
}

/* Tears down in dependency order: the store first, so that every request
 * waiting on a query gets its reply before the HTTP server goes. */
static void stop(struct service *s) {
        /* first: its season readers get their answer while the server
         * is there, and its statement in progress is cancelled */
        org_ratings_free(s->ratings);
        s->ratings = NULL;
        s->deps.ratings = NULL;
        store_free(s->store);
        s->store = NULL;
        s->deps.replica = NULL;
        store_replica_free(s->replica);         /* its readers get their answer while the server is there */
        s->replica = NULL;
        store_free(s->lane);
        s->lane = NULL;
        spool_writer_free(s->spool_writer);     /* after the store: its failed writes may spool */
        bus_matches_detach(s->bus_matches);     /* the matches' last changes, while they can be read */
        matches_free(s->matches);      /* after both: every write has had its callback */
        s->deps.league = NULL;
        api_league_free(s->league);     /* after the store (its callbacks) and the matches (their observer) */
        api_tournaments_unwatch(s->results);    /* after both stores (its hand-offs' callbacks) */
        spool_close(s->spool);          /* after the matches and the writer */
        api_server_free(s->api);
        sse_hub_free(s->events);        /* after the server: its streams hold subscribers */
        bus_free(s->bus);
        bus_matches_free(s->bus_matches);       /* after the bus: its slots point at them */
        bus_pads_free(s->bus_pads);
        tour_bus_free(s->tour_bus);
        padbus_free(s->pads);
        auth_free(s->auth);
        if (s->loop)
                loop_remove_before_sleep(s->loop, s->hook_id);
        struct event *evs[] = { s->ev_term, s->ev_int, s->ev_hup, s->ev_housekeeping, s->ev_watchdog,
                                s->ev_deadline };
        for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
                if (evs[i])
                        event_free(evs[i]);
        loop_free(s->loop);
        config_done(&s->cfg);
}

int service_run(const char *config_path, struct config *cfg) {
        struct service s = { .config_path = config_path, .cfg = *cfg, .hook_id = -1 };
        int r;

        memset(cfg, 0, sizeof *cfg);    /* ownership moved into s */
        s.started_usec = now_usec();
        time_t now = time(NULL);
        struct tm tm;
        strftime(s.started_at, sizeof s.started_at, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
        signal(SIGPIPE, SIG_IGN);

        r = start(&s);
        if (r >= 0)
                r = loop_run(s.loop);
        if (r < 0 && !s.stopping && s.exit_status == EXIT_SUCCESS)
                s.exit_status = EXIT_FAILURE;
        stop(&s);
        if (s.exit_status == EXIT_SUCCESS)
                log_info("arbiterd stopped");
        return s.exit_status;
}
