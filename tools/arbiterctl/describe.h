/* tools/arbiterctl/describe.h — one event in words, for a person: what
 * `arbiterctl watch` prints for each Server-Sent Event and `matches input`
 * for the events an input caused.
 *
 * The events are those of docs/openapi.yaml (GET /v1/events: pads,
 * tournaments, reset, overflow) and docs/matches.md (the framework's match
 * events); a game's own events (docs/games/) are described generically, by
 * their plain fields as "name=value", so that a new game needs nothing
 * here.  Pure: no I/O.
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_DESCRIBE_H
#define ARBITER_TOOLS_ARBITERCTL_DESCRIBE_H

#include <stddef.h>
#include <jansson.h>

/* Where the event happened: "match 42", "tournament 7", "pad 00..01", or
 * "" when data does not say. */
void describe_context(const json_t *data, char *buf, size_t size);
/* What happened, without the context: "Ana (player 1) checked in". */
void describe_event(const char *name, const json_t *data, char *buf, size_t size);

#endif
