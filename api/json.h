/* api/json.h — JSON shapes shared by more than one resource (internal to
 * api/): a pad and a press look the same in REST replies and in events. */
#ifndef ARBITER_API_JSON_H
#define ARBITER_API_JSON_H

#include <jansson.h>

struct pad;
struct pad_press;

/* GET /v1/pads/{id}: identity, clock model and counters.  A new reference. */
json_t *api_pad_json(const struct pad *p);
/* An item of GET /v1/presses.  A new reference. */
json_t *api_press_json(const struct pad_press *p);

#endif
