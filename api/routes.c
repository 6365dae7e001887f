/* api/routes.c — every REST route in one table (the reference is docs/openapi.yaml).
 *
 * Reads name AUTH_ROLE_DISPLAY: [http] open_reads = yes (the default) opens
 * them to anyone on the network.  AUTH_ROLE_NONE is for what must stay open
 * whatever the setting (health checks). */
#include "api/handlers.h"

const struct route api_routes[] = {
        { "GET",    "/v1",             handle_index,         AUTH_ROLE_DISPLAY, "this list of routes" },
        { "GET",    "/v1/health",      handle_health,        AUTH_ROLE_NONE,  "version, uptime, database, bus and pads" },
        { "GET",    "/v1/status",      handle_status,        AUTH_ROLE_DISPLAY, "health plus every counter: HTTP, events, pads, tokens" },
        { "GET",    "/v1/tokens",      handle_tokens_list,   AUTH_ROLE_ADMIN, "API tokens (never the secrets)" },
        { "POST",   "/v1/tokens",      handle_tokens_create, AUTH_ROLE_ADMIN, "create a token: {name, role}" },
        { "GET",    "/v1/tokens/{id}", handle_token_get,     AUTH_ROLE_ADMIN, "one token" },
        { "DELETE", "/v1/tokens/{id}", handle_token_revoke,  AUTH_ROLE_ADMIN, "revoke a token" },
        { "GET",    "/v1/pads",        handle_pads_list,     AUTH_ROLE_DISPLAY, "pads and ports, with clocks and fault counters" },
        { "GET",    "/v1/pads/{id}",   handle_pad_get,       AUTH_ROLE_DISPLAY, "one pad" },
        { "POST",   "/v1/pads/{id}/identify", handle_pad_identify, AUTH_ROLE_REFEREE, "blink and beep a pad" },
        { "GET",    "/v1/tables",      handle_tables_list,   AUTH_ROLE_DISPLAY, "tables and which pad sits at each seat" },
        { "POST",   "/v1/tables",      handle_tables_create, AUTH_ROLE_ADMIN, "create a table: {name, seats}" },
        { "GET",    "/v1/tables/{id}", handle_table_get,     AUTH_ROLE_DISPLAY, "one table" },
        { "GET",    "/v1/games",       handle_games_list,    AUTH_ROLE_DISPLAY, "the games arbiter runs, with their settings" },
        { "GET",    "/v1/games/{name}", handle_game_get,     AUTH_ROLE_DISPLAY, "one game" },
        { "GET",    "/v1/matches",     handle_matches_list,  AUTH_ROLE_DISPLAY, "matches, newest last; ?state= filters" },
        { "POST",   "/v1/matches",     handle_matches_create, AUTH_ROLE_REFEREE, "create a match: {game, table, players, seed, config}" },
        { "GET",    "/v1/matches/{id}", handle_match_get,    AUTH_ROLE_DISPLAY, "one match with its public view and result" },
        { "GET",    "/v1/matches/{id}/seats/{seat}", handle_match_seat, AUTH_ROLE_DISPLAY, "what one player's screen shows" },
        { "GET",    "/v1/matches/{id}/log", handle_match_log, AUTH_ROLE_REFEREE, "the stored input log, by seq" },
        { "GET",    "/v1/matches/{id}/events", handle_match_events, AUTH_ROLE_DISPLAY, "one match's live events (Server-Sent Events)" },
        { "POST",   "/v1/matches/{id}/start", handle_match_start, AUTH_ROLE_REFEREE, "start a ready match" },
        { "POST",   "/v1/matches/{id}/pause", handle_match_pause, AUTH_ROLE_REFEREE, "pause a running match" },
        { "POST",   "/v1/matches/{id}/resume", handle_match_resume, AUTH_ROLE_REFEREE, "resume a paused match" },
        { "POST",   "/v1/matches/{id}/abort", handle_match_abort, AUTH_ROLE_REFEREE, "abandon a match that has not finished" },
        { "POST",   "/v1/matches/{id}/inputs", handle_match_input, AUTH_ROLE_REFEREE, "a call, tie or referee input for a seat" },
        { "GET",    "/v1/presses",     handle_presses_list,  AUTH_ROLE_DISPLAY, "recent presses, in pad-time order" },
        { "GET",    "/v1/events",      handle_events,        AUTH_ROLE_DISPLAY, "live events (Server-Sent Events); ?topic= filters" },
};

const size_t api_n_routes = sizeof api_routes / sizeof api_routes[0];
