/* api/json.h — JSON shapes shared by more than one resource (internal to
 * api/): a pad and a press look the same in REST replies and in events. */
#ifndef ARBITER_API_JSON_H
#define ARBITER_API_JSON_H

#include <float.h>
#include <jansson.h>

/* How every reply and event is written: compact, ASCII-only, and numbers as
 * people write them.  jansson prints a double with 17 significant digits,
 * so that it reads back bit for bit (0.33 becomes 0.33000000000000002);
 * DBL_DIG (15) digits are the most a double always carries exactly, so a
 * decimal such as 0.33 prints as written and nothing a person could have
 * typed is lost. */
#define API_JSON_DUMP_FLAGS     (JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(DBL_DIG))

struct pad;
struct pad_press;

/* GET /v1/pads/{id}: identity, clock model and counters.  A new reference. */
json_t *api_pad_json(const struct pad *p);
/* A pad's identity conflict: null, or {since, ports, devices}: the devices
 * that contest its uid, the pad's own first.  A new reference. */
json_t *api_pad_conflict_json(const struct pad *p);
/* An item of GET /v1/presses.  A new reference. */
json_t *api_press_json(const struct pad_press *p);

#endif
