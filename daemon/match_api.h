/* daemon/match_api.h — the match runtime's REST operations, for
 * api_deps.matches (userdata: the struct matches registry). */
#ifndef ARBITER_DAEMON_MATCH_API_H
#define ARBITER_DAEMON_MATCH_API_H

struct api_match_ops;

const struct api_match_ops *match_api_ops(void);

#endif
